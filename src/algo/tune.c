/* tune — measures its candidate algorithms on the machine it runs on, then keeps the fastest.
 * Idea: 003 §5.2's ideal meta-algorithm selects, at every configuration, the algorithm an oracle says is
 * best; tune asks the machine instead of an oracle. Its first C x block x rounds episodes run the C
 * candidates in turn, block episodes at a time, round after round; participant 0 times every turn
 * (its departures from the turn's first and last episodes: block - 1 whole episodes, the program's
 * work between them included) and, after the last tuning episode, publishes the candidate with the
 * shortest turn. One more episode runs candidate 0, so that the
 * decision is visible to everybody; from then on every episode is the chosen candidate's, and each
 * participant, once it has read the decision, is handed over to it (algo.h, ag_lane): the framework
 * calls the candidate itself, and tune costs nothing per episode any more.
 * Invariant: every participant maps episode k (counted from epoch0) to the same candidate and to the
 * same episode number of that candidate, so each candidate sees its own episodes numbered on from its
 * first with no gaps, whichever episodes the others ran in between. Candidate c's numbering starts at
 * epoch0 + shift(c), chosen so that after the tuning its episode number is tune's own: a handed-over
 * participant and one still in tune's wait run the same episode of it.
 * Source: 003 §5.2 ("ideal meta-algorithm", "selecting algorithms dynamically"), §5.3 (the best delay
 * and even the address of the synchronization line depend on runtime conditions). Details:
 * docs/algorithms/tune.md.
 */
#include <stdlib.h>
#include <string.h>

#include "../algo.h"
#include "../spec.h"

/* The candidates, each with its defaults: the logarithmic algorithms that were the best fixed one at
 * some count on some machine in docs/results.md ("auto against the best fixed algorithm"), and a
 * counter barrier for a handful of participants. `ticket` won at 6 (Kunpeng 920; scattered threads on
 * the ThunderX2 and the Opteron), where its n serialized hand-offs are no more than a tree's rounds; its
 * cost grows with n, and from 12 participants on no machine there had a counter ahead, so above its
 * max_n it is neither measured nor paid for while tuning. Candidate 0 runs the episode after the last
 * tuning one: it is there at every count. */
static const struct { const char *spec; unsigned max_n; } candidates[] = {
    { "dissemination", 0 }, { "hybrid:group=core", 0 }, { "tournament", 0 }, { "dtour", 0 }, { "stour", 0 },
    { "combining", 0 }, { "ticket", 8 } };
#define NCAND_MAX (sizeof candidates / sizeof candidates[0])

/* whether candidates[i] is measured with n participants */
static int measured(unsigned i, unsigned n) { return !candidates[i].max_n || n <= candidates[i].max_n; }
#define MAX_ROUNDS 9

static const struct ag_key keys[] = {
    AG_KEY_INT("block", 1, 4096, "8", "episodes a candidate runs before the next one takes over"),
    AG_KEY_INT("rounds", 1, MAX_ROUNDS, "3", "turns every candidate gets; its score is its best turn"),
    { 0 } };

struct tune_cand {
    uint32_t algo;           /* index into ag_algos */
    uint32_t off;            /* its state block, at this byte offset from struct tune */
    long p[AG_MAXKEYS];      /* its parameters: defaults, with tune's line */
};

struct tune {
    uint32_t block, rounds;
    uint32_t ncand;          /* the candidates measured at this count, c[0 .. ncand - 1] */
    uint32_t clock;          /* participant 0's line: [0] the turn's start, [1 + c * rounds + round] turn times */
    uint32_t decision;       /* 1 + the chosen candidate, 0 until published */
    struct tune_cand c[NCAND_MAX];
};

/* The setup of candidates[i] as tune's candidate tc, on a layout of its own that continues the arena; its
 * state block is returned (malloc'd, *size bytes) for setup() to copy behind struct tune. */
