/* combining — software combining-tree barrier (Yew, Tzeng and Lawrie).
 *
 * Source: 002_22d269b377cdac79.txt §II-B "Software combined tree barrier" (CMB, Figure 4(a));
 *         003_614c4f6f0a5e5869.txt §3 "combining-tree barrier" (ct, with "gs" global or "ls" local
 *         node-level release flags).
 *
 * Idea: participants, in topology rank order, are grouped K (arity) at a time into the leaves of a
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

enum { WAKE_GLOBAL = -1, WAKE_TREE = -2 }; /* the words of key "wake", as spec.c stores them */
#define NONE UINT32_MAX
#define MAXDEPTH 64 /* K >= 2 and n < 2^32: at most 33 levels */

struct cnode {
    uint32_t parent; /* node index, NONE at the root */
    uint32_t count;  /* arrivals per episode: participants (leaves) or child nodes (internal) */
};

struct combining {
    long wake;
    uint32_t global;      /* wake=global: the release flag */
    ag_frange_t ctr, rel; /* per node: arrival counter; release flag (wake=tree) */
    uint32_t nnodes;
    uint32_t leaf_off;    /* byte offset of uint32_t leaf[n]: each tid's leaf node */
    struct cnode node[];  /* level by level, leaves first, the root last */
};

static const uint32_t *leaf_of(const struct combining *st)
{
    return (const uint32_t *)((const char *)st + st->leaf_off);
}

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    long k = s->p[0], wake = s->p[1];
    if (k < 2 || k > 64 || (wake != WAKE_GLOBAL && wake != WAKE_TREE) || s->n < 1)
        return EINVAL;
    uint32_t K = (uint32_t)k, n = s->n;

    /* Level l has m_l players (m_0 = n participants) grouped K at a time into ceil(m_l / K) nodes,
     * which are the players of level l + 1; the last level has one node, the root. */
    uint32_t nnodes = 0, m = n;
    do {
        m = (m + K - 1) / K;
        nnodes += m;
    } while (m > 1);

    size_t leaf_off = sizeof(struct combining) + (size_t)nnodes * sizeof(struct cnode);
    leaf_off = (leaf_off + 7) & ~(size_t)7;
    struct combining *st = ag_layout_state(L, leaf_off + (size_t)n * sizeof(uint32_t));
    if (!st)
        return 0; /* the framework reports ENOMEM */
    st->wake = wake;
    st->nnodes = nnodes;
    st->leaf_off = (uint32_t)leaf_off;

    /* base: index of the first node of the current level; players: how many it combines */
    uint32_t base = 0, players = n;
    do {
        uint32_t nodes = (players + K - 1) / K;
        for (uint32_t j = 0; j < nodes; j++) {
            struct cnode *nd = &st->node[base + j];
            nd->count = players - j * K < K ? players - j * K : K;
            nd->parent = nodes > 1 ? base + nodes + j / K : NONE;
        }
        base += nodes;
        players = nodes;
    } while (players > 1);

    uint32_t *leaf = (uint32_t *)((char *)st + leaf_off);
    for (uint32_t t = 0; t < n; t++)
        leaf[t] = s->rank[t] / K;

    st->ctr = ag_flags_alloc(L, nnodes, 1, AG_PAD);
    if (wake == WAKE_TREE)
        st->rel = ag_flags_alloc(L, nnodes, 1, AG_PAD);
    else
        st->global = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct combining *st = r->st;
    /* counters are empty between episodes; a participant in episode e waits for a release flag to
     * reach e + 1, so every release flag starts at the first episode number */
    for (uint32_t x = 0; x < st->nnodes; x++) {
        flag_store(&r->fl, ag_at(st->ctr, x), 0);
        if (st->wake == WAKE_TREE)
            flag_store(&r->fl, ag_at(st->rel, x), r->epoch0);
    }
    if (st->wake == WAKE_GLOBAL)
        flag_store(&r->fl, st->global, r->epoch0);
}

/* wake=tree: release the nodes this participant won, path[won-1] (highest) down to path[0] (its
 * leaf). Nodes with one arrival have no losers waiting on them. */
static void release_path(const struct ag_run *r, const struct combining *st, const uint32_t *path, unsigned won,
                         uint64_t e)
{
    while (won--)
        if (st->node[path[won]].count > 1)
            flag_store(&r->fl, ag_at(st->rel, path[won]), e + 1);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct combining *st = r->st;
    uint32_t path[MAXDEPTH];
    unsigned won = 0;
    uint32_t x = leaf_of(st)[tid];

    /* Arrival: climb while this participant is the last to arrive at node x. */
    for (;;) {
        const struct cnode *nd = &st->node[x];
        if (nd->count > 1) {
            uint32_t c = ag_at(st->ctr, x);
            if (flag_fetch_add(&r->fl, c, 1) != nd->count - 1)
                break; /* lost at x: somebody else will climb for this subtree */
            /* Every arrival at x for episode e precedes this one in x's counter, and nobody can
             * arrive at x for episode e + 1 before the release of e, which happens after this store
             * (it precedes our climb, and the champion's release needs our climb): resetting the
             * counter here, before the release, is race-free. */
            flag_put(&r->fl, c, 0);
        }
        /* The fetch_add chain (acq_rel) carries every arrival of x's subtree to us, and from us to
         * whoever wins the parent: the champion's history includes every participant's arrival. */
        path[won++] = x;
        if (nd->parent == NONE) {
            /* Champion: all n participants have arrived in episode e. */
            if (st->wake == WAKE_GLOBAL)
                flag_store(&r->fl, st->global, e + 1);
            else
                release_path(r, st, path, won, e);
            return AG_SERIAL;
        }
        x = nd->parent;
    }

    /* Lost at node x. The release flag only reaches e + 1 after every participant arrived in episode
     * e; it can never be ahead, since episode e + 1 cannot complete without us. */
    if (st->wake == WAKE_GLOBAL)
        return flag_wait(&r->fl, st->global, AG_GE, e + 1, deadline);
    int rc = flag_wait(&r->fl, ag_at(st->rel, x), AG_GE, e + 1, deadline);
    if (rc)
        return rc;
    /* Released (acquire: the champion's history is ours); pass it on down the nodes we won, so
     * every loser below us is released by a chain of release stores from the champion. */
    release_path(r, st, path, won, e);
    return 0;
}

static const char *const wake_words[] = { "global", "tree", NULL };
static const struct ag_key keys[] = {
    { "arity", 2, 64, NULL, "4", "participants per leaf and child nodes per internal node (K)" },
    { "wake", 1, 0, wake_words, "tree",
      "release: one global flag (003 gs), or a flag per node released top-down (003 ls)" },
    { 0 } };

const struct ag_algo ag_algo_combining = {
    { "combining", "software combining tree: counters per node, last arriver climbs",
      "002 §II-B CMB; 003 §3 ct", keys },
    setup, reset, wait,
};
