/* machine_cost.c — the cost queries on a loaded machine that are not on the hot path (those are inline
 * in machine_cost.h): a level or layer by name, the unit numbering, a transfer over a home node's three
 * legs, the layers pairs use. */
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

uint32_t sim_machine_pair_layers(const struct sim_machine *m)
{
    uint32_t used = 0;
    for (unsigned d = 0; d < m->nlevels; d++) /* two threads' units first differ at d: d has siblings */
        if (m->count[d] > 1 && !(m->um && (int)d <= m->um_level))
            used |= 1u << m->by_diff[d];
    for (unsigned i = 0; m->um && i < m->um_units; i++)
        for (unsigned j = 0; j < m->um_units; j++)
            if (i != j)
                used |= 1u << m->um[i * m->um_units + j];
    return used;
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
