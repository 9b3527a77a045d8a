/* impl_ck.c — baselines: Concurrency Kit's five barriers (ck_barrier.h from libck-dev; link -lck),
 * each set up the way CK's own validation programs set it up (regressions/ck_barrier/validate/), with
 * CK's defaults: every barrier spins on ck_pr_stall() (x86: pause) and never blocks.
 *
 * Per-thread state. CK keeps a small state object per participant (a sense, and for dissemination,
 * MCS and tournament a thread id that selects the participant's flags). The dissemination, MCS and
 * tournament subscribe calls draw that id from a fetch-and-add on a counter that init sets to 0 and
 * otherwise only reset the state's sense (and parity) (src/ck_barrier_{dissemination,mcs,
 * tournament}.c); nothing in them depends on the calling thread. Subscribing from the threads
 * would hand out ids in arrival order, so which tid sits where in the tree would change from run to
 * run; instead init subscribes the states of tids 0..n-1 in order, from one thread, before any thread
 * waits: state[tid] gets id tid (checked), the tree shape is the same in every run, and the engine's
 * pinning (tid -> CPU) decides which CPU plays which role. Every state sits on its own cache line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ck_barrier.h>

#include "impl.h"

#define LINE CK_MD_CACHELINE
#define CK_SPIN "spins (ck_pr_stall, x86 pause) with no blocking; CK defaults"

/* Zeroed memory aligned to a cache line; the size is rounded up to a multiple of the line, as C11
 * aligned_alloc requires. */
static void *line_alloc(size_t size)
{
    size_t r = size ? (size + LINE - 1) / LINE * LINE : LINE;
    if (r < size)
        return NULL;
    void *p = aligned_alloc(LINE, r);
    if (p)
        memset(p, 0, r);
    return p;
}

/* n of at most 2^20 keeps every n * (per-thread size) below in range, on 32-bit targets too. */
static int bad_n(unsigned n)
{
    return n == 0 || n > (1u << 20);
}

static void say(char *desc, size_t desclen, const char *what, unsigned n)
{
    if (desc && desclen)
        snprintf(desc, desclen, "%s n=%u (CK defaults, spin-only)", what, n);
}

/* ---- centralized: sense-reversing counter (src/ck_barrier_centralized.c) ---- */

struct central_slot {
    _Alignas(LINE) ck_barrier_centralized_state_t s;
};

struct central {
    unsigned n;
    _Alignas(LINE) ck_barrier_centralized_t b; /* the counter and the global sense share a line */
    struct central_slot st[];
};

static int central_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                        size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (bad_n(n))
        return EINVAL;
    struct central *c = line_alloc(sizeof *c + (size_t)n * sizeof c->st[0]);
    if (!c)
        return ENOMEM;
    c->n = n;
    c->b = (ck_barrier_centralized_t)CK_BARRIER_CENTRALIZED_INITIALIZER;
    for (unsigned i = 0; i < n; i++)
        c->st[i].s = (ck_barrier_centralized_state_t)CK_BARRIER_CENTRALIZED_STATE_INITIALIZER;
    *ctx = c;
    say(desc, desclen, "ck_barrier_centralized", n);
    return 0;
}

static void central_wait(void *ctx, unsigned tid)
{
    struct central *c = ctx;
    ck_barrier_centralized(&c->b, &c->st[tid].s, c->n);
}

/* ---- combining: software combining tree (src/ck_barrier_combining.c) ----
 * CK's tree is made of groups the caller creates: ck_barrier_combining_group_init(barrier, group, k)
 * links a group of k threads into the tree under the root (level order, two children per node), and
 * each thread passes its group to ck_barrier_combining(). CK documents no grouping (its validation
 * program takes the number of groups and threads per group on the command line). Here: groups of 4
 * consecutive threads (the last one smaller), as a user building a combining tree of fan-in 4 would,
 * so the leaves match andgate's combining default (arity 4). */

#define COMB_GROUP 4

struct comb_slot {
    _Alignas(LINE) ck_barrier_combining_state_t s;
};

struct comb_group {
    _Alignas(LINE) ck_barrier_combining_group_t g;
};

struct comb {
    ck_barrier_combining_t b;
    ck_barrier_combining_group_t root; /* CK_CC_CACHELINE: a line of its own */
    struct comb_group *groups;         /* ceil(n / COMB_GROUP) */
    struct comb_slot st[];
};

static void comb_destroy(void *ctx)
{
    struct comb *c = ctx;
    if (c)
        free(c->groups);
    free(c);
}

