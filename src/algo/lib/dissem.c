/* dissem.c — n-way dissemination exchange (see dissem.h). */
#include "dissem.h"

void ag_dissem_setup(struct ag_dissem *d, unsigned nodes, unsigned ways, int layout, struct ag_layout *L)
{
    d->nodes = nodes;
    d->ways = ways;
    d->rounds = ag_ceil_log(nodes, ways + 1);
    d->record = layout == AG_PAD_RECORD;
    uint32_t per_node = d->rounds * ways;
    d->flags = d->record ? ag_flags_alloc(L, nodes, per_node, AG_PAD) : ag_flags_alloc(L, nodes * per_node, 1, AG_PAD);
}

static uint32_t flag_of(const struct ag_dissem *d, uint32_t q, uint32_t round, uint32_t j)
{
    uint32_t k = round * d->ways + (j - 1);
    return d->record ? ag_at(d->flags, q) + k : ag_at(d->flags, q * d->rounds * d->ways + k);
}

void ag_dissem_reset(const struct ag_run *r, const struct ag_dissem *d)
{
    for (uint32_t q = 0; q < d->nodes; q++)
        for (uint32_t round = 0; round < d->rounds; round++)
            for (uint32_t j = 1; j <= d->ways; j++)
                flag_store(&r->fl, flag_of(d, q, round, j), r->epoch0);
}

int ag_dissem_run(const struct ag_run *r, const struct ag_dissem *d, unsigned q, uint64_t e, uint64_t deadline,
                  int lead)
{
    uint64_t dist = 1; /* (W+1)^round */
    for (uint32_t round = 0; round < d->rounds; round++, dist *= d->ways + 1) {
        /* signal first, so the W partners of this round proceed in parallel with our waiting */
        for (uint32_t j = 1; j <= d->ways && j * dist < d->nodes; j++)
            flag_store(&r->fl, flag_of(d, (uint32_t)((q + j * dist) % d->nodes), round, j), e + 1);
        for (uint32_t j = 1; j <= d->ways && j * dist < d->nodes; j++) {
            uint32_t i = flag_of(d, q, round, j);
            int rc = lead ? flag_wait_lead(&r->fl, i, AG_GE, e + 1, deadline) : flag_wait(&r->fl, i, AG_GE, e + 1, deadline);
            if (rc)
                return rc;
        }
    }
    return 0;
}
