/* hw_util.c — episode bookkeeping and a single-server port for the sim/hw devices (hw_util.h). */
#include "hw_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hw_ep_init(struct hw_ep *e, unsigned n)
{
    memset(e, 0, sizeof *e);
    e->n = n;
    e->reg = calloc(n ? n : 1, sizeof *e->reg);
    e->rel = calloc(n ? n : 1, sizeof *e->rel);
    e->seq = calloc(n ? n : 1, sizeof *e->seq);
    e->sorted = calloc(n ? n : 1, sizeof *e->sorted);
    if (!e->reg || !e->rel || !e->seq || !e->sorted) {
        hw_ep_free(e);
        return -1;
    }
    return 0;
}

void hw_ep_free(struct hw_ep *e)
{
    free(e->reg);
    free(e->rel);
    free(e->seq);
    free(e->sorted);
    memset(e, 0, sizeof *e);
}

int hw_ep_add(struct hw_ep *e, unsigned tid, double r)
{
    e->reg[tid] = r;
    e->seq[e->count] = tid;
    if (++e->count < e->n)
        return 0;
    double t = e->reg[e->seq[0]];
    for (unsigned k = 1; k < e->n; k++)
        if (e->reg[e->seq[k]] > t)
            t = e->reg[e->seq[k]];
    e->t_all = t;
    e->count = 0;
    e->complete = 1;
    return 1;
}

void hw_ep_sort(struct hw_ep *e)
{
    /* insertion sort by (reg, call position): stable, n is small and the input nearly sorted */
    for (unsigned k = 0; k < e->n; k++) {
        unsigned t = e->seq[k], j = k;
        while (j > 0 && e->reg[e->sorted[j - 1]] > e->reg[t]) {
            e->sorted[j] = e->sorted[j - 1];
            j--;
        }
        e->sorted[j] = t;
    }
}

double hw_ep_release(const struct hw_ep *e, unsigned tid, double t_all)
{
    if (!e->complete || tid >= e->n)
        return t_all;
    return t_all + (e->rel[tid] - e->t_all);
}

int hw_port_init(struct hw_port *p, unsigned cap)
{
    p->len = 0;
    p->cap = cap ? cap : 1;
    p->start = malloc(p->cap * sizeof *p->start);
    return p->start ? 0 : -1;
}

void hw_port_reset(struct hw_port *p)
{
    p->len = 0;
}

void hw_port_free(struct hw_port *p)
{
    free(p->start);
    memset(p, 0, sizeof *p);
}

double hw_port_take(struct hw_port *p, double x, double d)
{
    if (d <= 0)
        return x;
    const double eps = 1e-9; /* ns: adjacent reservations must not be pushed apart by rounding */
    double s = x;
    unsigned i = 0;
    for (; i < p->len; i++) {
        double a = p->start[i], b = a + d;
        if (b <= s + eps)
            continue;            /* ends before the candidate */
        if (a >= s + d - eps)
            break;               /* the candidate fits before it */
        s = b;                   /* overlaps: try right after it */
    }
    if (p->len == p->cap) {
        unsigned cap = p->cap ? 2 * p->cap : 64;
        double *ns = realloc(p->start, cap * sizeof *ns);
        if (!ns)
            return -1.0;
        p->start = ns;
        p->cap = cap;
    }
    memmove(p->start + i + 1, p->start + i, (p->len - i) * sizeof *p->start);
    p->start[i] = s;
    p->len++;
    return s;
}

int hw_param(const struct sim_hw_ctx *c, const char *dev, const char *what, const char *path, double *v, char *err,
             size_t errlen)
{
    char msg[400];
    if (!sim_machine_param(c->m, path, v, msg, sizeof msg))
        return 0;
    snprintf(err, errlen, "%s needs %s: %s", dev, what, msg);
    return -1;
}

int hw_check_n(const struct sim_hw_ctx *c, const char *dev, char *err, size_t errlen)
{
    if (c->n == 0) {
        snprintf(err, errlen, "%s: no participants", dev);
        return -1;
    }
    if (c->n > c->m->threads) {
        snprintf(err, errlen, "%s: %u participants on %s, which has %u hardware threads", dev, c->n, c->m->name,
                 c->m->threads);
        return -1;
    }
    return 0;
}