static int comb_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                     size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (bad_n(n))
        return EINVAL;
    unsigned ng = (n + COMB_GROUP - 1) / COMB_GROUP;
    struct comb *c = line_alloc(sizeof *c + (size_t)n * sizeof c->st[0]);
    if (!c)
        return ENOMEM;
    c->groups = line_alloc((size_t)ng * sizeof *c->groups);
    if (!c->groups) {
        free(c);
        return ENOMEM;
    }
    ck_barrier_combining_init(&c->b, &c->root);
    for (unsigned g = 0; g < ng; g++)
        ck_barrier_combining_group_init(&c->b, &c->groups[g].g,
                                        g + 1 < ng ? COMB_GROUP : n - (ng - 1) * COMB_GROUP);
    for (unsigned i = 0; i < n; i++)
        c->st[i].s = (ck_barrier_combining_state_t)CK_BARRIER_COMBINING_STATE_INITIALIZER;
    *ctx = c;
    say(desc, desclen, "ck_barrier_combining, groups of 4 consecutive threads under the root", n);
    return 0;
}

static void comb_wait(void *ctx, unsigned tid)
{
    struct comb *c = ctx;
    ck_barrier_combining(&c->b, &c->groups[tid / COMB_GROUP].g, &c->st[tid].s);
}

/* ---- dissemination (src/ck_barrier_dissemination.c) ----
 * The barrier is an array of n ck_barrier_dissemination_t (element i holds thread i's flag sets);
 * barrier_internal[i] points to ck_barrier_dissemination_size(n) flags of thread i (two parity sets
 * of ceil(log2 n) rounds). For n = 1 that size is 0 and the barrier returns at once. */

struct diss_slot {
    _Alignas(LINE) ck_barrier_dissemination_state_t s;
};

struct diss {
    unsigned n;
    ck_barrier_dissemination_t *b;
    ck_barrier_dissemination_flag_t **flags; /* n arrays, each on lines of its own */
    struct diss_slot st[];
};

static void diss_destroy(void *ctx)
{
    struct diss *d = ctx;
    if (!d)
        return;
    if (d->flags)
        for (unsigned i = 0; i < d->n; i++)
            free(d->flags[i]);
    free(d->flags);
    free(d->b);
    free(d);
}

static int diss_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                     size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (bad_n(n))
        return EINVAL;
    struct diss *d = line_alloc(sizeof *d + (size_t)n * sizeof d->st[0]);
    if (!d)
        return ENOMEM;
    d->n = n;
    d->b = line_alloc((size_t)n * sizeof d->b[0]);
    d->flags = line_alloc((size_t)n * sizeof d->flags[0]);
    if (!d->b || !d->flags) {
        diss_destroy(d);
        return ENOMEM;
    }
    unsigned size = ck_barrier_dissemination_size(n);
    for (unsigned i = 0; i < n; i++)
        if (!(d->flags[i] = line_alloc((size_t)size * sizeof d->flags[i][0]))) {
            diss_destroy(d);
            return ENOMEM;
        }
    ck_barrier_dissemination_init(d->b, d->flags, n);
    for (unsigned i = 0; i < n; i++) {
        ck_barrier_dissemination_subscribe(d->b, &d->st[i].s);
        if (d->st[i].s.tid != i) { /* ids in subscription order: see the top of this file */
            diss_destroy(d);
            return ENOTSUP;
        }
    }
    *ctx = d;
    say(desc, desclen, "ck_barrier_dissemination (thread id = tid)", n);
    return 0;
}

static void diss_wait(void *ctx, unsigned tid)
{
    struct diss *d = ctx;
    ck_barrier_dissemination(d->b, &d->st[tid].s);
}

/* ---- MCS: 4-ary arrival tree, binary wake-up tree (src/ck_barrier_mcs.c) ----
 * The barrier is an array of n ck_barrier_mcs_t, node i belonging to the thread with vpid i. */

struct mcs_slot {
    _Alignas(LINE) ck_barrier_mcs_state_t s;
};

struct mcs {
    ck_barrier_mcs_t *b;
    struct mcs_slot st[];
};

static void mcs_destroy(void *ctx)
{
    struct mcs *m = ctx;
    if (!m)
        return;
    free(m->b);
    free(m);
}

static int mcs_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                    size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (bad_n(n))
        return EINVAL;
    struct mcs *m = line_alloc(sizeof *m + (size_t)n * sizeof m->st[0]);
    if (!m)
        return ENOMEM;
    /* one contiguous array of nodes, as CK's validation program allocates it */
    if (!(m->b = line_alloc((size_t)n * sizeof m->b[0]))) {
        mcs_destroy(m);
        return ENOMEM;
    }
    ck_barrier_mcs_init(m->b, n);
    for (unsigned i = 0; i < n; i++) {
        ck_barrier_mcs_subscribe(m->b, &m->st[i].s);
        if (m->st[i].s.vpid != i) {
            mcs_destroy(m);
            return ENOTSUP;
        }
    }
    *ctx = m;
    say(desc, desclen, "ck_barrier_mcs (vpid = tid)", n);
    return 0;
}

