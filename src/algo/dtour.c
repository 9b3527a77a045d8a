/* dtour — dynamic f-way tournament barrier (Grunwald and Vajracharya).
 * Idea: balanced rounds of at most F players per group; the fetch_add that completes a group's count
 * wins it and plays on; the last winner is the champion and releases (lib/ctree.c).
 * Invariant: arrival words only grow (never reset); the winner is found from the episode number.
 * Source: 002 §II-B, §V-B-2 (DTOUR); 003 §3 (dtn). Details: docs/algorithms/dtour.md.
 */
#include <errno.h>

#include "../algo.h"
#include "lib/ctree.h"
#include "lib/wake.h"


/* m players in g groups as equal as possible: the first m % g groups have one player more. */
static uint32_t group_of(uint32_t p, uint32_t m, uint32_t g)
{
    uint32_t q = m / g, rem = m % g, big = rem * (q + 1);
    return p < big ? p / (q + 1) : rem + (p - big) / q;
}

static uint32_t ngroups_for(uint32_t m, uint32_t f) { return (m + f - 1) / f; }

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    long f = ag_int(s->p[0]);
    unsigned wake = ag_is_word(s->p[1]) ? ag_word(s->p[1]) : ~0u;
    if (f < 2 || f > 64 || (wake != AG_WAKE_GLOBAL && wake != AG_WAKE_TREE) || s->n < 1)
        return EINVAL;
    uint32_t F = (uint32_t)f, n = s->n;

    uint32_t total = 0, m = n;
    do {
        m = ngroups_for(m, F);
        total += m;
    } while (m > 1);

    struct ag_ctree *st = ag_layout_state(L, ag_ctree_size(total, n));
    if (!st)
        return 0; /* the framework reports ENOMEM */
    /* reset-free arrival counts: no Re-initialization-Phase (002 §II-B) */
    *st = (struct ag_ctree){ .mode = AG_CTREE_COUNT, .tree_wake = wake == AG_WAKE_TREE, .nnodes = total, .n = n };

    /* Round r: m players in g groups starting at index base; group i is player i of round r + 1,
     * where it plays in group group_of(i, g, g') of that round. */
    uint32_t base = 0;
    m = n;
    do {
        uint32_t g = ngroups_for(m, F), q = m / g, rem = m % g;
        uint32_t gnext = g > 1 ? ngroups_for(g, F) : 0;
        for (uint32_t i = 0; i < g; i++) {
            struct ag_cnode *gp = &st->node[base + i];
            gp->count = q + (i < rem);
            gp->parent = g > 1 ? base + g + group_of(i, g, gnext) : AG_CTREE_NONE;
        }
        base += g;
        m = g;
    } while (m > 1);

    uint32_t *first = ag_ctree_leaf(st);
    uint32_t g0 = ngroups_for(n, F);
    for (uint32_t t = 0; t < n; t++)
        first[t] = group_of(s->rank[t], n, g0);
    ag_ctree_flags(st, L);
    return 0;
}

static const struct ag_key keys[] = {
    AG_KEY_INT("fanin", 2, 64, "4", "largest group per round (F); groups are balanced: ceil(m/F) groups of m players"),
    AG_KEY_WORD("wake", ag_wake_words_tree, "tree",
                "release: one global flag, or a flag per group released top-down by its winner"),
    { 0 } };

const struct ag_algo ag_algo_dtour = {
    { "dtour", "dynamic f-way tournament: balanced rounds, winner decided by atomics, reset-free counts",
      "002 §II-B DTOUR; 003 §3 dtn", keys },
    setup, ag_ctree_reset, ag_ctree_wait, ag_ctree_arrive, ag_ctree_depart, NULL, NULL,
};
