/* combining — software combining-tree barrier (Yew, Tzeng and Lawrie).
 *
 * Source: 002_22d269b377cdac79.txt §II-B "Software combined tree barrier" (CMB, Figure 4(a));
 *         003_614c4f6f0a5e5869.txt §3 "combining-tree barrier" (ct, with "gs" global or "ls" local
 *         node-level release flags).
 *
 * Idea (the counting tree and the release are lib/ctree.c, shared with dtour): participants, in topology rank order, are grouped K (arity) at a time into the leaves of a
 * tree; each node has an arrival counter on its own cache line, "like the centralized barrier". The
 * last arriver at a node (decided at run time by its fetch_add) resets the counter and climbs to the
 * parent, where it counts as one arrival of a child node; the last arriver at the root is the champion
 * (AG_SERIAL). Nobody else climbs: they wait, either on one global release flag (wake=global, 003's
 * "gs") or on the release flag of the node where they lost (wake=tree, 003's "ls"). In the tree wake the
 * champion, and every winner once it is released, stores the release flags of the nodes it won from the
 * top down, so the release fans out down the same tree the arrivals climbed.
 *
 * Cost (critical path, cache-line transfers; 002 §III-B notation): the tree has D = ceil(log_K n)
 * levels; at each level up to K read-modify-writes serialize on the node's line, so arrival costs D
 * transfers when arrivals are staggered and up to D·K when they collide, never n on one line (the hot
 * spot of central is split into ceil(n/K) + ... + 1 cooler ones). Release: global is 002 formula (3),
 * ((n-1)·α + 1)·L + c·(n-1); tree is about D + 1 store-then-read hops, each a store that invalidates at
 * most K-1 sharers and their reads, ≈ (D + 1)·((K-1)·α + 1)·L, with no line read by more than K-1.
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
    setup, ag_ctree_reset, ag_ctree_wait, ag_ctree_arrive, ag_ctree_depart,
};
