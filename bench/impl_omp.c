/* impl_omp.c — baseline: the barrier of an OpenMP runtime, `#pragma omp barrier`, in the runtime's
 * own thread team, with the runtime's defaults as a user gets them (this file sets no
 * OMP_WAIT_POLICY, GOMP_SPINCOUNT, KMP_BLOCKTIME or binding).
 *
 * One source, compiled once per runtime (OpenMP runtimes cannot share a process):
 *   gcc   -fopenmp          -DBENCH_OMP_NAME='"gomp"'      (GNU libgomp)
 *   clang -fopenmp=libomp   -DBENCH_OMP_NAME='"llvm-omp"'  (LLVM libomp)
 * Which runtime's <omp.h> is in use is told by KMP_VERSION_MAJOR, which only LLVM's omp.h defines.
 *
 * What the runtimes do, and where it was checked:
 *  libgomp (GCC 12): the team barrier is a centralized counter plus a generation word
 *    (config/linux/bar.c); the last arriver bumps the generation and calls futex_wake(INT_MAX), the
 *    others spin on it (config/linux/wait.h do_spin: pause per iteration) for the spin count, then
 *    futex_wait. The spin count (GOMP_SPINCOUNT, libgomp manual "GOMP_SPINCOUNT"): when unset, 300000
 *    with OMP_WAIT_POLICY unset, 30 billion with ACTIVE, 0 with PASSIVE; when the runtime manages
 *    more threads than available CPUs, 100 (policy unset) or 1000 (ACTIVE) unless GOMP_SPINCOUNT is
 *    lower or the policy is PASSIVE. "Available CPUs" is the CPU count of the process's affinity mask
 *    when libgomp loads (env.c: gomp_available_cpus). OMP_DISPLAY_ENV=verbose on this machine shows
 *    GOMP_SPINCOUNT = '300000'.
 *  libomp (LLVM 14): plain barriers use the "hyper" (hypercube-embedded tree) gather and release
 *    patterns with branch bits 2 (fan-in 4) (KMP_SETTINGS=1 on this machine: KMP_PLAIN_BARRIER='2,2',
 *    KMP_PLAIN_BARRIER_PATTERN='hyper,hyper', KMP_LIBRARY=throughput, KMP_BLOCKTIME=200); waiters spin
 *    for KMP_BLOCKTIME, then suspend on a pthread condition variable (z_Linux_util.cpp,
 *    __kmp_suspend_template). KMP_BLOCKTIME's default is 200 ms, 0 on hybrid Intel CPUs since
 *    LLVM 14 (kmp.h KMP_DEFAULT_BLOCKTIME; reviews.llvm.org/D113012). With KMP_BLOCKTIME unset,
 *    libomp also uses blocktime 0 (sleep at once) while it runs more threads than available CPUs
 *    (KMP_ADJUST_BLOCKTIME, __kmp_zero_bt: "force immediate suspend if not set by user and more
 *    threads than available procs"); on this machine kmp_get_blocktime() inside a team answers 200
 *    for teams of 1 and 2 and 0 for teams of 3 and 8 (2 CPUs). The value before any team is read
 *    at load; the description of each barrier says which case its team is in.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <omp.h>

#include "impl.h"

#ifndef BENCH_OMP_NAME
#error "compile with -DBENCH_OMP_NAME='\"gomp\"' (gcc -fopenmp) or '\"llvm-omp\"' (clang -fopenmp=libomp)"
#endif

#ifdef KMP_VERSION_MAJOR
#define OMP_LIBOMP 1
#else
#define OMP_LIBOMP 0
#endif

struct omp_ctx {
    unsigned n;
};

static char omp_settings[768];
static int omp_loaded;
static int omp_cpus; /* available CPUs as the runtime counts them (0: unknown) */
#if OMP_LIBOMP
static int omp_bt_default; /* kmp_get_blocktime() before any team: ms, INT_MAX for infinite */
#endif

static const char *env_or_unset(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "unset";
}

