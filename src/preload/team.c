/* team.c — team barriers made once per (master thread, level, team size) and reused (see team.h). */
#define _GNU_SOURCE
#include "team.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "preload.h"
#include "scope.h"
#include "topo.h"
#include "wait.h"

#define MAX_LEVEL 8 /* deeper teams keep the runtime's barrier */
#define REGION_SLOTS 8

struct entry {
    struct entry *next;
    unsigned n;
    ag_barrier_t *bar; /* NULL: andgate cannot serve this team size */
    struct ag_team_loops *loops; /* NULL with bar, or out of memory */
};

struct ag_team_set {
    /* Read by every thread of the team at every region: written only when a value changes, so in the
     * steady state (the same region again and again) the line stays in every core's cache and a
     * region costs no cache miss here. Lookups read the list without the lock: an entry is complete
     * before the release store that publishes it, and entries are never removed while the master
     * thread lives. */
    _Alignas(64) _Atomic(struct entry *) head;
    unsigned long outer_threads;  /* threads of the teams enclosing the current region's team */
    _Atomic uint64_t first_task;
    _Atomic int broke;  /* team_tasks.c broke a barrier of this set in the current region */
    _Atomic int tasked; /* a deferred task was created in the current region (written once in it) */
    int level;
    /* the regions run last (ag_team_region; gomp.c's trampolines read them, kmp.c's are named by call
     * site), two to a line; written only when a new one replaces the oldest or its `tasks` changes */
    _Alignas(64) struct ag_team_region region[REGION_SLOTS];
    /* the master's and the maker's */
    _Alignas(64) pthread_mutex_t lock; /* one maker at a time */
    int out_of_memory; /* under the lock: no entry could be made; sizes still missing stay unserved */
    unsigned oldest;   /* the master's: the region slot to replace next */
    struct ag_team_region *last; /* the master's: the record of the region running or just joined */
};

struct sets {
    struct ag_team_set level[MAX_LEVEL];
};

static pthread_key_t sets_key;
static struct ag_once key_once = AG_ONCE_INIT;
static AG_TLS struct sets *mine;

/* The master thread exits: no team it started is running (it was their thread 0 until each joined). */
static void sets_free(void *p)
{
    struct sets *s = p;
    for (int l = 0; l < MAX_LEVEL; l++) {
        struct entry *e = atomic_load(&s->level[l].head);
        while (e) {
            struct entry *next = e->next;
            if (e->bar)
                ag_barrier_destroy(e->bar);
            free(e->loops);
            free(e);
            e = next;
        }
        pthread_mutex_destroy(&s->level[l].lock);
    }
    free(s);
}

static void key_make(void)
{
    pthread_key_create(&sets_key, sets_free);
}

/* The runtimes' place routines, per side (scope.h), looked up by the thread that starts the process's
 * first team (ag_team_begin), not in make(): a dl* call there, by a team's thread under the set's lock,
 * would wait for the dynamic linker's lock, which the master may hold (a module's constructor running
 * the region) while it waits for that thread in the barrier; and not when the shim is loaded, where
 * dlopen would leave a block on the heap the program starts with (tests/omp_heap.sh). */
static struct places_api {
    int (*bind)(void), (*places)(void), (*procs)(int);
    void (*ids)(int, int *);
} places_of[2];
static struct ag_once places_once = AG_ONCE_INIT;

static void find_places(void)
{
    for (int side = AG_SIDE_GOMP; side <= AG_SIDE_KMP; side++) {
        struct places_api *a = &places_of[side];
        *(void **)&a->bind = ag_scope_runtime_sym(side, "omp_get_proc_bind");
        *(void **)&a->places = ag_scope_runtime_sym(side, "omp_get_num_places");
        *(void **)&a->procs = ag_scope_runtime_sym(side, "omp_get_place_num_procs");
        *(void **)&a->ids = ag_scope_runtime_sym(side, "omp_get_place_proc_ids");
    }
}

static enum ag_side side_of(const char *runtime)
{
    return strcmp(runtime, "libgomp") ? AG_SIDE_KMP : AG_SIDE_GOMP;
}

static struct ag_team_set *set_mine(int level)
{
    if (level < 1 || level > MAX_LEVEL)
        return NULL;
    if (!mine) {
        ag_once(&key_once, key_make);
        ag_once(&places_once, find_places); /* the first team of the process: see places_of */
        struct sets *s = aligned_alloc(64, sizeof *s); /* its sets' lines are their own (_Alignas) */
        if (!s)
            return NULL;
        memset(s, 0, sizeof *s);
        for (int l = 0; l < MAX_LEVEL; l++) {
            pthread_mutex_init(&s->level[l].lock, NULL);
            s->level[l].level = l + 1;
            atomic_init(&s->level[l].first_task, UINT64_MAX);
        }
        pthread_setspecific(sets_key, s);
        mine = s;
    }
    return &mine->level[level - 1];
}

