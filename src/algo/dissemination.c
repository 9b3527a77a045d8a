/* dissemination — n-way dissemination barrier.
 * Idea: no tree, no champion: ceil(log_{W+1} n) rounds, each participant signals W partners and waits
 * for W signals (lib/dissem.c); topology numbering pairs cache neighbours first.
 * Invariant: after round r a participant has heard, directly or not, from (W+1)^(r+1) participants.
 * Source: 003 §3 (dsmn); 002 §II-B (DIS). Details: docs/algorithms/dissemination.md.
 */
#include "../algo.h"
#include "lib/dissem.h"

static const struct ag_key keys[] = {
    AG_KEY_INT("ways", 1, 64, "1", "partners signalled per round (003's n-way: n = ways + 1)"),
    AG_KEY_WORD("pad", ag_pad_record_words, "line",
                "flag layout: line (every flag its own cache line, 002 §V-B1) or record (a participant's flags of "
                "all rounds share one line, the published per-processor record)"),
    { 0 } };

struct dissemination {
    struct ag_dissem d;
    uint32_t serial;
    uint32_t pos[]; /* topology position of each tid */
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    struct dissemination *st = ag_layout_state(L, sizeof *st + s->n * sizeof st->pos[0]);
    if (!st)
        return 0;
    ag_dissem_setup(&st->d, s->n, (unsigned)ag_int(s->p[0]), (int)ag_word(s->p[1]), L);
    st->serial = s->order[0];
    for (unsigned t = 0; t < s->n; t++)
        st->pos[t] = s->rank[t];
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct dissemination *st = r->st;
    ag_dissem_reset(r, &st->d);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct dissemination *st = r->st;
    int rc = ag_dissem_run(r, &st->d, st->pos[tid], e, deadline, 0);
    return rc ? rc : tid == st->serial ? AG_SERIAL : 0;
}

const struct ag_algo ag_algo_dissemination = {
    { "dissemination", "n-way dissemination: ceil(log_{ways+1} n) rounds of parallel signals",
      "003 §3 dsmn; 002 §II-B DIS", keys },
    setup, reset, wait, NULL, NULL, NULL, NULL, /* split phase: depart runs wait */
};
