/* mcs — MCS tree barrier: 4-ary arrival tree, binary wake-up tree.
 * Idea: every participant is the node of its position q; children 4q+1..4q+4 store e + 1 into their
 * own flags once their subtree has arrived; the root (position 0) is the champion and wakes through
 * wake.c's binary tree.
 * Invariant: a node signals its parent only after all its children signalled; flags carry episode
 * values (AG_GE), so nothing is reset and every awaited change moves the low 32 bits.
 * Source: 002 §II-B (MCS, Fig. 4(b)); 002 §V-B (a line per flag). Details: docs/algorithms/mcs.md.
 */
#include "../algo.h"
#include "lib/wake.h"

#define MCS_ARITY 4
#define MCS_NONE UINT32_MAX

/* Per participant (by tid), precomputed: the flag it stores on arrival and the flags it polls. */
struct mcs_node {
    uint32_t up;                 /* own arrival flag (parent's child slot), MCS_NONE for the root */
    uint32_t nkids;
    uint32_t kid[MCS_ARITY];     /* the children's arrival flags */
};

struct mcs {
    struct ag_wake w;            /* binary-tree notification; its table follows node[] */
    ag_frange_t arrive;          /* one arrival flag per non-root position q, at element q - 1 */
    struct mcs_node node[];      /* by tid */
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    unsigned n = s->n;
    size_t table_off = sizeof(struct mcs) + (size_t)n * sizeof(struct mcs_node);
    struct mcs *st = ag_layout_state(L, table_off + ag_wake_table_bytes(n, AG_WAKE_TREE));
    if (!st)
        return 0; /* the framework reports ENOMEM */
    if (table_off > UINT32_MAX) {
        L->oom = 1;
        return 0;
    }
    st->arrive = ag_flags_alloc(L, n - 1, 1, AG_PAD);
    for (unsigned q = 0; q < n; q++) {
        struct mcs_node *nd = &st->node[s->order[q]];
        nd->up = q ? ag_at(st->arrive, q - 1) : MCS_NONE;
        /* children 4q+1 .. 4q+4, computed in 64 bits so that large n cannot wrap */
        for (uint64_t c = (uint64_t)MCS_ARITY * q + 1; c <= (uint64_t)MCS_ARITY * q + MCS_ARITY && c < n; c++)
            nd->kid[nd->nkids++] = ag_at(st->arrive, (uint32_t)(c - 1));
    }
    ag_wake_setup(&st->w, AG_WAKE_TREE, s, L, st, (uint32_t)table_off);
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct mcs *st = r->st;
    /* a parent in episode e waits for e + 1: epoch0 means "nobody has arrived for episode epoch0" */
    for (unsigned q = 1; q < r->n; q++)
        flag_store(&r->fl, ag_at(st->arrive, q - 1), r->epoch0);
    ag_wake_reset(r, &st->w);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct mcs *st = r->st;
    const struct mcs_node *nd = &st->node[tid];

    /* Arrival, bottom-up. A child cannot store e + 2 before this node has woken it from episode e, so
     * a child flag read here is e (not yet arrived) or e + 1 (its whole subtree has arrived). Each
     * acquire pairs with the child's release store, so the subtree's writes happen-before what this
     * node does next, and by induction before its own store to its parent. */
    for (uint32_t k = 0; k < nd->nkids; k++) {
        int rc = flag_wait(&r->fl, nd->kid[k], AG_GE, e + 1, deadline);
        if (rc)
            return rc;
    }

    if (nd->up == MCS_NONE) {
        /* The root has seen every subtree arrive: all n participants are in episode e and all their
         * writes are visible here. Exactly one root, hence exactly one AG_SERIAL. */
        ag_wake_release(r, &st->w, tid, e);
        return AG_SERIAL;
    }

    /* This subtree has arrived: tell the parent (release), then wait to be woken through the binary
     * tree, which releases this node's wake-up children in turn. The wake-up chain from the root is a
     * release/acquire chain, so every participant's writes are visible on return. */
    flag_store(&r->fl, nd->up, e + 1);
    return ag_wake_wait(r, &st->w, tid, e, deadline);
}

const struct ag_algo ag_algo_mcs = {
    { "mcs", "MCS tree: 4-ary arrival, binary wake-up", "002 §II-B MCS", NULL },
    setup, reset, wait, NULL, NULL, NULL, NULL, /* split phase: depart runs wait */
};