static struct entry *find(struct ag_team_set *s, unsigned n)
{
    for (struct entry *e = atomic_load_explicit(&s->head, memory_order_acquire); e; e = e->next)
        if (e->n == n)
            return e;
    return NULL;
}

/* How long one iteration of libgomp's spin loop takes (a load and a pause): measured once, because the
 * pause instruction's latency varies by an order of magnitude between CPU generations. */
static double pause_ns(void)
{
    static double ns;
    if (ns == 0) {
        /* the fastest of 16 short batches: a batch that was preempted or shared its core says nothing.
         * 64 iterations a batch (1.5 us at 24 ns a pause) keep the clock's own cost near 2 % and the
         * whole measurement near 25 us; it sets a spin of about 7 ms, which needs no finer figure. */
        enum { BATCHES = 16, N = 64 };
        static _Atomic unsigned flag;
        double best = 1e9;
        for (unsigned b = 0; b < BATCHES; b++) {
            uint64_t t0 = ag_now_ns();
            for (unsigned i = 0; i < N && !atomic_load_explicit(&flag, memory_order_relaxed); i++)
                ag_cpu_relax();
            double per = (double)(ag_now_ns() - t0) / N;
            if (per < best)
                best = per;
        }
        ns = best > 0 ? best : 1;
    }
    return ns;
}

static struct ag_once warm_once = AG_ONCE_INIT;

static void warm(void)
{
    (void)ag_topo_get();
    (void)ag_usable_cpus();
}

void ag_team_warm(const char *runtime)
{
    ag_once(&warm_once, warm);
    if (!strcmp(runtime, "libgomp"))
        (void)pause_ns(); /* measured once: later calls return its figure */
}

/* The algorithm of a team with more threads than CPUs, unless ANDGATE_ALGO names one (NULL: auto's,
 * central). libomp's own barrier gathers at the master, which releases, so its master leaves first, and
 * a program may wait for that master in its own code (libomp's kmp_sch_simd_guided.c test: 50 s under
 * central, whose last arriver releases, against 2 s alone), while barrier-bound programs run 1.1-1.5x
 * faster under central: libomp's teams get gate, which shuts the others behind the master only while
 * the master's timing of the program's episodes says that is faster (src/algo/gate.c). libgomp's teams
 * keep central: libgomp's last arriver releases too. */
static const char *runtime_algo(const char *runtime, int oversubscribed)
{
    const char *a = getenv("ANDGATE_ALGO");
    if ((a && *a) || !oversubscribed || !strcmp(runtime, "libgomp"))
        return NULL;
    return "gate";
}

/* The runtime's own wait policy as an andgate spec (the shim replaces the runtime's barrier; waiting as
 * the runtime would means never sleeping where it would still poll). OMP_WAIT_POLICY (OpenMP's
 * wait-policy-var): active polls, passive sleeps. Unset: libgomp spins GOMP_SPINCOUNT iterations
 * (300,000 by default) before its futex, and only 1,000 when its threads outnumber the CPUs — there
 * the library's own oversubscribed policy (yield 20 us, then futex, with the stall rule: wait.h) does
 * better; libomp polls for KMP_BLOCKTIME milliseconds (200 by default; "infinite" never sleeps),
 * spinning while its threads fit the CPUs and yielding at every poll when they do not (its default
 * "throughput" library mode; no stall rule, which would make its threads sleep where libomp polls).
 * quota_bound: the threads have a CPU each but a cgroup quota below their number (make() says why). */
static const char *runtime_wait(const char *runtime, int oversubscribed, int quota_bound, char *buf, size_t len)
{
    const char *pol = getenv("OMP_WAIT_POLICY");
    int gomp = !strcmp(runtime, "libgomp");
    if (pol && !strcasecmp(pol, "passive"))
        return "block";
    if (pol && !strcasecmp(pol, "active"))
        return oversubscribed ? "yield" : "pause";
    if (quota_bound) /* the runtimes' spins of milliseconds burn a quota the team needs: the library's own */
        return "auto";
    if (gomp && oversubscribed) {
        snprintf(buf, len, "hybrid:spin_ns=0,yield_ns=%u,stall_ns=%u", AG_AUTO_YIELD_NS, AG_YIELD_STALL_NS);
        return buf;
    }
    double ns;
    const char *v = getenv(gomp ? "GOMP_SPINCOUNT" : "KMP_BLOCKTIME");
    if (v && !strcasecmp(v, "infinite"))
        return oversubscribed ? "yield" : "pause";
    if (gomp)
        ns = (v && *v ? strtod(v, NULL) : 300000) * pause_ns();
    else
        ns = (v && *v ? strtod(v, NULL) : 200) * 1e6;
    if (!(ns >= 0))
        ns = 0;
    if (ns > 1e10)
        ns = 1e10;
    snprintf(buf, len, oversubscribed ? "hybrid:spin_ns=0,yield_ns=%.0f" : "hybrid:spin_ns=%.0f,yield_ns=0", ns);
    return buf;
}