static void mcs_wait(void *ctx, unsigned tid)
{
    struct mcs *m = ctx;
    ck_barrier_mcs(m->b, &m->st[tid].s);
}

/* ---- tournament: static tournament (src/ck_barrier_tournament.c) ----
 * rounds[i] points to ck_barrier_tournament_size(n) rounds of thread i (ceil(log2 n) + 1; round 0 is
 * the dropout). init leaves the role of rounds a thread never reaches unset, so they are zeroed here. */

struct tour_slot {
    _Alignas(LINE) ck_barrier_tournament_state_t s;
};

struct tour {
    unsigned n;
    ck_barrier_tournament_round_t **rounds; /* n arrays, each on lines of its own */
    _Alignas(LINE) ck_barrier_tournament_t b;
    struct tour_slot st[];
};

static void tour_destroy(void *ctx)
{
    struct tour *t = ctx;
    if (!t)
        return;
    if (t->rounds)
        for (unsigned i = 0; i < t->n; i++)
            free(t->rounds[i]);
    free(t->rounds);
    free(t);
}

static int tour_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                     size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (bad_n(n))
        return EINVAL;
    struct tour *t = line_alloc(sizeof *t + (size_t)n * sizeof t->st[0]);
    if (!t)
        return ENOMEM;
    t->n = n;
    if (!(t->rounds = line_alloc((size_t)n * sizeof t->rounds[0]))) {
        tour_destroy(t);
        return ENOMEM;
    }
    unsigned size = ck_barrier_tournament_size(n);
    for (unsigned i = 0; i < n; i++)
        if (!(t->rounds[i] = line_alloc((size_t)size * sizeof t->rounds[i][0]))) {
            tour_destroy(t);
            return ENOMEM;
        }
    ck_barrier_tournament_init(&t->b, t->rounds, n);
    for (unsigned i = 0; i < n; i++) {
        ck_barrier_tournament_subscribe(&t->b, &t->st[i].s);
        if (t->st[i].s.vpid != i) {
            tour_destroy(t);
            return ENOTSUP;
        }
    }
    *ctx = t;
    say(desc, desclen, "ck_barrier_tournament (vpid = tid)", n);
    return 0;
}

static void tour_wait(void *ctx, unsigned tid)
{
    struct tour *t = ctx;
    ck_barrier_tournament(&t->b, &t->st[tid].s);
}

const struct bench_impl bench_impl_ck_centralized = {
    .name = "ck:centralized",
    .kind = "baseline",
    .settings = "ck_barrier_centralized: sense-reversing centralized counter (fetch-and-add, all "
                "spin on one global sense); " CK_SPIN,
    .init = central_init,
    .wait = central_wait,
    .destroy = free,
    .team = NULL,
};

const struct bench_impl bench_impl_ck_combining = {
    .name = "ck:combining",
    .kind = "baseline",
    .settings = "ck_barrier_combining: software combining tree built from caller-made groups; groups "
                "of 4 consecutive threads, linked by CK under the root; " CK_SPIN,
    .init = comb_init,
    .wait = comb_wait,
    .destroy = comb_destroy,
    .team = NULL,
};

const struct bench_impl bench_impl_ck_dissemination = {
    .name = "ck:dissemination",
    .kind = "baseline",
    .settings = "ck_barrier_dissemination: ceil(log2 n) rounds of pairwise flags (partner "
                "(i + 2^k) mod n), two parity flag sets, sense reversal; " CK_SPIN,
    .init = diss_init,
    .wait = diss_wait,
    .destroy = diss_destroy,
    .team = NULL,
};

const struct bench_impl bench_impl_ck_mcs = {
    .name = "ck:mcs",
    .kind = "baseline",
    .settings = "ck_barrier_mcs: MCS tree barrier, 4-ary arrival tree, binary wake-up tree, "
                "thread 0 the root; " CK_SPIN,
    .init = mcs_init,
    .wait = mcs_wait,
    .destroy = mcs_destroy,
    .team = NULL,
};

const struct bench_impl bench_impl_ck_tournament = {
    .name = "ck:tournament",
    .kind = "baseline",
    .settings = "ck_barrier_tournament: static tournament, ceil(log2 n) rounds, thread 0 the "
                "champion, winners wake their losers on the way back; " CK_SPIN,
    .init = tour_init,
    .wait = tour_wait,
    .destroy = tour_destroy,
    .team = NULL,
};
