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
    AG_KEY_WORD("pad", ag_pad_record_words, "line",
                "flag layout: line (every flag its own cache line, 002 §V-B1) or record (a participant's flags of "
                "all rounds share one line, the published per-processor record)"),
    { NULL, 0, 0, NULL, NULL, NULL },
};

/* Every position q != 0 loses exactly once, in round k = ctz(q), to w = q - 2^k; so "the winner's
 * round-k arrival flag" is named by its round-k loser, and likewise the tree wake flags.
 * pad=line: element q - 1 of `arrive` (and of `wake`) belongs to position q, each on its own line.
 * pad=record: one line-aligned record per position of ceil(log2 n) + 1 slots, as Mellor-Crummey and
 * Scott lay out the published barrier (TOCS 1991 `rounds[vpid][round]`, 002's ref. [13]): the arrival
 * flag is slot k of the winner's record, the wake flag slot k of the loser's own (a loser wins only
 * rounds below k, so slot k of its record is otherwise unused). */
struct tour {
    uint32_t tree;          /* 1: wake=tree, 0: wake=global */
    uint32_t record;        /* 1: pad=record */
    ag_frange_t arrive;     /* pad=line: by loser position, q - 1; pad=record: the records */
    ag_frange_t wake;       /* pad=line, wake=tree: by position, q - 1 */
    struct ag_wake w;       /* wake=global */
    uint32_t pos[];         /* pos[tid] = topology position */
};

static unsigned lost_round(uint64_t q) { return (unsigned)__builtin_ctzll(q); }

/* the flag loser q (> 0) stores its subtree's arrival in, read by its winner */
static uint32_t arrive_of(const struct tour *st, uint64_t q)
{
    unsigned k = lost_round(q);
    return st->record ? ag_at(st->arrive, (uint32_t)(q - ((uint64_t)1 << k))) + k : ag_at(st->arrive, (uint32_t)(q - 1));
}

/* wake=tree: the flag loser q (> 0) waits on for its release */
static uint32_t wake_of(const struct tour *st, uint64_t q)
{
    return st->record ? ag_at(st->arrive, (uint32_t)q) + lost_round(q) : ag_at(st->wake, (uint32_t)(q - 1));
}

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
    st->record = ag_word(s->p[1]) == AG_PAD_RECORD;
    if (st->record)
        st->arrive = ag_flags_alloc(L, n, ag_ceil_log(n, 2) + 1, AG_PAD);
    else
        st->arrive = ag_flags_alloc(L, n - 1, 1, AG_PAD);
    if (st->tree && !st->record)
        st->wake = ag_flags_alloc(L, n - 1, 1, AG_PAD);
    if (!st->tree)
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
        flag_store(&r->fl, arrive_of(st, q), r->epoch0);
        if (st->tree)
            flag_store(&r->fl, wake_of(st, q), r->epoch0);
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
            flag_store(&r->fl, wake_of(st, l), e + 1);
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
        int rc = flag_wait(&r->fl, arrive_of(st, l), AG_GE, e + 1, deadline);
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
    flag_store(&r->fl, arrive_of(st, q), e + 1);
    if (!st->tree)
        return ag_wake_wait(r, &st->w, tid, e, deadline);
    int rc = flag_wait(&r->fl, wake_of(st, q), AG_GE, e + 1, deadline);
    if (rc)
        return rc;
    /* Released by the winner that beat q: episode e is complete. Pass it down q's own subtree. */
    wake_beaten(r, st, q, k, e);
    return 0;
}

const struct ag_algo ag_algo_tournament = {
    { "tournament", "static tournament", "002 §II-B TOUR; 003 §3 stn", keys },
    setup, reset, wait, NULL, NULL, NULL, NULL, /* split phase: depart runs wait */
};