/* How many of the process's CPUs the runtime's places hold, while its threads are bound to them
 * (omp_get_proc_bind() not false in the asking thread: the binding of the teams it is in and starts);
 * 0: not bound, or the runtime does not say. A bound team's threads are on its places' CPUs only, and
 * those can be fewer than the process's: a program with both runtimes, bound, whose libgomp pinned the
 * initial thread (in its constructor) before libomp read the CPUs it may use — libomp's places are then
 * that one CPU, and its team of 2 shares it while a libgomp worker holds the other (a clang program
 * calling a gcc-built library: its team spun, 59 us a barrier against libomp's 4 us). */
static unsigned place_cpus(const char *runtime, const cpu_set_t *process)
{
    enum ag_side side = side_of(runtime);
    const struct places_api *a = &places_of[side];
    if (!ag_once_done(&places_once) || !a->bind || !a->places || !a->procs || !a->ids || a->bind() == 0)
        return 0; /* 0: omp_proc_bind_false */
    cpu_set_t held;
    CPU_ZERO(&held);
    int np = a->places(), buf[256];
    for (int p = 0; p < np; p++) {
        int k = a->procs(p);
        if (k <= 0 || k > (int)(sizeof buf / sizeof *buf))
            return 0; /* a place wider than this count: not worth a sharper answer */
        a->ids(p, buf);
        for (int j = 0; j < k; j++)
            if (buf[j] >= 0 && buf[j] < CPU_SETSIZE)
                CPU_SET(buf[j], &held);
    }
    CPU_AND(&held, &held, process);
    return (unsigned)CPU_COUNT(&held);
}

/* Under the lock: make the barrier of the team of n and publish its entry. */
static struct entry *make(struct ag_team_set *s, unsigned n, unsigned long threads, const char *runtime)
{
    struct entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->n = n;
    ag_config_t cfg = { .nthreads = n }; /* ANDGATE_ALGO / ANDGATE_WAIT when set */
    char wait[64];
    const char *w = getenv("ANDGATE_WAIT");
    /* threads: those of this team and its enclosing teams, which share the CPUs. More of them than the
     * process's CPUs: oversubscribed. As many as its CPUs but more than its quota: quota-bound, each has
     * a CPU (so no yielding: barrier.c) but CPU time is short, and a waiter spinning the runtime's
     * milliseconds while its partner is throttled burns the quota; wait=auto spins 20 us, then sleeps. */
    struct ag_cpu_budget bud;
    cpu_set_t set;
    ag_cpu_budget(&bud, &set, 0);
    unsigned cpus = bud.process ? bud.process : 1, placed = place_cpus(runtime, &set);
    const int on_places = placed && placed < cpus; /* bound to fewer CPUs than the process has */
    if (on_places)
        cpus = placed;
    const int crowded = threads > cpus; /* decides the algorithm, the wait and the loops' hand-out */
    cfg.algo = runtime_algo(runtime, crowded);
    if (!w || !*w)
        cfg.wait = runtime_wait(runtime, crowded, bud.quota && threads > bud.quota && threads <= cpus, wait,
                                sizeof wait);
    if (ag_barrier_init(&e->bar, &cfg) == 0) {
        ag_preload_verbose("andgate-preload: %s team of %u at level %d: %s (CPUs %u%s, usable CPUs %u, threads %lu, "
                           "topology %s)\n", runtime, n, s->level, ag_barrier_describe(e->bar), cpus,
                           on_places ? " of the runtime's places" : "", bud.usable, threads, ag_topo_get()->source);
    } else {
        char msg[256];
        ag_config_check(&cfg, msg, sizeof msg);
        ag_preload_warn_once("andgate-preload: %s; %s keeps its barrier for teams of %u\n", msg, runtime, n);
        e->bar = NULL;
    }
    if (e->bar)
        e->loops = ag_team_loops_new(n, crowded);
    e->next = atomic_load_explicit(&s->head, memory_order_relaxed);
    atomic_store_explicit(&s->head, e, memory_order_release);
    return e;
}

