/* dtour — dynamic f-way tournament barrier (Grunwald and Vajracharya).
 *
 * Source: 002_22d269b377cdac79.txt §II-B "Static and dynamic f-way tournament barriers" (DTOUR: "the
 *         winner is dynamically decided during runtime"; "the value of f varies across different
 *         levels to keep the synchronization tree as balanced as possible", again in §V-B-2);
 *         003_614c4f6f0a5e5869.txt §3 (dtn: the winner identifies itself from what the others marked
 *         on arrival, so no static winner busy-waits on a location its losers have yet to set).
 *
 * Idea: a tournament in rounds. In round r the m players still in the game (round 0: all n
 * participants in topology rank order) are split into g = ceil(m / F) groups of contiguous players,
 * as equal in size as possible (sizes floor(m/g) and ceil(m/g) <= F), so the fan-in varies per round
 * and the tree is balanced. Each group has one arrival word; a player arrives with a fetch_add and the
 * one whose fetch_add completes the group's count for this episode wins the group and plays group
 * index i in round r + 1. The winner of the last round is the champion (AG_SERIAL) and releases
 * everyone: one global flag (wake=global) or, top-down, the release flag of every group it won
 * (wake=tree); each loser waits on the release flag of the group where it lost and, once released,
 * releases the groups it had won, top-down, in turn.
 *
 * Unlike combining, the arrival word is never reset (no Re-initialization-Phase, 002 §II-B): it is a
 * monotonically increasing arrival count, and the winner is found from the episode number (see
 * "Invariant" in wait()).
 *
 * Cost (critical path, cache-line transfers; 002 §III-B notation): R = ceil(log_F n) rounds; round r
 * serializes at most ceil(m_r / g_r) <= F read-modify-writes on one line, and the balanced split keeps
 * that maximum as small as the round count allows (n = 5, F = 4: groups 3+2 then 2, where a fixed
 * fan-in gives 4+1 then 2). Arrival: R transfers when arrivals are staggered, sum_r ceil(m_r/g_r) <=
 * R·F when they collide. Release: global is 002 formula (3), ((n-1)·α + 1)·L + c·(n-1); tree is about
 * R + 1 store-then-read hops of ((F-1)·α + 1)·L each.
 */
#include <errno.h>

#include "../algo.h"

enum { WAKE_GLOBAL = -1, WAKE_TREE = -2 }; /* the words of key "wake", as spec.c stores them */
#define NONE UINT32_MAX
#define MAXROUNDS 64 /* F >= 2 and n < 2^32: at most 33 rounds */

struct dgroup {
    uint32_t parent; /* the group this group's winner plays in next round; NONE in the final */
    uint32_t size;   /* players per episode, 1..F */
};

struct dtour {
    long wake;
    uint32_t global;      /* wake=global: the release flag */
    ag_frange_t arr, rel; /* per group: arrival count; release flag (wake=tree) */
    uint32_t ngroups;
    uint32_t first_off;   /* byte offset of uint32_t first[n]: each tid's round-0 group */
    struct dgroup grp[];  /* round by round, round 0 first, the final last */
};

/* m players in g groups as equal as possible: the first m % g groups have one player more. */
static uint32_t group_of(uint32_t p, uint32_t m, uint32_t g)
{
    uint32_t q = m / g, rem = m % g, big = rem * (q + 1);
    return p < big ? p / (q + 1) : rem + (p - big) / q;
}

static uint32_t ngroups_for(uint32_t m, uint32_t f) { return (m + f - 1) / f; }

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    long f = s->p[0], wake = s->p[1];
    if (f < 2 || f > 64 || (wake != WAKE_GLOBAL && wake != WAKE_TREE) || s->n < 1)
        return EINVAL;
    uint32_t F = (uint32_t)f, n = s->n;

    uint32_t total = 0, m = n;
    do {
        m = ngroups_for(m, F);
        total += m;
    } while (m > 1);

    size_t first_off = sizeof(struct dtour) + (size_t)total * sizeof(struct dgroup);
    first_off = (first_off + 7) & ~(size_t)7;
    struct dtour *st = ag_layout_state(L, first_off + (size_t)n * sizeof(uint32_t));
    if (!st)
        return 0; /* the framework reports ENOMEM */
    st->wake = wake;
    st->ngroups = total;
    st->first_off = (uint32_t)first_off;

    /* Round r: m players in g groups starting at index base; group i is player i of round r + 1,
     * where it plays in group group_of(i, g, g') of that round. */
    uint32_t base = 0;
    m = n;
    do {
        uint32_t g = ngroups_for(m, F), q = m / g, rem = m % g;
        uint32_t gnext = g > 1 ? ngroups_for(g, F) : 0;
        for (uint32_t i = 0; i < g; i++) {
            struct dgroup *gp = &st->grp[base + i];
            gp->size = q + (i < rem);
            gp->parent = g > 1 ? base + g + group_of(i, g, gnext) : NONE;
        }
        base += g;
        m = g;
    } while (m > 1);

    uint32_t *first = (uint32_t *)((char *)st + first_off);
    uint32_t g0 = ngroups_for(n, F);
    for (uint32_t t = 0; t < n; t++)
        first[t] = group_of(s->rank[t], n, g0);

    st->arr = ag_flags_alloc(L, total, 1, AG_PAD);
    if (wake == WAKE_TREE)
        st->rel = ag_flags_alloc(L, total, 1, AG_PAD);
    else
        st->global = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct dtour *st = r->st;
    for (uint32_t g = 0; g < st->ngroups; g++) {
        /* the arrival count of a group of size s before episode e is e·s (mod 2^64); see wait() */
        flag_store(&r->fl, ag_at(st->arr, g), r->epoch0 * st->grp[g].size);
        if (st->wake == WAKE_TREE)
            flag_store(&r->fl, ag_at(st->rel, g), r->epoch0);
    }
    if (st->wake == WAKE_GLOBAL)
        flag_store(&r->fl, st->global, r->epoch0);
}