/* The process-wide facts, gathered once: at load (constructor below), or at the first init. */
static void omp_load(void)
{
    if (omp_loaded)
        return;
    const char *policy = env_or_unset("OMP_WAIT_POLICY"), *bind = env_or_unset("OMP_PROC_BIND"),
               *places = env_or_unset("OMP_PLACES");
#if OMP_LIBOMP
    /* omp_get_num_procs() completes libomp's initialization: its count of available CPUs comes from
     * the process's affinity mask now, before the engine pins any thread, as in a user's program. */
    omp_cpus = omp_get_num_procs();
    omp_bt_default = kmp_get_blocktime();
    char bt[32];
    if (omp_bt_default == INT_MAX)
        snprintf(bt, sizeof bt, "infinite");
    else
        snprintf(bt, sizeof bt, "%d ms", omp_bt_default);
    snprintf(omp_settings, sizeof omp_settings,
             "LLVM libomp: hyper barrier (gather/release, fan-in 4); waiters spin for the "
             "blocktime, then sleep on a condition variable. KMP_BLOCKTIME=%s OMP_WAIT_POLICY=%s "
             "OMP_PROC_BIND=%s OMP_PLACES=%s; blocktime in effect %s (kmp_get_blocktime), but 0 "
             "while more threads than the %d available CPUs exist and KMP_BLOCKTIME is unset; "
             "documented default 200 ms (0 on hybrid CPUs since LLVM 14; infinite with "
             "OMP_WAIT_POLICY=ACTIVE, 0 with PASSIVE)",
             env_or_unset("KMP_BLOCKTIME"), policy, bind, places, bt, omp_cpus);
#else
    /* libgomp counted its available CPUs in its own constructor, from the same affinity mask */
    cpu_set_t set;
    omp_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    const char *spin = getenv("GOMP_SPINCOUNT"), *eff;
    if (spin)
        eff = "as GOMP_SPINCOUNT says";
    else if (!strcmp(policy, "unset"))
        eff = "300000 spins, 100 when threads > available CPUs";
    else if (!strncasecmp(policy, "active", 6))
        eff = "30 billion spins, 1000 when threads > available CPUs";
    else if (!strncasecmp(policy, "passive", 7))
        eff = "0 spins";
    else
        eff = "libgomp's rule for this OMP_WAIT_POLICY";
    snprintf(omp_settings, sizeof omp_settings,
             "GNU libgomp: centralized barrier (counter + generation word, last arriver "
             "futex_wakes all); waiters spin (pause) up to the spin count, then futex_wait. "
             "GOMP_SPINCOUNT=%s OMP_WAIT_POLICY=%s OMP_PROC_BIND=%s OMP_PLACES=%s; spin count in "
             "effect: %s (libgomp manual, GOMP_SPINCOUNT); %d available CPUs",
             spin ? spin : "unset", policy, bind, places, eff, omp_cpus);
#endif
    omp_loaded = 1;
}

__attribute__((constructor)) static void omp_adapter_load(void)
{
    omp_load();
}

static int omp_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                    size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (n == 0 || n > INT_MAX)
        return EINVAL;
    omp_load();
    struct omp_ctx *c = malloc(sizeof *c);
    if (!c)
        return ENOMEM;
    c->n = n;
    *ctx = c;
    int over = omp_cpus > 0 && n > (unsigned)omp_cpus;
    if (desc && desclen) {
#if OMP_LIBOMP
        /* what kmp_get_blocktime() answers inside this team (checked on this machine) */
        int bt = omp_bt_default;
        if (over && bt != INT_MAX && !getenv("KMP_BLOCKTIME"))
            bt = 0;
        if (bt == INT_MAX)
            snprintf(desc, desclen, "#pragma omp barrier, team of %u (LLVM libomp, blocktime "
                     "infinite)", n);
        else
            snprintf(desc, desclen, "#pragma omp barrier, team of %u (LLVM libomp, blocktime %d ms%s)",
                     n, bt, over ? ": more threads than CPUs" : "");
#else
        snprintf(desc, desclen, "#pragma omp barrier, team of %u (GNU libgomp, %s spin count%s)", n,
                 over ? "throttled" : "full", over ? ": more threads than CPUs" : "");
#endif
    }
    return 0;
}

static void omp_wait(void *ctx, unsigned tid)
{
    (void)ctx;
    (void)tid;
    /* orphaned: binds to the innermost enclosing parallel region, the one omp_team opened */
#pragma omp barrier
}

static void omp_destroy(void *ctx)
{
    free(ctx);
}

/* The runtime's own team: body(tid, arg) on n threads of one parallel region. The team must have
 * exactly n threads (dynamic adjustment off); if the runtime gives fewer (OMP_THREAD_LIMIT, nesting,
 * no resources), no thread runs body and the result is EAGAIN. */
static int omp_team(unsigned n, void (*body)(unsigned tid, void *arg), void *arg)
{
    if (n == 0 || n > INT_MAX)
        return EINVAL;
    omp_set_dynamic(0);
    if (omp_get_thread_limit() < (int)n)
        return EAGAIN;
    int got = 0;
#pragma omp parallel num_threads((int)n) shared(got)
    {
        int size = omp_get_num_threads(), me = omp_get_thread_num();
        if (me == 0)
            got = size; /* read after the region's implicit barrier */
        if (size == (int)n)
            body((unsigned)me, arg);
    }
    return got == (int)n ? 0 : EAGAIN;
}

const struct bench_impl bench_impl_omp = {
    .name = BENCH_OMP_NAME,
    .kind = "baseline",
    .settings = omp_settings,
    .init = omp_init,
    .wait = omp_wait,
    .destroy = omp_destroy,
    .team = omp_team,
};

const struct bench_impl *const bench_impls[] = { &bench_impl_omp, NULL };
