/* kmp.c — __kmpc_barrier (what clang emits for `#pragma omp barrier` and for the implicit barrier at
 * the end of a worksharing loop without nowait) served by andgate, opt-in with ANDGATE_OMP=1.
 *
 * libomp's parallel regions start in __kmpc_fork_call, which is variadic and cannot be wrapped, so
 * the shim cannot tell teams apart the way gomp.c does. Hence the limits, documented in
 * docs/preload.md: only root-level teams (omp_get_level() == 1; nested levels fall back to libomp),
 * one such team at a time in the process, and no OpenMP tasks or cancellation in the program (libomp
 * runs pending tasks at barriers; the shim cannot see them). One andgate barrier per team size, made by
 * the first thread that needs it (the others wait for it) and kept for the life of the process.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "andgate.h"
#include "preload.h"

#define MAX_TEAM 1024
enum { NONE, MAKING, READY, FAILED };

static void (*real_barrier)(void *, int32_t);
static int (*omp_level)(void), (*omp_threads)(void), (*omp_thread)(void);
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int enabled;

static struct {
    ag_barrier_t *bar;
    _Atomic int state;
} team[MAX_TEAM + 1];

static void resolve(void)
{
    real_barrier = (void (*)(void *, int32_t))dlsym(RTLD_NEXT, "__kmpc_barrier");
    omp_level = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_level");
    omp_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    omp_thread = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
    const char *e = getenv("ANDGATE_OMP");
    enabled = ag_preload_enabled() && e && !strcmp(e, "1") && real_barrier && omp_level && omp_threads && omp_thread;
}

static ag_barrier_t *barrier_for(unsigned n)
{
    int st = atomic_load_explicit(&team[n].state, memory_order_acquire);
    if (st == NONE && atomic_compare_exchange_strong(&team[n].state, &st, MAKING)) {
        ag_config_t cfg = { .nthreads = n };
        if (ag_barrier_init(&team[n].bar, &cfg) == 0) {
            ag_preload_verbose("andgate-preload: __kmpc_barrier, team of %u: %s\n", n,
                               ag_barrier_describe(team[n].bar));
            atomic_store_explicit(&team[n].state, READY, memory_order_release);
        } else {
            char msg[256];
            ag_config_check(&cfg, msg, sizeof msg);
            ag_preload_warn_once("andgate-preload: %s; OpenMP barriers stay libomp's\n", msg);
            atomic_store_explicit(&team[n].state, FAILED, memory_order_release);
        }
    }
    while ((st = atomic_load_explicit(&team[n].state, memory_order_acquire)) == MAKING)
        sched_yield();
    return st == READY ? team[n].bar : NULL;
}

void __kmpc_barrier(void *loc, int32_t gtid)
{
    pthread_once(&once, resolve);
    int n = enabled && omp_level() == 1 ? omp_threads() : 0;
    ag_barrier_t *b;
    if (n > 1 && n <= MAX_TEAM && (b = barrier_for((unsigned)n))) {
        ag_barrier_wait(b, (unsigned)omp_thread());
        return;
    }
    real_barrier(loc, gtid);
}
