/* tournament — static tournament barrier (Hensgen, Finkel and Manber), with a global or a tree wake-up.
 *
 * Source: 002_22d269b377cdac79.txt §II-B "Tournament barrier" (TOUR);
 *         003_614c4f6f0a5e5869.txt §3 (static tournament, "stn", with Mellor-Crummey and Scott's
 *         tree-based notification); notification variants "gs" (one global flag) and "ls" (tree of
 *         local flags) as named in 003 §5.2 and compared in 003 §5.3 ("Global Sense vs Local Sense").
 *
 * Pairs of participants play rounds r = 0 .. ceil(log2 n) - 1 over topology positions q = rank[tid]. In
 * round r the position q with q mod 2^(r+1) == 0 is the winner and q + 2^r (if < n) its loser, both
 * fixed in advance, so no atomic read-modify-write is needed: the loser stores the winner's round-r
 * arrival flag and then waits to be woken; the winner waits for that flag and plays the next round.
 * Position 0 wins every round: it is the champion (AG_SERIAL), and releases everybody:
 *   wake=global  one flag that every loser polls (wake.c, AG_WAKE_GLOBAL; 002 formula (3), 003 "gs");
 *   wake=tree    the tournament run backwards (003 "ls"): each winner, once released, wakes the losers
 *                it beat, latest round first. That is a binomial tree, not wake.c's binary tree, on
 *                purpose: a winner wakes exactly the participants it played, which are its neighbours
 *                in topology order (round r pairs stay inside aligned blocks of 2^(r+1) positions), and
 *                latest-round-first starts the largest subtree first, so everybody is woken after
 *                ceil(log2 n) steps, as many as the arrival took. wake.c's tree (q wakes 2q+1, 2q+2)
 *                would send position 1's wake-ups to positions 3 and 4, across the blocks the arrival
 *                kept apart.
 *
 * Cost (002 §III-B notation): arrival is ceil(log2 n) rounds, each one W_R by the loser and one R_R
 * by the winner on a line that only those two touch: ceil(log2 n)·(α+1)·L on the critical path, no
 * atomics. Wake-up: global is T_global = ((n-1)·α + 1)·L + c·(n-1) (one line read by everybody); tree
 * is ceil(log2 n) steps of one W_R each, one private line per participant; the champion issues
 * ceil(log2 n) stores in sequence. In all about 2·ceil(log2 n) transfers on the critical path (tree).
 *
 * Flags carry episode values: in episode e a loser stores e + 1 and its winner waits until its flag is
 * e + 1 or later (AG_GE); wake flags likewise. Nothing is reset between episodes, and every awaited
 * change moves the low 32 bits (e + 1 differs from e there), as flags.h's futex rule requires.
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