static int cand_setup(const struct ag_setup *s, struct ag_layout *L, struct tune_cand *tc, unsigned i,
                      void **state, size_t *size)
{
    struct ag_spec sp;
    char msg[160];
    if (ag_spec_parse(&ag_algo_table, candidates[i].spec, &sp, msg, sizeof msg))
        return EINVAL;
    tc->algo = sp.index;
    memcpy(tc->p, sp.val, sizeof tc->p);
    tc->p[sp.nkeys] = s->p[2]; /* the common key line follows the keys (block, rounds; the candidate's) */
    struct ag_setup cs = *s;
    cs.p = tc->p;
    struct ag_layout sub = { .line_slots = L->line_slots, .nslots = L->nslots };
    int rc = ag_algos[tc->algo]->setup(&cs, &sub);
    L->nslots = sub.nslots;
    L->oom |= sub.oom;
    *state = sub.state;
    *size = sub.state_size;
    return rc;
}

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    struct tune t = { .block = (uint32_t)ag_int(s->p[0]), .rounds = (uint32_t)ag_int(s->p[1]) };
    void *blk[NCAND_MAX] = { 0 };
    size_t sz[NCAND_MAX] = { 0 }, total = (sizeof t + 15) & ~(size_t)15;
    int rc = 0;
    for (unsigned i = 0; i < NCAND_MAX; i++)
        t.ncand += (uint32_t)measured(i, s->n);
    t.clock = ag_flags_alloc(L, 1, 1 + t.ncand * t.rounds, AG_PAD).first;
    t.decision = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    for (unsigned i = 0, c = 0; i < NCAND_MAX && !rc; i++) {
        if (!measured(i, s->n))
            continue;
        rc = cand_setup(s, L, &t.c[c], i, &blk[c], &sz[c]);
        t.c[c].off = (uint32_t)total;
        total += (sz[c] + 15) & ~(size_t)15; /* every block 16-byte aligned */
        c++;
    }
    char *st = rc ? NULL : ag_layout_state(L, total);
    if (st) {
        memcpy(st, &t, sizeof t);
        for (unsigned c = 0; c < t.ncand; c++)
            if (blk[c])
                memcpy(st + t.c[c].off, blk[c], sz[c]);
    }
    for (unsigned c = 0; c < NCAND_MAX; c++)
        free(blk[c]);
    return rc;
}

/* the flag holding candidate c's time in its turn of the given round (participant 0's line) */
static uint32_t turn_slot(const struct tune *t, unsigned c, uint64_t round)
{
    return t->clock + 1 + c * t->rounds + (uint32_t)round;
}

/* Episodes of tuning: C candidates, B at a time, `rounds` turns each. */
static uint64_t tuning_len(const struct tune *t) { return (uint64_t)t->ncand * t->block * t->rounds; }

/* Candidate c's first episode number, as an offset from epoch0. It runs B x rounds episodes while tuning
 * (candidate 0 one more, the episode after the tuning), so with this start its episode after those is
 * numbered like tune's: epoch0 + tuning + 1. */
static uint64_t shift(const struct tune *t, unsigned c)
{
    return tuning_len(t) + 1 - (uint64_t)t->block * t->rounds - (c == 0);
}

/* candidate c's run: the barrier's flags, c's state and parameters, c's numbering */
static struct ag_run cand_run(const struct ag_run *r, const struct tune *t, unsigned c)
{
    return (struct ag_run){ r->fl, r->n, (const char *)t + t->c[c].off, t->c[c].p, r->epoch0 + shift(t, c) };
}

static void reset(const struct ag_run *r)
{
    const struct tune *t = r->st;
    for (unsigned c = 0; c < t->ncand; c++) {
        struct ag_run cr = cand_run(r, t, c);
        ag_algos[t->c[c].algo]->reset(&cr);
    }
    for (uint32_t j = 0; j <= t->ncand * t->rounds; j++)
        flag_put(&r->fl, t->clock + j, 0);
    flag_put(&r->fl, t->decision, 0);
}

/* Participant 0, after the last tuning episode: the candidate with the smallest best turn (the first of
 * equals), published before it arrives at the next episode. The best of the turns, not their median:
 * what disturbs a turn (an interrupt, a preemption, lines still cold in a candidate's first turn)
 * only ever lengthens it. */
