/* kmp_dispatch.c — libomp's dynamically scheduled worksharing loops (`schedule(dynamic)`, `guided`,
 * `auto`, and `runtime` when the run-sched-var names one of them) handed out by the shim for the teams
 * it knows from OMPT.
 *
 * Why: clang emits __kmpc_dispatch_init_* at the start of such a loop and __kmpc_dispatch_next_* for
 * every chunk. libomp 14 as Debian builds it (KMP_DEBUG, see kmp_loop.c) formats trace strings in
 * both, traced or not: several microseconds per loop and per chunk (the `for-dynamic` construct: 5 us
 * under libomp against 1.1 us under libgomp, docs/results.md), more than the loop's barrier.
 *
 * What: the chunks as loops.c hands them out (OpenMP 5.0 §2.9.2): dynamic from one counter per loop
 * instance, in iteration order, or with the nonmonotonic modifier (clang's default for dynamic) from
 * per-thread runs with stealing, as libomp's own static_steal does; guided and auto (the
 * implementation's choice: guided here) in shrinking chunks. The last-iteration flag (lastprivate) is
 * set for the chunk holding the last iteration; a team of one takes the whole range at once.
 * Static kinds reach the dispatcher too (schedule(runtime) with a static run-sched-var, the default):
 * each thread computes its chunks as libomp splits them (served_kind).
 * Left to libomp: ordered loops (their kinds differ, and __kmpc_dispatch_fini_* goes with them),
 * static kinds when KMP_SCHEDULE is set, simd kinds, trip counts of 2^64, threads outside any region the
 * OMPT callbacks delivered, and everything with KMP_CONSISTENCY_CHECK, OMP_CANCELLATION=true (a
 * cancelled loop is left before its counter is exhausted) or ANDGATE_OMP_LOOPS=0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "kmp.h"
#include "preload.h"
#include "team.h"

/* libomp's enum sched_type (kmp.h of the LLVM sources) */
enum { SCHED_STATIC_CHUNKED = 33, SCHED_STATIC = 34, SCHED_DYNAMIC = 35, SCHED_GUIDED = 36, SCHED_RUNTIME = 37,
       SCHED_AUTO = 38, SCHED_GUIDED_ITER = 42, SCHED_GUIDED_ANALYTICAL = 43 };
#define SCHED_NONMONOTONIC (1 << 30)                  /* the chunks may go out in any order */
#define SCHED_MODIFIERS ((1 << 29) | SCHED_NONMONOTONIC) /* monotonic, nonmonotonic */

static struct ag_once once = AG_ONCE_INIT;
static int serving, serving_static;
static void (*get_schedule)(int *, int *);
static _Atomic int told;

static void decide(void)
{
    const struct ag_preload_env *env = ag_preload_env();
    const char *check = getenv("KMP_CONSISTENCY_CHECK");
    int (*cancellation)(void) = (int (*)(void))ag_scope_runtime_sym(AG_SIDE_KMP, "omp_get_cancellation");
    *(void **)&get_schedule = ag_scope_runtime_sym(AG_SIDE_KMP, "omp_get_schedule");
    const char *split = getenv("KMP_SCHEDULE"); /* may select libomp's "greedy" static split */
    serving = env->enabled && env->omp && env->omp_loops && !(check && *check) && cancellation &&
              !cancellation() && get_schedule;
    serving_static = serving && !(split && *split);
}

/* How the shim hands out this loop's chunks (loops.h: AG_LOOP_*; *chunk: the chunk, or the smallest
 * one), or -1: libomp does. Static kinds reach the dispatcher through schedule(runtime) (OMP_SCHEDULE
 * unset means static) and are split as kmp_loop.c splits static loops, which is libomp's split for them
 * too (its owner of every iteration, checked by tests/omp_static.c); left to libomp when KMP_SCHEDULE is
 * set, as kmp_loop.c does. */
static int served_kind(int32_t sched, int64_t *chunk)
{
    switch (sched & ~SCHED_MODIFIERS) {
    case SCHED_STATIC:
        return serving_static ? AG_LOOP_STATIC : -1;
    case SCHED_STATIC_CHUNKED:
        return serving_static ? AG_LOOP_STATIC_CHUNKED : -1;
    case SCHED_DYNAMIC:
        return sched & SCHED_NONMONOTONIC ? AG_LOOP_STEAL : AG_LOOP_DYNAMIC;
    case SCHED_GUIDED:
    case SCHED_GUIDED_ITER:
    case SCHED_GUIDED_ANALYTICAL:
    case SCHED_AUTO:
        return AG_LOOP_GUIDED;
    case SCHED_RUNTIME: { /* clang's chunk argument means nothing here: the ICV carries the chunk */
        int kind = 0, c = 0;
        get_schedule(&kind, &c);
        *chunk = c;
        const int k = ag_loop_runtime_kind(kind, c, sched & SCHED_NONMONOTONIC, AG_LOOP_GUIDED);
        return (k == AG_LOOP_STATIC || k == AG_LOOP_STATIC_CHUNKED) && !serving_static ? -1 : k;
    }
    default:
        return -1;
    }
}

