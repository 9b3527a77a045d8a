/* reflex.c — "hw-reflex": the Reflex barrier of 001 (seed 001_3aa1328ae5e1a029) on TILE64's static
 * network (STN).
 *
 * Idea (001 §III, Algorithm 1, Figures 1-5): the participants' switches are configured into a ring
 * broken at the root's processor. Credit-based flow control turns a switch "off": its core's input
 * buffer is full (the root's Init/blocking message of `buffer size` flits), so the switch forwards
 * nothing. Notify: the root fences and sends one flit; every other core fences and drains its buffer
 * (RECV msg[buffer size]), which turns its switch on. The flit comes back to the root only when every
 * switch on the ring is on. Wait: the root reads the buffer-size blocking flits and the notify flit,
 * sends the release flit followed by a new blocking message (SEND msg[buffer size + 1]); the switches
 * multicast it to their cores (RECV msg[1]) and along the ring; the root receives its own release back.
 * A full barrier is notify directly followed by wait (001 §III-A).
 *
 * Cost model: 001's LogGP plus a per-hop latency (001 §V, Figure 9; the paper gives no formula, this is
 * the model spelled out with the algorithm's messages). Times in ns:
 *   h  = interconnect.networks.stn.hop (one cycle, 001 §IV-A), L = hops x h between switches;
 *   f  = devices.reflex.fence, os / or = devices.reflex.send_overhead / recv_overhead per flit,
 *   B  = devices.reflex.buffer_flits (the cores' STN input buffer), g = one flit per STN cycle = h.
 *   Ring: the participants' tiles ordered along a Hamiltonian cycle of the mesh (row 0 left to right,
 *   the other rows snaking over columns 1.., back up column 0; rows and columns swapped when only the
 *   column count is even; plain serpentine if both are odd) — each extra participant costs one hop, as
 *   001 §III-A says. Root = the first participant on it (the top-left one, as in 001's figures).
 *   d_k = hops(u_k, u_{k+1}) (u_n = u_0), D_k = d_0 + ... + d_{k-1}, D = D_n.
 *   Registration: root A_0 = t_0 + f + os (notify flit injected);
 *                 others A_k = max(t_k + f, ready_k) + B or (buffer drained: switch on), ready_k = when
 *                 the previous episode's blocking flits are all in k's buffer (R' + D_k h + B g).
 *   Notify flit: F_0 = A_0, F_k = max(F_{k-1} + d_{k-1} h, A_k), back at the root F = F_{n-1} + d_{n-1} h.
 *   Root wait: done = max(max(A_0, ready_0) + B or, F) + or; release flit injected R = done + os.
 *   Release: core k leaves at R + D_k h + or; the root at R + D h + or (its own release flit back).
 *
 * Refuses a machine without interconnect.networks.stn and devices.reflex (only tile64 has them), and
 * two participants on one switch (one processor per switch, 001 §III-A).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw.h"
#include "hw_util.h"

#define DEV "hw-reflex"
#define NEED_STN "interconnect.networks.stn (a TILE64-like static network with credit flow control, e.g. tile64)"
#define NEED "devices.reflex (the STN endpoints' overheads; given for tile64)"

struct reflex {
    double h, f, os, orr, B;
    unsigned *ring;  /* [k] tid at ring position k (k = 0: root) */
    unsigned *at;    /* [tid] its ring position */
    double *Dk;      /* [k] hop distance along the ring from the root, x h */
    double D;        /* the whole ring, x h */
    double *ready;   /* [k] the previous episode's blocking flits are in k's buffer */
    struct hw_ep ep;
};

static void rx_teardown(struct sim_hw_ctx *c)
{
    struct reflex *x = c->state;
    if (x) {
        free(x->ring);
        free(x->at);
        free(x->Dk);
        free(x->ready);
        hw_ep_free(&x->ep);
        free(x);
    }
    c->state = NULL;
}

/* Rank of (x, y) on a Hamiltonian cycle of a cols x rows grid (see the header comment). */
static unsigned long cycle_rank(unsigned x, unsigned y, unsigned cols, unsigned rows)
{
    if (rows % 2 && cols % 2 == 0)
        return cycle_rank(y, x, rows, cols);
    if (rows % 2 || cols < 2 || rows < 2)
        return (unsigned long)y * cols + (y % 2 ? cols - 1 - x : x);
    if (y == 0)
        return x;
    if (x == 0)
        return (unsigned long)cols + (unsigned long)(rows - 1) * (cols - 1) + (rows - 1 - y);
    unsigned long base = cols + (unsigned long)(y - 1) * (cols - 1);
    return base + (y % 2 ? cols - 1 - x : x - 1);
}

