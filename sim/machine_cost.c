/* machine_cost.c — the cost queries on a loaded machine: levels and units of a hardware thread, NoC
 * hops, the latency between two threads (via a line's home, or its home node's three legs), the
 * invalidation weights. */
#define _GNU_SOURCE
#include "machine.h"

#include <stdlib.h>
#include <string.h>

int sim_machine_layer(const struct sim_machine *m, const char *id)
{
    for (unsigned i = 0; i < m->nlayers; i++)
        if (!strcmp(m->layer[i].id, id))
            return (int)i;
    return -1;
}

int sim_machine_level(const struct sim_machine *m, const char *name)
{
    for (unsigned i = 0; i < m->nlevels; i++)
        if (!strcmp(m->level[i], name))
            return (int)i;
    return -1;
}

unsigned sim_machine_unit(const struct sim_machine *m, unsigned hw, unsigned lvl)
{
    if (m->uid)
        return m->uid[hw * m->nlevels + lvl];
    unsigned below = 1;
    for (unsigned k = lvl + 1; k < m->nlevels; k++)
        below *= m->count[k];
    return hw / below;
}

unsigned sim_machine_hops(const struct sim_machine *m, unsigned u, unsigned v)
{
    if (!m->pos)
        return 0;
    if (!m->ring) {
        unsigned dx = m->pos[u][0] > m->pos[v][0] ? m->pos[u][0] - m->pos[v][0] : m->pos[v][0] - m->pos[u][0];
        unsigned dy = m->pos[u][1] > m->pos[v][1] ? m->pos[u][1] - m->pos[v][1] : m->pos[v][1] - m->pos[u][1];
        return dx + dy;
    }
    unsigned N = m->ring_stops, d = (m->pos[v][0] + N - m->pos[u][0]) % N;
    return m->bidirectional && N - d < d ? N - d : d;
}

unsigned sim_machine_attach_unit(const struct sim_machine *m, unsigned hw)
{
    return m->attach < 0 ? 0 : sim_machine_unit(m, hw, (unsigned)m->attach);
}

int sim_machine_number_units(struct sim_machine *m)
{
    unsigned T = m->threads, L = m->nlevels;
    free(m->uid);
    m->uid = NULL; /* sim_machine_unit computes the numbers */
    unsigned short *u = malloc((size_t)T * L * sizeof *u);
    if (!u)
        return -1;
    for (unsigned a = 0; a < T; a++)
        for (unsigned v = 0; v < L; v++)
            u[a * L + v] = (unsigned short)sim_machine_unit(m, a, v);
    m->uid = u;
    return 0;
}

unsigned sim_machine_layer_of(const struct sim_machine *m, unsigned a, unsigned b)
{
    if (a == b)
        return m->self_layer;
    const unsigned short *x = m->uid + (size_t)a * m->nlevels, *y = m->uid + (size_t)b * m->nlevels;
    unsigned d = 0;
    while (x[d] == y[d]) /* two threads differ at the innermost level at least */
        d++;
    if (m->um && (int)d <= m->um_level)
        return m->um[x[m->um_level] * m->um_units + y[m->um_level]];
    return m->by_diff[d];
}

double sim_machine_cost(const struct sim_machine *m, unsigned a, unsigned b, unsigned home)
{
    const struct sim_layer *y = &m->layer[sim_machine_layer_of(m, a, b)];
    if (y->path == SIM_PATH_FIXED)
        return y->ns;
    unsigned ua = sim_machine_attach_unit(m, a), ub = sim_machine_attach_unit(m, b), hops;
    switch (y->path) {
    case SIM_PATH_DIRECT:
        hops = sim_machine_hops(m, ua, ub);
        break;
    case SIM_PATH_VIA_HOME:
        hops = sim_machine_hops(m, ua, home) + sim_machine_hops(m, home, ub) + sim_machine_hops(m, ub, ua);
        break;
    default: /* home_roundtrip: there and back (on a unidirectional ring, not the same way) */
        hops = sim_machine_hops(m, ua, home) + sim_machine_hops(m, home, ua);
        break;
    }
    return y->ns + hops * m->hop_ns;
}

double sim_machine_xfer_delta(const struct sim_machine *m, unsigned a, unsigned b, enum sim_xfer how)
{
    const struct sim_layer *y = &m->layer[sim_machine_layer_of(m, a, b)];
    double given = how == SIM_XFER_COLD ? y->cold_ns : how == SIM_XFER_PAUSED ? y->paused_ns : 0;
    return given > 0 ? given - y->ns : 0;
}

double sim_machine_alpha(const struct sim_machine *m, unsigned a, unsigned b)
{
    return m->layer[sim_machine_layer_of(m, a, b)].alpha;
}

double sim_machine_cost_via(const struct sim_machine *m, unsigned a, unsigned b, unsigned node)
{
    double direct = sim_machine_cost(m, a, b, 0);
    if (!m->nnodes || a == b)
        return direct;
    /* Inside one node its own directory or snoop filter resolves the miss; across nodes the home's does */
    unsigned lvl = m->node_level, na = sim_machine_unit(m, a, lvl), nb = sim_machine_unit(m, b, lvl);
    if (na == nb || node == na || node == nb)
        return direct;
    /* Each layer across nodes is the in-node base plus a request leg and a data leg (the files derive
     * them so: base + 2 traversals); a three-leg path is the base plus three single legs. */
    unsigned h = node * (m->threads / m->nnodes); /* the home node's first hardware thread */
    double base = m->node_base_ns;
    double leg2 = (sim_machine_cost(m, a, h, 0) - base) + (sim_machine_cost(m, h, b, 0) - base) + (direct - base);
    return base + leg2 / 2;
}