ag_barrier_t *ag_team_barrier(struct ag_team_set *s, unsigned n, unsigned long threads, const char *runtime,
                              struct ag_team_loops **loops)
{
    struct entry *e = find(s, n);
    if (!e) {
        /* Another thread of the team may be making it (ag_barrier_init reads the process's CPUs): poll
         * for it, yielding, rather than sleep on the mutex. A sleeper's wake-up may put it on the CPU of
         * its waker, who goes on to spin in the new barrier (3.5 ms before it ran again, in a system-call
         * trace of a libomp program's first barrier on the 2-CPU VM). */
        while (pthread_mutex_trylock(&s->lock) == EBUSY) {
            if ((e = find(s, n)))
                goto found;
            sched_yield();
        }
        /* a size that could not be given an entry never gets one: every thread of the team that asked,
         * before or after, sees the same NULL */
        if (!(e = find(s, n)) && !s->out_of_memory && !(e = make(s, n, threads, runtime)))
            s->out_of_memory = 1;
        pthread_mutex_unlock(&s->lock);
    }
found:
    *loops = e ? e->loops : NULL;
    return e ? e->bar : NULL;
}

/* Before a region, with the previous one joined (nobody inside a barrier of the set): the barriers that
 * team_tasks.c broke made usable again; one that cannot be (it never happens: EBUSY means somebody is
 * inside) is dropped, and its team size keeps the runtime's barrier and loops from then on. */
static void repair(struct ag_team_set *s)
{
    for (struct entry *e = atomic_load_explicit(&s->head, memory_order_acquire); e; e = e->next)
        if (e->bar && ag_barrier_is_broken(e->bar) && ag_barrier_reset(e->bar) != 0) {
            e->bar = NULL;
            free(e->loops);
            e->loops = NULL;
        }
    atomic_store_explicit(&s->broke, 0, memory_order_relaxed);
}

void ag_team_broke(struct ag_team_set *s)
{
    atomic_store_explicit(&s->broke, 1, memory_order_relaxed);
}

struct ag_team_set *ag_team_begin(int level, const struct ag_team_ctx *master_ctx)
{
    struct ag_team_set *s = set_mine(level);
    if (!s)
        return NULL;
    /* the previous region of this set has joined: nobody else touches it now; write only changes */
    if (atomic_load_explicit(&s->broke, memory_order_relaxed))
        repair(s);
    int tasked = atomic_load_explicit(&s->tasked, memory_order_relaxed);
    if (s->last && s->last->tasks != tasked)
        s->last->tasks = tasked;
    if (tasked)
        atomic_store_explicit(&s->tasked, 0, memory_order_relaxed);
    unsigned long outer = master_ctx ? master_ctx->threads : 1;
    if (s->outer_threads != outer)
        s->outer_threads = outer;
    return s;
}

/* The record of (fn, data): one of the last few, or the oldest replaced. */
static struct ag_team_region *region_of(struct ag_team_set *s, void (*fn)(void *), void *data)
{
    for (unsigned i = 0; i < REGION_SLOTS; i++)
        if (s->region[i].fn == fn && s->region[i].data == data && s->region[i].set)
            return &s->region[i];
    /* every thread that read a slot did so at its region's start, before that region joined */
    struct ag_team_region *r = &s->region[s->oldest];
    s->oldest = (s->oldest + 1) % REGION_SLOTS;
    *r = (struct ag_team_region){ fn, data, s, s->level, 0 };
    return r;
}

const struct ag_team_region *ag_team_region(struct ag_team_set *s, void (*fn)(void *), void *data)
{
    struct ag_team_region *r = s->last = region_of(s, fn, data);
    /* the region's first barrier that a deferred task precedes (team_tasks.c): none yet, or barrier 0
     * when the region created tasks the last time it ran — then every barrier of it is the runtime's
     * from the start, with no andgate barrier to break and repair. The team reads it after the
     * runtime started the team, which orders this store before. */
    uint64_t first = r->tasks ? 0 : UINT64_MAX;
    if (atomic_load_explicit(&s->first_task, memory_order_relaxed) != first)
        atomic_store_explicit(&s->first_task, first, memory_order_relaxed);
    return r;
}

void ag_team_note_task(struct ag_team_set *s)
{
    if (!atomic_load_explicit(&s->tasked, memory_order_relaxed))
        atomic_store_explicit(&s->tasked, 1, memory_order_relaxed);
}

_Atomic uint64_t *ag_team_first_task(struct ag_team_set *s)
{
    return &s->first_task;
}

int ag_team_level(const struct ag_team_set *s)
{
    return s->level;
}

void ag_team_resolve(struct ag_team_ctx *ctx, const char *runtime)
{
    struct ag_team_set *s = ctx->set;
    unsigned n = ctx->n, tid = ctx->tid;
    ctx->threads = n * (s ? s->outer_threads : 1);
    ctx->bar = NULL, ctx->loops = NULL;
    if (s && n >= 2 && tid < n)
        ctx->bar = ag_team_barrier(s, n, ctx->threads, runtime, &ctx->loops);
    ctx->resolved = 1;
}
