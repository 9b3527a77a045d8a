/* wake.c — the notification phase of 002_22d269b377cdac79.txt §V-C (see wake.h). */
#include "wake.h"

#include <stdlib.h>

#define ROW (1 + AG_WAKE_MAXCHILD)

const char *const ag_wake_words[] = { "global", "tree", "numa", NULL };
const char *const ag_wake_words_tree[] = { "global", "tree", NULL };

size_t ag_wake_table_bytes(unsigned n, uint32_t kind)
{
    return kind == AG_WAKE_GLOBAL ? 0 : (size_t)n * ROW * sizeof(uint32_t);
}

static void add_child(uint32_t *row, uint32_t c)
{
    row[1 + row[0]++] = c;
}

void ag_wake_numa_children(unsigned n, const unsigned *group_of_pos, uint32_t *child)
{
    /* group starts, in position order */
    unsigned ngroups = n ? group_of_pos[n - 1] + 1 : 0;
    for (unsigned q = 0; q < n; q++)
        child[(size_t)q * ROW] = 0;
    unsigned start = 0;
    for (unsigned g = 0, q = 0; g < ngroups; g++) {
        start = q;
        while (q < n && group_of_pos[q] == g)
            q++;
        unsigned size = q - start;
        uint32_t *master = &child[(size_t)start * ROW];
        /* masters: a binary tree over groups (formula (5), first two cases) */
        for (unsigned cg = 2 * g + 1; cg <= 2 * g + 2 && cg < ngroups; cg++) {
            unsigned cs = 0; /* position of group cg's master */
            while (group_of_pos[cs] != cg)
                cs++;
            add_child(master, cs);
        }
        /* inside the group: a binary tree over the local index (last two cases) */
        for (unsigned l = 0; l < size; l++)
            for (unsigned c = 2 * l + 1; c <= 2 * l + 2 && c < size; c++)
                add_child(&child[(size_t)(start + l) * ROW], start + c);
    }
}

void ag_wake_setup(struct ag_wake *w, uint32_t kind, const struct ag_setup *s, struct ag_layout *L, void *state,
                   uint32_t table_off)
{
    unsigned n = s->n;
    w->kind = kind;
    w->table = table_off;
    if (kind == AG_WAKE_GLOBAL) {
        w->global = ag_flags_alloc(L, 1, 1, AG_PAD).first;
        return;
    }
    w->local = ag_flags_alloc(L, n, 1, AG_PAD);
    uint32_t *bypos = malloc((size_t)n * ROW * sizeof *bypos);
    /* calloc, not malloc: gcc -O2 without -fPIC (an executable, or a test compiling wake.c directly)
     * reports gpos maybe-uninitialized when passed to ag_wake_numa_children, fatal under -Werror */
    unsigned *gpos = calloc(n ? n : 1, sizeof *gpos);
    if (!bypos || !gpos || !state) {
        free(bypos), free(gpos);
        L->oom = 1;
        return;
    }
    /* the numa tree groups by the level that separates participants: NUMA nodes when there are
     * several, else cache groups (002 §III's core clusters); one group makes it the binary tree */
    int lvl = s->ngroups[AG_LVL_NUMA] > 1 ? AG_LVL_NUMA : AG_LVL_CACHE;
    for (unsigned q = 0; q < n; q++)
        gpos[q] = kind == AG_WAKE_NUMA ? s->group[lvl][s->order[q]] : 0;
    ag_wake_numa_children(n, gpos, bypos); /* with a single group: the binary tree of formula (4) */
    /* positions -> tids */
    uint32_t *tab = (uint32_t *)((char *)state + table_off);
    for (unsigned q = 0; q < n; q++) {
        const uint32_t *src = &bypos[(size_t)q * ROW];
        uint32_t *dst = &tab[(size_t)s->order[q] * ROW];
        dst[0] = src[0];
        for (uint32_t c = 0; c < src[0]; c++)
            dst[1 + c] = s->order[src[1 + c]];
    }
    free(bypos);
    free(gpos);
}

void ag_wake_reset(const struct ag_run *r, const struct ag_wake *w)
{
    /* a participant in episode e waits for e + 1 */
    if (w->kind == AG_WAKE_GLOBAL)
        flag_store(&r->fl, w->global, r->epoch0);
    else
        for (unsigned t = 0; t < r->n; t++)
            flag_store(&r->fl, ag_at(w->local, t), r->epoch0);
}

static void wake_children(const struct ag_run *r, const struct ag_wake *w, unsigned tid, uint64_t e)
{
    const uint32_t *row = (const uint32_t *)((const char *)r->st + w->table) + (size_t)tid * ROW;
    for (uint32_t c = 0; c < row[0]; c++)
        flag_store(&r->fl, ag_at(w->local, row[1 + c]), e + 1);
}

void ag_wake_release(const struct ag_run *r, const struct ag_wake *w, unsigned tid, uint64_t e)
{
    if (w->kind == AG_WAKE_GLOBAL)
        flag_store(&r->fl, w->global, e + 1);
    else
        wake_children(r, w, tid, e);
}

int ag_wake_wait(const struct ag_run *r, const struct ag_wake *w, unsigned tid, uint64_t e, uint64_t deadline)
{
    if (w->kind == AG_WAKE_GLOBAL)
        return flag_wait(&r->fl, w->global, AG_GE, e + 1, deadline);
    int rc = flag_wait(&r->fl, ag_at(w->local, tid), AG_GE, e + 1, deadline);
    if (rc)
        return rc;
    wake_children(r, w, tid, e);
    return 0;
}
