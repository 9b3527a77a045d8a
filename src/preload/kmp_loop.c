/* kmp_loop.c — the start of libomp's static worksharing loops (__kmpc_for_static_init_{4,4u,8,8u}),
 * computed by the shim for the teams it knows from OMPT.
 *
 * Why: libomp 14 as Debian ships it is built with KMP_DEBUG, and its static-loop start formats three
 * trace strings (a vsnprintf and a malloc/free each) on every call, traced or not: about 0.5 µs per
 * loop, more than the loop's barrier. clang emits this call at the start of every `for` with a static
 * schedule and every `sections`, so a barrier-bound kernel pays it once per barrier.
 *
 * What: the partition libomp itself makes (OpenMP 5.0 §2.9.2 fixes only "chunks of about equal size,
 * at most one per thread, in thread order" for schedule(static); the exact split is libomp's default,
 * "balanced": trip / n iterations per thread and one more for the first trip % n threads, in thread
 * order; schedule(static, c): chunks of c dealt round-robin). Same bounds, stride and last-iteration
 * flag as libomp, so a program that (non-conformingly) depends on libomp's split sees no change;
 * tests/omp_semantics.c compares the owner of every iteration with and without the shim.
 * Served: schedule kinds static (34) and static-chunked (33), with or without the (non)monotonic
 * modifier, in a thread whose innermost implicit task the OMPT callbacks delivered (kmp.c), any team
 * size. Left to libomp: other kinds (distribute, balanced-chunked), an increment of 0, threads outside
 * any region or deeper than kmp.c tracks, and everything when KMP_SCHEDULE (which may select libomp's
 * "greedy" split) or KMP_CONSISTENCY_CHECK is set, or ANDGATE_OMP_LOOPS=0.
 * __kmpc_for_static_fini stays libomp's: without the consistency check it only reports to OMPT tools,
 * and the shim is the only tool when it serves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "kmp.h"
#include "preload.h"
#include "team.h"

enum { SCHED_STATIC_CHUNKED = 33, SCHED_STATIC = 34 };
#define SCHED_MODIFIERS ((1 << 29) | (1 << 30)) /* monotonic, nonmonotonic: no effect on a static split */

static struct ag_once once = AG_ONCE_INIT;
static int serving;

static void decide(void)
{
    const char *sched = getenv("KMP_SCHEDULE"), *check = getenv("KMP_CONSISTENCY_CHECK");
    serving = ag_preload_env()->enabled && ag_preload_env()->omp && ag_preload_env()->omp_loops &&
              !(sched && *sched) && !(check && *check);
}

/* The calling thread's team (size and index), or NULL: libomp computes this loop's bounds. */
static inline const struct ag_team_ctx *loop_team(int32_t sched, int64_t incr)
{
    ag_once(&once, decide);
    sched &= ~SCHED_MODIFIERS;
    if (!serving || incr == 0 || (sched != SCHED_STATIC && sched != SCHED_STATIC_CHUNKED))
        return NULL;
    const struct ag_team_ctx *c = ag_kmp_place();
    return c && c->n >= 1 ? c : NULL;
}

/* One partition per type. T is the loop variable's type, U its unsigned twin, S the signed type of
 * the increment and stride. Sums and products are taken in U (wrapping, as libomp's do), comparisons
 * in T. On return [*lo, *up] is this thread's first chunk (empty: *lo past *up in the loop's
 * direction), *stride the distance to its next chunk, *last whether it runs the last iteration. */
