/* layout.c — the arena and state-block allocator algorithms call at setup (algo.h). Backend-neutral:
 * compiled into libandgate and into the simulator alike. */
#include <stdlib.h>

#include "algo.h"

ag_frange_t ag_flags_alloc(struct ag_layout *L, uint32_t count, uint32_t width, int pack)
{
    uint32_t ls = L->line_slots;
    uint32_t stride = pack == AG_PACK ? width : (width + ls - 1) / ls * ls;
    ag_frange_t r = { L->nslots, stride };
    uint64_t end = (uint64_t)L->nslots + (uint64_t)count * stride;
    end = (end + ls - 1) / ls * ls;
    if (end > UINT32_MAX / 2) {
        L->oom = 1;
        return (ag_frange_t){ 0, 0 };
    }
    L->nslots = (uint32_t)end;
    return r;
}

void *ag_layout_state(struct ag_layout *L, size_t size)
{
    if (L->state) {
        L->oom = 1; /* may be called once */
        return NULL;
    }
    L->state = calloc(1, size ? size : 1);
    L->state_size = size;
    if (!L->state)
        L->oom = 1;
    return L->state;
}

