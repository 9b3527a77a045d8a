/* counting — two-generation counting barrier (the HARP design, in software).
 * Idea: two arrival counters used by alternate episodes (g = e & 1) and one release flag; the last
 * arrival releases everyone, then clears counter g, off the critical path.
 * Invariant: counter g is zero again before episode e + 2 counts on it (nobody arrives there first).
 * Source: 000 §2 (Counting), §3 / Fig. 5 (HARP). Details: docs/algorithms/counting.md.
 */
#include "../algo.h"

struct counting {
    uint32_t count[2], release;
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    (void)s;
    struct counting *st = ag_layout_state(L, sizeof *st);
    if (!st)
        return 0;
    st->count[0] = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->count[1] = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->release = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct counting *st = r->st;
    flag_store(&r->fl, st->count[0], 0);
    flag_store(&r->fl, st->count[1], 0);
    flag_store(&r->fl, st->release, r->epoch0); /* participants of episode e wait for e + 1 */
}

/* Split phase: the last arrival releases everybody inside arrive; tok = 1 marks it. */
static void arrive(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok)
{
    (void)tid;
    const struct counting *st = r->st;
    uint32_t c = st->count[e & 1];
    *tok = 0;
    if (flag_fetch_add(&r->fl, c, 1) != r->n - 1)
        return;
    /* All n arrived (the acq_rel increments chain every arrival's writes to us). Release first ... */
    flag_store(&r->fl, st->release, e + 1);
    /* ... then clear this generation's counter: it is next used in episode e + 2, which nobody can
     * enter before we (a participant of e + 1) arrive there, after this store. */
    flag_store(&r->fl, c, 0);
    *tok = 1;
}

static int depart(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline)
{
    (void)tid;
    const struct counting *st = r->st;
    return tok ? AG_SERIAL : flag_wait(&r->fl, st->release, AG_GE, e + 1, deadline);
}

static AG_WAIT_FROM_SPLIT(wait, arrive, depart)

const struct ag_algo ag_algo_counting = {
    { "counting", "two-generation counting barrier (the HARP design in software)", "000 §2, §3 Fig. 5",
      NULL },
    setup, reset, wait, arrive, depart, NULL, NULL,
};
