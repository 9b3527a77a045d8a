/* stour — static f-way tournament barrier; fanin=4,pad=line,wake=numa is 002's optimized barrier.
 * Idea: over positions q = rank[tid], round r's blocks of F^(r+1) have a static winner (the first) and
 * up to F-1 losers that store e + 1 into their arrival flags; position 0 is the champion and starts
 * the wake-up (lib/wake.c: global, tree or numa). No read-modify-write anywhere.
 * Invariant: a winner plays round r + 1 only after all its round-r losers stored e + 1.
 * Source: 002 §II-B (STOUR), §V-A..§V-C, Fig. 8, formulas (1)-(5). Details: docs/algorithms/stour.md.
 */
#include "../algo.h"
#include "lib/wake.h"

/* One round a participant wins with at least one loser: the flags to poll are first, first + stride,
 * ..., count of them (stride is per barrier: 1 packed, one line padded). */
struct stour_game {
    uint32_t first, count;
};

/* Per tid: its own arrival flag (unused by the champion) and its games, in round order. */
struct stour_rec {
    uint32_t arrive, game0, ngames;
};

struct stour {
    uint32_t champion;   /* order[0] */
    uint32_t stride;     /* slots between consecutive arrival flags */
    uint32_t recs;       /* byte offset of struct stour_rec[n], indexed by tid */
    uint32_t games;      /* byte offset of struct stour_game[], indexed by rec.game0 + round */
    struct ag_wake wake; /* the notification phase; its child table follows the games */
};

static const char *const pad_words[] = { "line", "packed", NULL }; /* in AG_PAD, AG_PACK order */
static const struct ag_key keys[] = {
    AG_KEY_INT("fanin", 2, 64, "4", "players per tournament round, winner included (002 §V-B picks 4)"),
    AG_KEY_WORD("pad", pad_words, "line",
                "arrival flags: one cache line each (002 Fig. 8(b)) or packed per winner (Fig. 8(a), original STOUR)"),
    AG_KEY_WORD("wake", ag_wake_words, "numa",
                "notification phase: one global flag (3), binary tree (4) or NUMA-aware tree (5) of 002 §V-C"),
    { 0 },
};

/* Rounds position q wins with at least one loser: round r needs q at the head of its block of F^(r+1)
 * and a loser at q + F^r. Once q + F^r >= n no later round has losers for q either. */
static unsigned games_of(uint64_t q, uint64_t n, uint64_t f)
{
    unsigned g = 0;
    for (uint64_t s = 1; s < n; s *= f, g++)
        if (q % (s * f) != 0 || q + s >= n)
            break;
    return g;
}

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    const uint64_t n = s->n, f = (uint64_t)ag_int(s->p[0]);
    const int pack = ag_word(s->p[1]) == AG_PACK ? AG_PACK : AG_PAD;
    const uint32_t wkind = ag_word(s->p[2]); /* the words are in AG_WAKE_* order */

    size_t ngames = 0;
    for (uint64_t q = 0; q < n; q++)
        ngames += games_of(q, n, f);
    size_t recs = sizeof(struct stour), games = recs + n * sizeof(struct stour_rec);
    size_t table = games + ngames * sizeof(struct stour_game);
    struct stour *st = ag_layout_state(L, table + ag_wake_table_bytes(s->n, wkind));
    if (!st)
        return 0; /* the framework reports ENOMEM */
    st->champion = s->order[0];
    st->recs = (uint32_t)recs;
    st->games = (uint32_t)games;
    struct stour_rec *rec = (struct stour_rec *)((char *)st + recs);
    struct stour_game *game = (struct stour_game *)((char *)st + games);

    /* games of each position, laid out in position order */
    uint32_t next = 0;
    for (uint64_t q = 0; q < n; q++) {
        struct stour_rec *rq = &rec[s->order[q]];
        rq->game0 = next;
        rq->ngames = games_of(q, n, f);
        next += rq->ngames;
    }

    /* n - 1 arrival flags (every position but the champion loses exactly once), numbered round by round
     * and, inside a round, winner by winner: the flags one winner polls in one round are consecutive. */
    ag_frange_t arr = ag_flags_alloc(L, n > 1 ? (uint32_t)(n - 1) : 1, 1, pack);
    st->stride = arr.stride;
    uint32_t slot = 0;
    rec[st->champion].arrive = ag_at(arr, 0); /* never used */
    for (uint64_t sr = 1, r = 0; sr < n; sr *= f, r++) {
        for (uint64_t w = 0; w < n; w += sr * f) {
            uint64_t count = (n - 1 - w) / sr; /* losers of w in round r: w + k*sr < n, 1 <= k < f */
            if (count > f - 1)
                count = f - 1;
            if (count == 0)
                continue;
            struct stour_game *g = &game[rec[s->order[w]].game0 + r];
            g->first = ag_at(arr, slot);
            g->count = (uint32_t)count;
            for (uint64_t k = 1; k <= count; k++)
                rec[s->order[w + k * sr]].arrive = ag_at(arr, slot + (uint32_t)(k - 1));
            slot += (uint32_t)count;
        }
    }
    ag_wake_setup(&st->wake, wkind, s, L, st, (uint32_t)table);
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct stour *st = r->st;
    const struct stour_rec *rec = (const struct stour_rec *)((const char *)st + st->recs);
    /* episode e waits for e + 1: every arrival flag starts one behind the first episode */
    for (unsigned t = 0; t < r->n; t++)
        if (t != st->champion)
            flag_store(&r->fl, rec[t].arrive, r->epoch0);
    ag_wake_reset(r, &st->wake);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct stour *st = r->st;
    const struct stour_rec *me = (const struct stour_rec *)((const char *)st + st->recs) + tid;
    const struct stour_game *game = (const struct stour_game *)((const char *)st + st->games) + me->game0;

    /* Arrival: win rounds 0 .. ngames-1. Invariant after round r: every position of my block of
     * F^(r+1) positions has arrived at episode e, and their writes are visible to me (each loser
     * stored e + 1 with release after its own games; I read it with acquire). A flag can only be
     * ahead of e + 1 once I have been released from e, so AG_GE never sees a stale episode. */
    for (uint32_t g = 0; g < me->ngames; g++)
        for (uint32_t k = 0; k < game[g].count; k++) {
            int rc = flag_wait(&r->fl, game[g].first + k * st->stride, AG_GE, e + 1, deadline);
            if (rc)
                return rc;
        }

    if (tid == st->champion) {
        /* the champion's block is every position: all n have arrived; release episode e */
        ag_wake_release(r, &st->wake, tid, e);
        return AG_SERIAL;
    }
    /* lose: my whole block has arrived; tell my winner, then wait for (and pass on) the wake-up */
    flag_store(&r->fl, me->arrive, e + 1);
    return ag_wake_wait(r, &st->wake, tid, e, deadline);
}

const struct ag_algo ag_algo_stour = {
    { "stour", "static f-way tournament; fanin=4,pad=line,wake=numa is 002's optimized barrier",
      "002 §II-B STOUR, §V-B (Fig. 8, (1)), §V-C ((3)-(5))", keys },
    setup, reset, wait, NULL, NULL, NULL, NULL, /* split phase: depart runs wait */
};