#define PARTITION(sfx, T, U, S)                                                                            \
    /* schedule(static, c): chunks of c iterations dealt round-robin from thread 0 */                     \
    static void chunked_##sfx(unsigned tid, unsigned n, U trip, T none, int32_t *last, T *lo, T *up,        \
                              S *stride, S incr, S chunk)                                                  \
    {                                                                                                      \
        U c = chunk < 1 ? 1 : (U)chunk > trip ? trip : (U)chunk;                                           \
        U chunks = trip / c + (trip % c != 0), span = c * (U)incr;                                         \
        *stride = (S)(span * (chunks < n ? chunks : n));                                                   \
        if (chunks < n && tid >= chunks) {                                                                 \
            *lo = none;                                                                                    \
        } else {                                                                                           \
            *lo = (T)((U)*lo + span * tid);                                                                \
            *up = (T)((U)*lo + span - (U)incr);                                                            \
        }                                                                                                  \
        if (last)                                                                                          \
            *last = tid == (chunks - 1) % n;                                                               \
    }                                                                                                      \
    /* schedule(static): one contiguous block per thread, trip / n iterations, one more for the first      \
     * trip % n threads (libomp's "balanced" split); one iteration each when trip < n */                  \
    static void blocked_##sfx(unsigned tid, unsigned n, U trip, T none, int32_t *last, T *lo, T *up,        \
                              S *stride, S incr)                                                           \
    {                                                                                                      \
        *stride = (S)trip;                                                                                 \
        if (trip < n) {                                                                                    \
            if (tid < trip)                                                                                \
                *lo = *up = (T)((U)*lo + (U)tid * (U)incr);                                                \
            else                                                                                           \
                *lo = none;                                                                                \
            if (last)                                                                                      \
                *last = tid == trip - 1;                                                                   \
            return;                                                                                        \
        }                                                                                                  \
        const U small = trip / n, extras = trip % n;                                                       \
        *lo = (T)((U)*lo + (U)incr * ((U)tid * small + (tid < extras ? tid : extras)));                    \
        *up = (T)((U)*lo + small * (U)incr - (tid < extras ? 0 : (U)incr));                                \
        if (last)                                                                                          \
            *last = tid == n - 1;                                                                          \
    }                                                                                                      \
    static void partition_##sfx(unsigned tid, unsigned n, int32_t sched, int32_t *last, T *lo, T *up,       \
                                S *stride, S incr, S chunk)                                                \
    {                                                                                                      \
        const T first = *lo, end = *up;                                                                    \
        const int up_dir = incr > 0;                                                                       \
        if (up_dir ? end < first : first < end) { /* no iteration: bounds untouched */                     \
            if (last)                                                                                      \
                *last = 0;                                                                                 \
            *stride = incr;                                                                                \
            return;                                                                                        \
        }                                                                                                  \
        const U range = up_dir ? (U)end - (U)first : (U)first - (U)end;                                    \
        if (n == 1) { /* the whole range */                                                                \
            if (last)                                                                                      \
                *last = 1;                                                                                 \
            *stride = up_dir ? (S)(range + 1) : (S) - (range + 1);                                         \
            return;                                                                                        \
        }                                                                                                  \
        const U trip = range / (up_dir ? (U)incr : (U)-incr) + 1;                                          \
        const T none = (T)((U)end + (up_dir ? 1 : (U)-1)); /* a lower bound past the end: no iteration */ \
        if ((sched & ~SCHED_MODIFIERS) == SCHED_STATIC_CHUNKED)                                            \
            chunked_##sfx(tid, n, trip, none, last, lo, up, stride, incr, chunk);                          \
        else                                                                                               \
            blocked_##sfx(tid, n, trip, none, last, lo, up, stride, incr);                                 \
    }
PARTITION(4, int32_t, uint32_t, int32_t)
PARTITION(4u, uint32_t, uint32_t, int32_t)
PARTITION(8, int64_t, uint64_t, int64_t)
PARTITION(8u, uint64_t, uint64_t, int64_t)

typedef void (*init4_t)(void *, int32_t, int32_t, int32_t *, int32_t *, int32_t *, int32_t *, int32_t, int32_t);
typedef void (*init4u_t)(void *, int32_t, int32_t, int32_t *, uint32_t *, uint32_t *, int32_t *, int32_t, int32_t);
typedef void (*init8_t)(void *, int32_t, int32_t, int32_t *, int64_t *, int64_t *, int64_t *, int64_t, int64_t);
typedef void (*init8u_t)(void *, int32_t, int32_t, int32_t *, uint64_t *, uint64_t *, int64_t *, int64_t, int64_t);
static init4_t real_4;
static init4u_t real_4u;
static init8_t real_8;
static init8u_t real_8u;
static struct ag_once resolved = AG_ONCE_INIT;

static void resolve(void)
{
    *(void **)&real_4 = ag_scope_sym(AG_SIDE_KMP, "__kmpc_for_static_init_4");
    *(void **)&real_4u = ag_scope_sym(AG_SIDE_KMP, "__kmpc_for_static_init_4u");
    *(void **)&real_8 = ag_scope_sym(AG_SIDE_KMP, "__kmpc_for_static_init_8");
    *(void **)&real_8u = ag_scope_sym(AG_SIDE_KMP, "__kmpc_for_static_init_8u");
}

#define STATIC_INIT(sym, suffix, T, S)                                                                     \
    void sym(void *loc, int32_t gtid, int32_t sched, int32_t *last, T *lo, T *up, S *stride, S incr, S chunk) \
    {                                                                                                      \
        AG_KMP_FORWARD_VOID(sym, loc, gtid, sched, last, lo, up, stride, incr, chunk);                    \
        const struct ag_team_ctx *c = loop_team(sched, incr);                                              \
        if (c) {                                                                                           \
            partition_##suffix(c->tid, c->n, sched, last, lo, up, stride, incr, chunk);                    \
            return;                                                                                        \
        }                                                                                                  \
        ag_once(&resolved, resolve);                                                                       \
        real_##suffix(loc, gtid, sched, last, lo, up, stride, incr, chunk);                                \
    }
STATIC_INIT(__kmpc_for_static_init_4, 4, int32_t, int32_t)
STATIC_INIT(__kmpc_for_static_init_4u, 4u, uint32_t, int32_t)
STATIC_INIT(__kmpc_for_static_init_8, 8, int64_t, int64_t)
STATIC_INIT(__kmpc_for_static_init_8u, 8u, uint64_t, int64_t)