static void decide(const struct ag_run *r, const struct tune *t)
{
    unsigned best = 0;
    uint64_t best_t = UINT64_MAX;
    for (unsigned c = 0; c < t->ncand; c++)
        for (unsigned k = 0; k < t->rounds; k++) {
            uint64_t x = flag_load(&r->fl, turn_slot(t, c, k));
            if (x < best_t) {
                best_t = x;
                best = c;
            }
        }
    flag_put(&r->fl, t->decision, best + 1);
}

/* The chosen candidate, once published: participant 0 put the decision before it arrived at episode
 * `tuning`, so whoever has left that episode reads it (the episode's release ordered the put before
 * this load). -1 before. */
static int decided(const struct ag_run *r, const struct tune *t)
{
    uint64_t d = flag_load(&r->fl, t->decision);
    return d == 0 || d > t->ncand ? -1 : (int)d - 1;
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct tune *t = r->st;
    const uint64_t k = e - r->epoch0, B = t->block, C = t->ncand, tuning = tuning_len(t);
    unsigned c = 0; /* at k == tuning, while the decision is on its way: candidate 0 once more */
    uint64_t ce = e; /* candidate c's episode number: tune's own from the tuning's end on (shift) */
    if (k < tuning) {
        c = (unsigned)(k / B % C);
        ce = r->epoch0 + shift(t, c) + k / (B * C) * B + k % B;
    } else if (k > tuning) { /* a participant not handed over (ag_lane): it reads the decision itself */
        c = (unsigned)decided(r, t);
    }
    /* participant 0 times a turn from its departure from the turn's first episode (the first waits
     * for the stragglers of the previous candidate's wake-up) to its departure from the last: B - 1
     * whole episodes of this candidate; with block=1, from its arrival */
    const int timing = tid == 0 && k < tuning;
    if (timing && B == 1)
        flag_put(&r->fl, t->clock, flag_now(&r->fl));
    struct ag_run cr = cand_run(r, t, c);
    int rc = ag_algos[t->c[c].algo]->wait(&cr, tid, ce, deadline);
    if (!timing || (rc != 0 && rc != AG_SERIAL))
        return rc;
    if (k % B == 0 && B > 1) {
        flag_put(&r->fl, t->clock, flag_now(&r->fl));
        return rc;
    }
    if (k % B != B - 1)
        return rc;
    flag_put(&r->fl, turn_slot(t, c, k / (B * C)), flag_now(&r->fl) - flag_load(&r->fl, t->clock));
    if (k == tuning - 1)
        decide(r, t);
    return rc;
}

/* Participant tid has completed episode e: once that is episode `tuning` (candidate 0's extra one) or a
 * later one, it can read the decision (decided), and from the next episode on it runs the chosen
 * candidate without tune (its numbering is tune's: shift). One flag load per participant, once. */
static int handover(const struct ag_run *r, unsigned tid, uint64_t e, const struct ag_algo **to_algo,
                    struct ag_run *to_run)
{
    (void)tid;
    const struct tune *t = r->st;
    int c;
    if (e - r->epoch0 < tuning_len(t) || (c = decided(r, t)) < 0)
        return 0;
    *to_algo = ag_algos[t->c[c].algo];
    *to_run = cand_run(r, t, (unsigned)c);
    return 1;
}

/* The chosen candidate's spec, once participant 0 has published it (its candidate-local parameters:
 * tune's line included). */
static int chosen(const struct ag_run *r, char *buf, size_t len)
{
    const struct tune *t = r->st;
    int d = decided(r, t);
    if (d < 0)
        return 0;
    const struct tune_cand *c = &t->c[d];
    return ag_kind_format(&ag_algo_table, &ag_algos[c->algo]->k, c->p, buf, len);
}

const struct ag_algo ag_algo_tune = {
    { "tune",
      "runs its candidates in turn, times them, keeps the fastest (auto's choice from 3 spinning participants)",
      "003 §5.2 ideal meta-algorithm", keys },
    setup, reset, wait, NULL, NULL, chosen, handover, /* split phase: depart runs wait */
};