static int rx_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    const struct sim_machine *m = c->m;
    double h, f, os, orr, B;
    c->state = NULL;
    if (hw_param(c, DEV, NEED_STN, "interconnect.networks.stn.hop", &h, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.reflex.fence", &f, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.reflex.send_overhead", &os, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.reflex.recv_overhead", &orr, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.reflex.buffer_flits", &B, err, errlen))
        return -1;
    if (m->attach < 0 || !m->pos) {
        snprintf(err, errlen, "%s: %s has no switch coordinates (interconnect.coordinates)", DEV, m->name);
        return -1;
    }
    if (hw_check_n(c, DEV, err, errlen))
        return -1;
    struct reflex *x = calloc(1, sizeof *x);
    if (!x)
        goto oom;
    c->state = x;
    x->h = h;
    x->f = f;
    x->os = os;
    x->orr = orr;
    x->B = B;
    x->ring = calloc(c->n, sizeof *x->ring);
    x->at = calloc(c->n, sizeof *x->at);
    x->Dk = calloc(c->n, sizeof *x->Dk);
    x->ready = calloc(c->n, sizeof *x->ready);
    unsigned long *rank = calloc(c->n, sizeof *rank);
    if (!x->ring || !x->at || !x->Dk || !x->ready || !rank || hw_ep_init(&x->ep, c->n)) {
        free(rank);
        goto oom;
    }
    unsigned cols = 1, rows = 1;
    for (unsigned u = 0; u < m->nattach; u++) {
        if (m->pos[u][0] + 1 > cols)
            cols = m->pos[u][0] + 1;
        if (!m->ring && m->pos[u][1] + 1 > rows)
            rows = m->pos[u][1] + 1;
    }
    for (unsigned t = 0; t < c->n; t++) {
        unsigned u = sim_machine_attach_unit(m, c->hw[t]);
        rank[t] = m->ring ? m->pos[u][0] : cycle_rank(m->pos[u][0], m->pos[u][1], cols, rows);
        unsigned j = t;
        while (j > 0 && rank[x->ring[j - 1]] > rank[t]) {
            x->ring[j] = x->ring[j - 1];
            j--;
        }
        x->ring[j] = t;
    }
    for (unsigned k = 1; k < c->n; k++)
        if (rank[x->ring[k]] == rank[x->ring[k - 1]]) {
            snprintf(err, errlen, "%s: participants %u and %u share a switch; the ring has one processor per "
                     "switch (001 §III-A)", DEV, x->ring[k - 1], x->ring[k]);
            free(rank);
            rx_teardown(c);
            return -1;
        }
    free(rank);
    double acc = 0;
    for (unsigned k = 0; k < c->n; k++) {
        x->at[x->ring[k]] = k;
        x->Dk[k] = acc;
        unsigned a = sim_machine_attach_unit(m, c->hw[x->ring[k]]);
        unsigned b = sim_machine_attach_unit(m, c->hw[x->ring[(k + 1) % c->n]]);
        acc += sim_machine_hops(m, a, b) * h;
        x->ready[k] = -INFINITY; /* Init was done before the first episode */
    }
    x->D = acc;
    return 0;
oom:
    rx_teardown(c);
    snprintf(err, errlen, "%s: out of memory", DEV);
    return -1;
}

static double rx_arrive(struct sim_hw_ctx *c, unsigned tid, double t)
{
    struct reflex *x = c->state;
    unsigned n = c->n, root = x->ring[0];
    double r = tid == root ? t + x->f + x->os : fmax(t + x->f, x->ready[x->at[tid]]) + x->B * x->orr;
    if (hw_ep_add(&x->ep, tid, r)) {
        const double *A = x->ep.reg;
        double F = A[root];
        for (unsigned k = 1; k < n; k++)
            F = fmax(F + (x->Dk[k] - x->Dk[k - 1]), A[x->ring[k]]);
        F += x->D - x->Dk[n - 1];
        double done = fmax(fmax(A[root], x->ready[0]) + x->B * x->orr, F) + x->orr;
        double R = done + x->os;
        for (unsigned k = 1; k < n; k++) {
            x->ep.rel[x->ring[k]] = R + x->Dk[k] + x->orr;
            x->ready[k] = R + x->Dk[k] + x->B * x->h;
        }
        x->ep.rel[root] = R + x->D + x->orr;
        x->ready[0] = R + x->D + x->B * x->h;
    }
    return r;
}

static double rx_release(struct sim_hw_ctx *c, unsigned tid, double t_all)
{
    const struct reflex *x = c->state;
    return hw_ep_release(&x->ep, tid, t_all);
}

const struct sim_hw sim_hw_reflex = {
    .name = DEV,
    .summary = "Reflex barrier: a ring of STN switches gated by credit flow control, LogGP + hops (001)",
    .setup = rx_setup,
    .arrive = rx_arrive,
    .release = rx_release,
    .teardown = rx_teardown,
};
