/* hybrid — centralized inside a group of CPUs, dissemination across the groups' leaders.
 * Idea: group by core/cache/NUMA or blocks of N; the last arriver of a group leads it for the episode,
 * runs dissemination among leaders, then resets the counter and releases its group.
 * Invariant: one leader per group per episode; AG_SERIAL goes to the leader of group 0.
 * Source: 003 §4 (dsmnH), Listing 1.1. Details: docs/algorithms/hybrid.md.
 */
#include "../algo.h"
#include "lib/dissem.h"

static const char *const group_words[] = { "core", "cache", "numa", NULL }; /* in AG_LVL_* order */
static const struct ag_key keys[] = {
    AG_KEY_WORD_OR_INT("group", group_words, 1, 1 << 20, "core",
                       "centralized inside each core | cache group | NUMA node, or blocks of N topology positions"),
    { 0 } };

struct hybrid {
    struct ag_dissem d;
    ag_frange_t count, release; /* by group */
    uint32_t ngroups;
    uint32_t tab[];             /* [0, n): group of each tid; [n, n + ngroups): size of each group */
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    /* a word is a topology level (core, cache, numa: AG_LVL_*), an integer a block size */
    const int by_level = ag_is_word(s->p[0]);
    const unsigned lvl = by_level ? ag_word(s->p[0]) : 0, g = by_level ? 0 : (unsigned)ag_int(s->p[0]);
    unsigned ng = by_level ? s->ngroups[lvl] : (s->n + g - 1) / g;
    struct hybrid *st = ag_layout_state(L, sizeof *st + (s->n + ng) * sizeof st->tab[0]);
    if (!st)
        return 0;
    st->ngroups = ng;
    for (unsigned t = 0; t < s->n; t++) {
        unsigned grp = by_level ? s->group[lvl][t] : s->rank[t] / g;
        st->tab[t] = grp;
        st->tab[s->n + grp]++;
    }
    st->count = ag_flags_alloc(L, ng, 1, AG_PAD);
    st->release = ag_flags_alloc(L, ng, 1, AG_PAD);
    ag_dissem_setup(&st->d, ng, 1, AG_PAD_LINE, L);
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct hybrid *st = r->st;
    for (uint32_t g = 0; g < st->ngroups; g++) {
        flag_store(&r->fl, ag_at(st->count, g), 0);
        flag_store(&r->fl, ag_at(st->release, g), r->epoch0);
    }
    ag_dissem_reset(r, &st->d);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct hybrid *st = r->st;
    uint32_t g = st->tab[tid], size = st->tab[r->n + g];
    if (flag_fetch_add(&r->fl, ag_at(st->count, g), 1) != size - 1)
        return flag_wait(&r->fl, ag_at(st->release, g), AG_GE, e + 1, deadline);
    /* last in the group: the whole group has arrived; synchronize with the other groups' leaders. The
     * mates all wait for our release, so when they share our CPU a yield would only hand it to one that
     * checks its flag and yields back: a leader of a group of several waits with flag_wait_lead. */
    int rc = ag_dissem_run(r, &st->d, g, e, deadline, size > 1);
    if (rc)
        return rc;
    /* nobody of this group can arrive again before the release below: the reset is race-free */
    flag_store(&r->fl, ag_at(st->count, g), 0);
    flag_store(&r->fl, ag_at(st->release, g), e + 1);
    return g == 0 ? AG_SERIAL : 0;
}

const struct ag_algo ag_algo_hybrid = {
    { "hybrid", "centralized inside a group, dissemination across group leaders", "003 §4 dsmnH, Listing 1.1",
      keys },
    setup, reset, wait, NULL, NULL, NULL, NULL, /* split phase: depart runs wait */
};
