/* central — sense-reversing centralized barrier.
 * Idea: one arrival counter and one global sense flag, each on its own line; the last of n arrivals
 * resets the counter and flips the sense (e & 1), which releases everybody polling it.
 * Invariant: the counter holds this episode's arrivals; the sense changes only once all n are in.
 * Source: 002 §II-B (SENSE); 003 §3 (sr). Cost, notes: docs/algorithms/central.md.
 */
#include "../algo.h"
#include "lib/sense.h"

struct central {
    uint32_t count, sense;
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    (void)s;
    struct central *st = ag_layout_state(L, sizeof *st);
    if (!st)
        return 0; /* the framework reports ENOMEM */
    st->count = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->sense = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct central *st = r->st;
    flag_store(&r->fl, st->count, 0);
    /* the sense of episode e is e & 1; it flips to (e + 1) & 1 when episode e completes */
    flag_store(&r->fl, st->sense, r->epoch0 & 1);
}

/* Split phase: arrival is one increment, and the last arrival completes the episode by itself, so
 * arrive never waits; tok = 1 marks the arrival that released everybody. */
static void arrive(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok)
{
    (void)tid;
    const struct central *st = r->st;
    *tok = (uint64_t)ag_sense_arrive(r, st->count, st->sense, e);
}

static int depart(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline)
{
    (void)tid;
    const struct central *st = r->st;
    return tok ? AG_SERIAL : flag_wait(&r->fl, st->sense, AG_EQ, (e + 1) & 1, deadline);
}

static AG_WAIT_FROM_SPLIT(wait, arrive, depart)

const struct ag_algo ag_algo_central = {
    { "central", "sense-reversing centralized counter", "002 §II-B SENSE; 003 §3 sr", NULL },
    setup, reset, wait, arrive, depart, NULL, NULL,
};