/* Begin a loop in the calling thread's team: 1 when the shim serves it (loops.c). */
static int begin(struct ag_team_ctx *c, int kind, uint64_t trip, int64_t chunk, uint64_t lb, int64_t st)
{
    if (!ag_loop_begin(c, kind, trip, chunk, lb, st))
        return 0;
    if (!atomic_load_explicit(&told, memory_order_relaxed) && !atomic_exchange(&told, 1))
        ag_preload_verbose("andgate-preload: libomp's dynamic, guided, auto and runtime loops handed out by the "
                           "shim\n");
    return 1;
}

/* The calling thread's team context when the shim may serve its loops. */
static struct ag_team_ctx *loop_ctx(void)
{
    ag_once(&once, decide);
    if (!serving)
        return NULL;
    struct ag_team_ctx *c = ag_kmp_team();
    if (c)
        c->loop.active = 0; /* a loop libomp serves unless begin() says otherwise */
    return c && c->n >= 1 && c->tid < c->n ? c : NULL;
}

#define REAL(sfx, T, S)                                                                                    \
    static void (*real_init_##sfx)(void *, int32_t, int32_t, T, T, S, S);                                  \
    static int32_t (*real_next_##sfx)(void *, int32_t, int32_t *, T *, T *, S *);
REAL(4, int32_t, int32_t)
REAL(4u, uint32_t, int32_t)
REAL(8, int64_t, int64_t)
REAL(8u, uint64_t, int64_t)
static struct ag_once resolved = AG_ONCE_INIT;

static void resolve(void)
{
#define RESOLVE(sfx)                                                                                       \
    *(void **)&real_init_##sfx = ag_scope_sym(AG_SIDE_KMP, "__kmpc_dispatch_init_" #sfx);               \
    *(void **)&real_next_##sfx = ag_scope_sym(AG_SIDE_KMP, "__kmpc_dispatch_next_" #sfx);
    RESOLVE(4) RESOLVE(4u) RESOLVE(8) RESOLVE(8u)
#undef RESOLVE
}

#define DISPATCH(sfx, T, U, S)                                                                             \
    void __kmpc_dispatch_init_##sfx(void *loc, int32_t gtid, int32_t sched, T lb, T ub, S st, S chunk)     \
    {                                                                                                      \
        AG_KMP_FORWARD_VOID(__kmpc_dispatch_init_##sfx, loc, gtid, sched, lb, ub, st, chunk);              \
        struct ag_team_ctx *c = loop_ctx();                                                                \
        int64_t ch = chunk;                                                                                \
        int kind = c && st != 0 ? served_kind(sched, &ch) : -1;                                            \
        if (kind >= 0) {                                                                                   \
            const int up = st > 0;                                                                         \
            const U range = up ? (U)ub - (U)lb : (U)lb - (U)ub, step = up ? (U)st : (U)0 - (U)st;          \
            const int none = up ? ub < lb : lb < ub;                                                       \
            /* 2^64 iterations do not fit the counter: libomp's (only a full 64-bit range by 1) */         \
            if ((none || sizeof(U) < 8 || range / step != (U)-1) &&                                         \
                begin(c, kind, none ? 0 : (uint64_t)(range / step) + 1, ch, (uint64_t)(U)lb, (int64_t)st))  \
                return;                                                                                    \
        }                                                                                                  \
        ag_once(&resolved, resolve);                                                                       \
        real_init_##sfx(loc, gtid, sched, lb, ub, st, chunk);                                              \
    }                                                                                                      \
    int32_t __kmpc_dispatch_next_##sfx(void *loc, int32_t gtid, int32_t *last, T *lo, T *up, S *stride)     \
    {                                                                                                      \
        AG_KMP_FORWARD(__kmpc_dispatch_next_##sfx, loc, gtid, last, lo, up, stride);                      \
        struct ag_team_ctx *c = ag_kmp_team();                                                             \
        if (c && c->loop.active) {                                                                         \
            struct ag_loop_cur *l = &c->loop;                                                              \
            uint64_t first, end;                                                                           \
            if (!ag_loop_take(l, &first, &end)) {                                                          \
                ag_loop_finish(l);                                                                         \
                return 0;                                                                                  \
            }                                                                                              \
            *lo = (T)((U)l->lb + (U)first * (U)l->st);                                                     \
            *up = (T)((U)l->lb + (U)(end - 1) * (U)l->st);                                                 \
            if (stride)                                                                                    \
                *stride = (S)l->st;                                                                        \
            if (last)                                                                                      \
                *last = end == l->trip;                                                                    \
            return 1;                                                                                      \
        }                                                                                                  \
        ag_once(&resolved, resolve);                                                                       \
        return real_next_##sfx(loc, gtid, last, lo, up, stride);                                           \
    }
DISPATCH(4, int32_t, uint32_t, int32_t)
DISPATCH(4u, uint32_t, uint32_t, int32_t)
DISPATCH(8, int64_t, uint64_t, int64_t)
DISPATCH(8u, uint64_t, uint64_t, int64_t)
