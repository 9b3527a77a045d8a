/* layout.c — the arena and state-block allocator algorithms call at setup (algo.h). Backend-neutral:
 * compiled into libandgate and into the simulator alike. */
#include <errno.h>
#include <stdlib.h>

#include "algo.h"

const char *const ag_pad_record_words[] = { "line", "record", NULL };

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


int ag_layout_plan(const struct ag_algo *a, unsigned n, const long *params, unsigned line, const unsigned *rank,
                   const unsigned *order, const unsigned *const group[3], const unsigned ngroups[3],
                   struct ag_layout *L, uint32_t *broken, ag_frange_t *self)
{
    *L = (struct ag_layout){ .line_slots = line / 8 };
    *broken = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    *self = ag_flags_alloc(L, n, AG_SELF_WIDTH, AG_PAD); /* one line each, 64 or 128 bytes */
    struct ag_setup s = { .n = n, .p = params, .line = line, .rank = rank, .order = order };
    for (int l = 0; l < 3; l++) {
        s.group[l] = group[l];
        s.ngroups[l] = ngroups[l];
    }
    int rc = a->setup(&s, L);
    if (!rc && L->oom)
        rc = ENOMEM;
    if (rc) {
        free(L->state);
        L->state = NULL;
    }
    return rc;
}

unsigned ag_line_of(const struct ag_algo *a, const long *params)
{
    unsigned nk = 0;
    while (a->k.keys && a->k.keys[nk].name)
        nk++;
    /* the common key "line" (words "64" | "128") follows the algorithm's keys */
    return ag_word(params[nk]) == 0 ? 64 : 128;
}
