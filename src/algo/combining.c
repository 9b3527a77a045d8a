/* combining — software combining-tree barrier (Yew, Tzeng and Lawrie).
 * Idea: participants in rank order, K (arity) per leaf; the last arriver at a node (its fetch_add)
 * resets the counter and climbs; the last at the root is the champion and releases (lib/ctree.c).
 * Invariant: exactly one participant leaves each node upward per episode, so the root counts n.
 * Source: 002 §II-B (CMB, Fig. 4(a)); 003 §3 (ct, gs/ls release). Details: docs/algorithms/combining.md.
 */
#include <errno.h>

#include "../algo.h"
#include "lib/ctree.h"
#include "lib/wake.h"

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    long k = ag_int(s->p[0]);
    unsigned wake = ag_is_word(s->p[1]) ? ag_word(s->p[1]) : ~0u;
    if (k < 2 || k > 64 || (wake != AG_WAKE_GLOBAL && wake != AG_WAKE_TREE) || s->n < 1)
        return EINVAL;
    uint32_t K = (uint32_t)k, n = s->n;

    /* Level l has m_l players (m_0 = n participants) grouped K at a time into ceil(m_l / K) nodes,
     * which are the players of level l + 1; the last level has one node, the root. */
    uint32_t nnodes = 0, m = n;
    do {
        m = (m + K - 1) / K;
        nnodes += m;
    } while (m > 1);

    struct ag_ctree *st = ag_layout_state(L, ag_ctree_size(nnodes, n));
    if (!st)
        return 0; /* the framework reports ENOMEM */
    *st = (struct ag_ctree){ .mode = AG_CTREE_RESET, .tree_wake = wake == AG_WAKE_TREE, .nnodes = nnodes, .n = n };

    /* base: index of the first node of the current level; players: how many it combines */
    uint32_t base = 0, players = n;
    do {
        uint32_t nodes = (players + K - 1) / K;
        for (uint32_t j = 0; j < nodes; j++) {
            struct ag_cnode *nd = &st->node[base + j];
            nd->count = players - j * K < K ? players - j * K : K;
            nd->parent = nodes > 1 ? base + nodes + j / K : AG_CTREE_NONE;
        }
        base += nodes;
        players = nodes;
    } while (players > 1);

    uint32_t *leaf = ag_ctree_leaf(st);
    for (uint32_t t = 0; t < n; t++)
        leaf[t] = s->rank[t] / K;
    ag_ctree_flags(st, L);
    return 0;
}

static const struct ag_key keys[] = {
    AG_KEY_INT("arity", 2, 64, "4", "participants per leaf and child nodes per internal node (K)"),
    AG_KEY_WORD("wake", ag_wake_words_tree, "tree",
                "release: one global flag (003 gs), or a flag per node released top-down (003 ls)"),
    { 0 } };

const struct ag_algo ag_algo_combining = {
    { "combining", "software combining tree: counters per node, last arriver climbs",
      "002 §II-B CMB; 003 §3 ct", keys },
    setup, ag_ctree_reset, ag_ctree_wait, ag_ctree_arrive, ag_ctree_depart, NULL, NULL,
};
