/* gomp.c — GOMP_barrier (what gcc emits for `#pragma omp barrier`) served by andgate.
 *
 * GOMP_parallel is wrapped: the region's function runs through a trampoline that tells every thread of
 * the team, thread-locally, which region it is in. Each region gets its own andgate barrier, made by
 * the first team thread that reaches GOMP_barrier (for the actual team size, omp_get_num_threads())
 * and freed when the region ends; thread i of the team is participant omp_get_thread_num(). Nested
 * regions get theirs too.
 *
 * Accelerated: explicit `#pragma omp barrier` (and GOMP_barrier calls) inside regions entered through
 * GOMP_parallel, with more than one thread. Tasks must be complete at a barrier, and only libgomp can
 * run them there: inside an accelerated region GOMP_task runs every task at once, undeferred (as if
 * if(0); OpenMP allows it), so no task is left for a barrier to run. Not reachable: the barriers libgomp
 * runs itself — the implicit ones at the end of worksharing constructs (GOMP_loop_end, single,
 * sections), and the join at the end of a region; regions entered otherwise (GOMP_parallel_start,
 * combined GOMP_parallel_loop_*) keep libgomp's barrier. ANDGATE_GOMP=0 turns all this off.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "andgate.h"
#include "preload.h"

enum { NONE, MAKING, READY, FAILED };

struct region {
    void (*fn)(void *);
    void *data;
    ag_barrier_t *bar;
    _Atomic int state; /* one team thread makes the barrier; FAILED: libgomp's for the whole region */
};

static void (*real_barrier)(void);
static void (*real_parallel)(void (*)(void *), void *, unsigned, unsigned);
static void (*real_task)(void (*)(void *), void *, void (*)(void *, void *), long, long, bool, unsigned, void **, int,
                         void *);
static int (*omp_threads)(void), (*omp_thread)(void);
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int enabled;
static _Thread_local struct region *current;

static void resolve(void)
{
    real_barrier = (void (*)(void))dlsym(RTLD_NEXT, "GOMP_barrier");
    real_parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(RTLD_NEXT, "GOMP_parallel");
    real_task = (void (*)(void (*)(void *), void *, void (*)(void *, void *), long, long, bool, unsigned, void **, int,
                          void *))dlsym(RTLD_NEXT, "GOMP_task");
    omp_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    omp_thread = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
    const char *g = getenv("ANDGATE_GOMP");
    enabled = ag_preload_enabled() && !(g && !strcmp(g, "0")) && real_barrier && real_parallel && omp_threads &&
              omp_thread;
}

static void trampoline(void *arg)
{
    struct region *r = arg, *outer = current;
    current = r;
    r->fn(r->data);
    current = outer;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    pthread_once(&once, resolve);
    if (!enabled) {
        real_parallel(fn, data, num_threads, flags);
        return;
    }
    struct region r = { .fn = fn, .data = data };
    real_parallel(trampoline, &r, num_threads, flags);
    /* the region is over: every team thread has left its function, and so every barrier */
    if (atomic_load(&r.state) == READY)
        ag_barrier_destroy(r.bar);
}

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
               bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    pthread_once(&once, resolve);
    if (current && atomic_load(&current->state) != FAILED)
        if_clause = false; /* undeferred: our barriers cannot run deferred tasks */
    real_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

/* The region's barrier: the first team thread here makes it, the others wait for the outcome, so the
 * whole team takes the same road. NULL: libgomp's barrier for this region. */
static ag_barrier_t *barrier_of(struct region *r, unsigned n)
{
    int st = atomic_load_explicit(&r->state, memory_order_acquire);
    if (st == NONE && atomic_compare_exchange_strong(&r->state, &st, MAKING)) {
        ag_config_t cfg = { .nthreads = n };
        if (ag_barrier_init(&r->bar, &cfg) == 0) {
            ag_preload_verbose("andgate-preload: GOMP_barrier, team of %u: %s\n", n, ag_barrier_describe(r->bar));
            atomic_store_explicit(&r->state, READY, memory_order_release);
        } else {
            char msg[256];
            ag_config_check(&cfg, msg, sizeof msg);
            ag_preload_warn_once("andgate-preload: %s; OpenMP barriers stay libgomp's\n", msg);
            atomic_store_explicit(&r->state, FAILED, memory_order_release);
        }
    }
    while ((st = atomic_load_explicit(&r->state, memory_order_acquire)) == MAKING)
        sched_yield();
    return st == READY ? r->bar : NULL;
}

void GOMP_barrier(void)
{
    pthread_once(&once, resolve);
    struct region *r = current;
    int n = r ? omp_threads() : 0;
    ag_barrier_t *b;
    if (n > 1 && (b = barrier_of(r, (unsigned)n))) {
        ag_barrier_wait(b, (unsigned)omp_thread());
        return;
    }
    real_barrier();
}