/* wake=tree: release the groups this participant won, path[won-1] (latest round) down to path[0].
 * A group of one player has no loser waiting on it. */
static void release_path(const struct ag_run *r, const struct dtour *st, const uint32_t *path, unsigned won,
                         uint64_t e)
{
    while (won--)
        if (st->grp[path[won]].size > 1)
            flag_store(&r->fl, ag_at(st->rel, path[won]), e + 1);
}

static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)
{
    const struct dtour *st = r->st;
    uint32_t path[MAXROUNDS];
    unsigned won = 0;
    uint32_t g = ((const uint32_t *)((const char *)st + st->first_off))[tid];

    /* One round per iteration: play in group g. */
    for (;;) {
        const struct dgroup *gp = &st->grp[g];
        if (gp->size > 1) {
            /* Invariant: before episode e, the arrival count A of group g is e·s mod 2^64 (s its size);
             * reset() made it so for the first episode, and each episode adds exactly s (each of the s
             * players of g arrives once). No arrival of episode e + 1 can reach g before all s of
             * episode e did (the release of e needs g's winner), so the k-th arrival of episode e
             * (k = 1..s) reads A = e·s + k - 1 and the s values e·s + k are distinct mod 2^64 (s <= 64):
             * exactly the arrival that makes A = (e + 1)·s wins. A test "A + 1 is a multiple of s"
             * would break at wrap-around when s does not divide 2^64 (s = 3: 2^64 - 1 is a multiple,
             * 2^64 ≡ 1 is not); equality with (e + 1)·s, computed mod 2^64 like A itself, holds
             * across any wrap of A or of e, and A never needs a reset. Nobody waits on A, so the
             * futex rule does not apply to it. */
            uint64_t a = flag_fetch_add(&r->fl, ag_at(st->arr, g), 1);
            if (a + 1 != (e + 1) * gp->size)
                break; /* lost this round: the winner carries our arrival on (acq_rel chain) */
        }
        path[won++] = g;
        if (gp->parent == NONE) {
            /* Champion: its fetch_add chain has acquired every participant's arrival of episode e. */
            if (st->wake == WAKE_GLOBAL)
                flag_store(&r->fl, st->global, e + 1);
            else
                release_path(r, st, path, won, e);
            return AG_SERIAL;
        }
        g = gp->parent;
    }

    /* Lost in group g. The release flag reaches e + 1 only once everyone arrived in episode e, and
     * cannot run ahead of it: episode e + 1 cannot complete without us. */
    if (st->wake == WAKE_GLOBAL)
        return flag_wait(&r->fl, st->global, AG_GE, e + 1, deadline);
    int rc = flag_wait(&r->fl, ag_at(st->rel, g), AG_GE, e + 1, deadline);
    if (rc)
        return rc;
    /* Released (acquire); pass the release on, top-down, to the losers of the groups we won. */
    release_path(r, st, path, won, e);
    return 0;
}

static const char *const wake_words[] = { "global", "tree", NULL };
static const struct ag_key keys[] = {
    { "fanin", 2, 64, NULL, "4", "largest group per round (F); groups are balanced: ceil(m/F) groups of m players" },
    { "wake", 1, 0, wake_words, "tree",
      "release: one global flag, or a flag per group released top-down by its winner" },
    { 0 } };

const struct ag_algo ag_algo_dtour = {
    { "dtour", "dynamic f-way tournament: balanced rounds, winner decided by atomics, reset-free counts",
      "002 §II-B DTOUR; 003 §3 dtn", keys },
    setup, reset, wait,
};
