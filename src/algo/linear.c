/* linear — the master gathers per-participant arrival flags, then releases everyone.
 * Idea: each non-master stores e + 1 into its own arrival line (no contended RMW); the master
 * (position 0) polls the n - 1 flags in turn, then stores the release flag.
 * Invariant: the release flag moves only after every arrival flag shows this episode.
 * Source: 000 §2 (Pool); libomp "linear". Details: docs/algorithms/linear.md.
 */
#include "../algo.h"

struct linear {
    uint32_t master, release;
    ag_frange_t arrive; /* by tid */
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    struct linear *st = ag_layout_state(L, sizeof *st);
    if (!st)
        return 0;
    st->master = s->order[0];
    st->release = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->arrive = ag_flags_alloc(L, s->n, 1, AG_PAD);
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct linear *st = r->st;
    flag_store(&r->fl, st->release, r->epoch0);
    for (unsigned t = 0; t < r->n; t++)
        flag_store(&r->fl, ag_at(st->arrive, t), r->epoch0);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct linear *st = r->st;
    if (tid != st->master) {
        flag_store(&r->fl, ag_at(st->arrive, tid), e + 1);
        return flag_wait(&r->fl, st->release, AG_GE, e + 1, deadline);
    }
    /* gather: after this loop every participant has arrived (acquire on each flag) */
    for (unsigned t = 0; t < r->n; t++) {
        if (t == tid)
            continue;
        int rc = flag_wait(&r->fl, ag_at(st->arrive, t), AG_GE, e + 1, deadline);
        if (rc)
            return rc;
    }
    flag_store(&r->fl, st->release, e + 1);
    return AG_SERIAL;
}

const struct ag_algo ag_algo_linear = {
    { "linear", "master gathers per-participant arrival flags, then releases", "000 §2 Pool; libomp linear",
      NULL },
    /* split phase in depart: the master's arrival is its gather, which waits for everybody */
    setup, reset, wait, NULL, NULL, NULL, NULL,
};
