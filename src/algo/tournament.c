/* tournament — static tournament barrier (Hensgen, Finkel and Manber), global or tree wake-up.
 * Idea: pairs play ceil(log2 n) rounds over positions; in round r, q with q mod 2^(r+1) == 0 beats
 * q + 2^r, fixed in advance (no atomics); position 0 is the champion and wakes everybody: one global
 * flag, or the tournament run backwards (each winner wakes the losers it beat, latest round first).
 * Invariant: flags carry episode values (AG_GE): nothing is reset, every awaited change moves the
 * low 32 bits.
 * Source: 002 §II-B (TOUR); 003 §3 (stn), §5.2-5.3 (gs/ls). Details: docs/algorithms/tournament.md.
 */
#include <errno.h>

#include "../algo.h"
#include "lib/wake.h"

static const struct ag_key keys[] = {
    AG_KEY_WORD("wake", ag_wake_words_tree, "tree",
                "notification: global (one flag polled by all, 003 gs) or tree (winners wake the losers they beat, 003 ls)"),
    { NULL, 0, 0, NULL, NULL, NULL },
};

/* Every position q != 0 loses exactly once, in round ctz(q), to q - 2^ctz(q); so "the winner's round-r
 * arrival flag" is indexed by its round-r loser, and likewise the tree wake flags: element q - 1 of
 * each range belongs to position q. */
struct tour {
    uint32_t tree;          /* 1: wake=tree, 0: wake=global */
    ag_frange_t arrive;     /* by loser position, q - 1 */
    ag_frange_t wake;       /* wake=tree: by position, q - 1 */
    struct ag_wake w;       /* wake=global */
    uint32_t pos[];         /* pos[tid] = topology position */
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    unsigned n = s->n;
    unsigned wake = ag_is_word(s->p[0]) ? ag_word(s->p[0]) : ~0u;
    if (wake != AG_WAKE_GLOBAL && wake != AG_WAKE_TREE)
        return EINVAL;
    struct tour *st = ag_layout_state(L, sizeof *st + (size_t)n * sizeof st->pos[0]);
    if (!st)
        return 0; /* the framework reports ENOMEM */
    st->tree = wake == AG_WAKE_TREE;
    st->arrive = ag_flags_alloc(L, n - 1, 1, AG_PAD);
    if (st->tree)
        st->wake = ag_flags_alloc(L, n - 1, 1, AG_PAD);
    else
        ag_wake_setup(&st->w, AG_WAKE_GLOBAL, s, L, st, 0);
    for (unsigned t = 0; t < n; t++)
        st->pos[t] = s->rank[t];
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct tour *st = r->st;
    /* a participant in episode e waits for e + 1: epoch0 means "not yet, for episode epoch0" */
    for (unsigned q = 1; q < r->n; q++) {
        flag_store(&r->fl, ag_at(st->arrive, q - 1), r->epoch0);
        if (st->tree)
            flag_store(&r->fl, ag_at(st->wake, q - 1), r->epoch0);
    }
    if (!st->tree)
        ag_wake_reset(r, &st->w);
}

/* wake=tree: wake the losers position q beat in rounds < nwon (those that exist), latest round first.
 * Each store is a release that follows q's own acquire of its wake-up (or, for the champion, of every
 * arrival), so the chain champion -> ... -> loser carries every participant's writes. */
static void wake_beaten(const struct ag_run *r, const struct tour *st, uint64_t q, unsigned nwon, uint64_t e)
{
    for (unsigned k = nwon; k-- > 0;) {
        uint64_t l = q + ((uint64_t)1 << k);
        if (l < r->n)
            flag_store(&r->fl, ag_at(st->wake, (uint32_t)(l - 1)), e + 1);
    }
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct tour *st = r->st;
    uint64_t q = st->pos[tid], n = r->n;

    /* Arrival: win rounds 0, 1, ... while bit r of q is clear. In round r the loser is q + 2^r; if it
     * does not exist, neither does any later one (they are larger), but q still plays its losing round
     * if it has one. A loser cannot store e + 2 before it is released from episode e, so the flag read
     * here is e (not yet) or e + 1 (the loser's whole subtree has arrived); the acquire pairs with its
     * release store, so the subtree's writes happen-before everything q does next. */
    unsigned k = 0;
    for (; k < 64 && !((q >> k) & 1) && ((uint64_t)1 << k) < n; k++) {
        uint64_t l = q + ((uint64_t)1 << k);
        if (l >= n)
            continue;
        int rc = flag_wait(&r->fl, ag_at(st->arrive, (uint32_t)(l - 1)), AG_GE, e + 1, deadline);
        if (rc)
            return rc;
    }
    /* k: rounds played as a winner (for q == 0 all ceil(log2 n) of them, whose losers all exist up to
     * the last, for q != 0 exactly ctz(q)). */

    if (q == 0) {
        /* The champion has won every round: every position has arrived for episode e, and all their
         * writes are visible here. Only position 0 gets here, hence exactly one AG_SERIAL. */
        if (st->tree)
            wake_beaten(r, st, q, k, e);
        else
            ag_wake_release(r, &st->w, tid, e);
        return AG_SERIAL;
    }

    /* Round k: q loses to q - 2^k. Report this subtree's arrival (release), then wait to be released. */
    flag_store(&r->fl, ag_at(st->arrive, (uint32_t)(q - 1)), e + 1);
    if (!st->tree)
        return ag_wake_wait(r, &st->w, tid, e, deadline);
    int rc = flag_wait(&r->fl, ag_at(st->wake, (uint32_t)(q - 1)), AG_GE, e + 1, deadline);
    if (rc)
        return rc;
    /* Released by the winner that beat q: episode e is complete. Pass it down q's own subtree. */
    wake_beaten(r, st, q, k, e);
    return 0;
}

const struct ag_algo ag_algo_tournament = {
    { "tournament", "static tournament", "002 §II-B TOUR; 003 §3 stn", keys },
    setup, reset, wait, NULL, NULL, /* split phase: depart runs wait */
};
