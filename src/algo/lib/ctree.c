/* ctree.c — a tree of arrival counters with run-time winners (see ctree.h). */
#include "ctree.h"

#define MAXDEPTH 64 /* count >= 2 at every level that counts, n < 2^32: at most 33 levels */

size_t ag_ctree_size(uint32_t nnodes, unsigned n)
{
    return sizeof(struct ag_ctree) + (size_t)nnodes * sizeof(struct ag_cnode) + (size_t)n * sizeof(uint32_t);
}

uint32_t *ag_ctree_leaf(struct ag_ctree *t)
{
    return (uint32_t *)(void *)&t->node[t->nnodes];
}

static const uint32_t *leaf_of(const struct ag_ctree *t)
{
    return (const uint32_t *)(const void *)&t->node[t->nnodes];
}

void ag_ctree_flags(struct ag_ctree *t, struct ag_layout *L)
{
    t->ctr = ag_flags_alloc(L, t->nnodes, 1, AG_PAD);
    if (t->tree_wake)
        t->rel = ag_flags_alloc(L, t->nnodes, 1, AG_PAD);
    else
        t->global = ag_flags_alloc(L, 1, 1, AG_PAD).first;
}

void ag_ctree_reset(const struct ag_run *r)
{
    const struct ag_ctree *t = r->st;
    /* A participant in episode e waits for a release flag to reach e + 1, so every release flag starts
     * at the first episode number. Counters: empty (reset mode) or epoch0·count (count mode). */
    for (uint32_t x = 0; x < t->nnodes; x++) {
        flag_store(&r->fl, ag_at(t->ctr, x), t->mode == AG_CTREE_COUNT ? r->epoch0 * t->node[x].count : 0);
        if (t->tree_wake)
            flag_store(&r->fl, ag_at(t->rel, x), r->epoch0);
    }
    if (!t->tree_wake)
        flag_store(&r->fl, t->global, r->epoch0);
}

/* Is this arrival at node x the last of episode e? */
static int won_node(const struct ag_run *r, const struct ag_ctree *t, uint32_t x, uint64_t e)
{
    uint32_t c = ag_at(t->ctr, x), count = t->node[x].count;
    uint64_t a = flag_fetch_add(&r->fl, c, 1);
    if (t->mode == AG_CTREE_COUNT) {
        /* Invariant: before episode e the count A of node x is e·count mod 2^64; each episode adds
         * exactly count, and no arrival of episode e + 1 reaches x before all of episode e did (the
         * release of e needs x's winner). So the k-th arrival of episode e reads e·count + k - 1, and
         * exactly the one that makes A = (e + 1)·count wins. A test "A + 1 is a multiple of count"
         * would break at the 2^64 wrap-around when count does not divide 2^64; equality computed mod
         * 2^64 like A holds across any wrap, and A is never reset. Nobody waits on A. */
        return a + 1 == (e + 1) * count;
    }
    if (a != count - 1)
        return 0;
    /* Every arrival at x for episode e precedes this one in x's counter, and nobody arrives at x for
     * episode e + 1 before the release of e, which needs our climb: resetting here is race-free. */
    flag_put(&r->fl, c, 0);
    return 1;
}

/* tree wake: release the nodes this participant won, path[won-1] (highest) down to path[0]. Nodes
 * with one arrival have no losers waiting on them. */
static void release_path(const struct ag_run *r, const struct ag_ctree *t, const uint32_t *path, unsigned won,
                         uint64_t e)
{
    while (won--)
        if (t->node[path[won]].count > 1)
            flag_store(&r->fl, ag_at(t->rel, path[won]), e + 1);
}

/* Split phase. Arrival climbs while this participant is the last to arrive at node x and never waits:
 * it ends as the champion (who releases everybody at once) or as a loser at some node x. tok: the
 * node where it lost, or AG_CTREE_NONE for the champion. */
void ag_ctree_arrive(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok)
{
    const struct ag_ctree *t = r->st;
    uint32_t path[MAXDEPTH];
    unsigned won = 0;
    uint32_t x = leaf_of(t)[tid];
    /* The fetch_add chain (acq_rel) carries every arrival of x's subtree to the winner, and on to the
     * champion. */
    for (;;) {
        if (t->node[x].count > 1 && !won_node(r, t, x, e)) {
            *tok = x; /* lost at x: somebody else climbs for this subtree */
            return;
        }
        path[won++] = x;
        if (t->node[x].parent == AG_CTREE_NONE)
            break;
        x = t->node[x].parent;
    }
    /* Champion: all n participants have arrived in episode e. */
    if (t->tree_wake)
        release_path(r, t, path, won, e);
    else
        flag_store(&r->fl, t->global, e + 1);
    *tok = AG_CTREE_NONE;
}

int ag_ctree_depart(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline)
{
    const struct ag_ctree *t = r->st;
    if (tok == AG_CTREE_NONE)
        return AG_SERIAL;
    /* Lost at node x = tok. A release flag reaches e + 1 only once everyone arrived in episode e, and
     * can never be ahead: episode e + 1 cannot complete without us. */
    uint32_t x = (uint32_t)tok;
    if (!t->tree_wake)
        return flag_wait(&r->fl, t->global, AG_GE, e + 1, deadline);
    int rc = flag_wait(&r->fl, ag_at(t->rel, x), AG_GE, e + 1, deadline);
    if (rc)
        return rc;
    /* Released (acquire: the champion's history is ours); pass it on down the nodes we won: the path
     * from our leaf up to, not including, x. */
    uint32_t path[MAXDEPTH];
    unsigned won = 0;
    for (uint32_t y = leaf_of(t)[tid]; y != x; y = t->node[y].parent)
        path[won++] = y;
    release_path(r, t, path, won, e);
    return 0;
}

AG_WAIT_FROM_SPLIT(ag_ctree_wait, ag_ctree_arrive, ag_ctree_depart)
