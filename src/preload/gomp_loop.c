/* gomp_loop.c — libgomp's dynamically scheduled loops (schedule(dynamic), guided and runtime, monotonic
 * or not, long and unsigned long long) and `sections` handed out by the shim in the teams gomp.c serves
 * (loops.c: how).
 *
 * Why: libgomp starts each such loop with a work share that the first thread to arrive allocates and
 * initialises while the others wait for it, and hands out every chunk from one counter. The shim's
 * barriers bring the team to a loop together, so they meet there; and one counter deals consecutive
 * chunks to alternate threads, so a thread's chunks are seldom the iterations it wrote in the static
 * loop before (vcode's permute on 2 CPUs: the scatter's stores wait on lines the other core holds).
 * gcc emits the nonmonotonic entry points for a plain schedule(dynamic) (OpenMP 5.0 §2.9.2: the order
 * is then unspecified), which the shim serves with per-thread runs and stealing (AG_LOOP_STEAL).
 *
 * How: GOMP_loop_*_start begins the team's next loop instance and returns the first chunk, *_next the
 * following ones; the loop's end (GOMP_loop_end, gomp.c, or GOMP_loop_end_nowait here) then skips
 * libgomp's work-share bookkeeping, as libgomp never saw the loop. A chunk is [istart, iend) in the
 * loop variable's values; the last chunk ends at the end value gcc passed, as libgomp's does.
 * Combined GOMP_parallel_loop_* regions: gomp.c starts a plain region, and every thread sets the loop up
 * (ag_gomp_loop_setup) before the region's function asks for its first chunk.
 * Left to libgomp: loops outside a served team (orphaned, a team of one, unwrapped regions); static and
 * ordered schedules (gcc inlines static ones),
 * GOMP_loop_start (loops with task reductions), GOMP_sections2_start (sections with reductions) and
 * GOMP_loop_doacross_*; chunks above INT64_MAX; a
 * run-sched-var of a kind libgomp added beyond OpenMP's four; everything when
 * OMP_CANCELLATION=true (a cancelled loop is left before its chunks are exhausted) or
 * ANDGATE_OMP_LOOPS=0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gomp.h"
#include "preload.h"

static struct ag_once once = AG_ONCE_INIT;
static int serving;
static _Atomic int told;
static void (*real_end_nowait)(void);
static void (*get_schedule)(int *, int *);
static bool (*real_loop_start)(long, long, long, long, long, long *, long *, uintptr_t *, void **);

static void decide(void)
{
    const struct ag_preload_env *env = ag_preload_env();
    int (*cancellation)(void) = (int (*)(void))ag_scope_runtime_sym(AG_SIDE_GOMP, "omp_get_cancellation");
    *(void **)&real_end_nowait = ag_scope_sym(AG_SIDE_GOMP, "GOMP_loop_end_nowait");
    *(void **)&get_schedule = ag_scope_runtime_sym(AG_SIDE_GOMP, "omp_get_schedule");
    /* libgomp 9 on: combined regions */
    *(void **)&real_loop_start = ag_scope_sym(AG_SIDE_GOMP, "GOMP_loop_start");
    serving = env->enabled && env->gomp && env->omp_loops && cancellation && !cancellation() && real_end_nowait &&
              get_schedule;
}

struct ag_team_ctx *ag_gomp_loop_ctx(void)
{
    ag_once(&once, decide);
    return serving ? ag_gomp_team() : NULL;
}

/* Begin the loop in c's team (shared: as ag_loop_begin_shared): 1 when the shim serves it. */
static int begin_loop(struct ag_team_ctx *c, int kind, uint64_t trip, uint64_t chunk, uint64_t lb, int64_t st,
                      uint64_t end, int shared)
{
    int (*loop_begin)(struct ag_team_ctx *, int, uint64_t, int64_t, uint64_t, int64_t) =
        shared ? ag_loop_begin_shared : ag_loop_begin;
    if (chunk > INT64_MAX || !loop_begin(c, kind, trip, (int64_t)chunk, lb, st))
        return 0;
    c->loop.ours = 1, c->loop.hi = end;
    c->loop.shares = c->loop.n; /* guided chunks as libgomp cuts them: the unassigned iterations over n */
    if (!atomic_load_explicit(&told, memory_order_relaxed) && !atomic_exchange(&told, 1))
        ag_preload_verbose("andgate-preload: libgomp's dynamic, guided and runtime loops handed out by the "
                           "shim\n");
    return 1;
}

static int begin(struct ag_team_ctx *c, int kind, uint64_t trip, uint64_t chunk, uint64_t lb, int64_t st,
                 uint64_t end)
{
    return begin_loop(c, kind, trip, chunk, lb, st, end, 0);
}

int ag_gomp_doacross_begin(struct ag_team_ctx *c, int kind, uint64_t trip, uint64_t chunk)
{
    return begin_loop(c, kind, trip, chunk, 0, 1, trip, 1);
}

/* The thread's next chunk as loop values [*first, *end), or false when it has none left. */
bool ag_gomp_loop_next(struct ag_loop_cur *l, uint64_t *first, uint64_t *end)
{
    uint64_t a, b;
    if (!ag_loop_take(l, &a, &b)) {
        ag_loop_finish(l);
        return false;
    }
    *first = l->lb + a * (uint64_t)l->st;
    *end = b == l->trip ? l->hi : l->lb + b * (uint64_t)l->st;
    return true;
}

/* Iterations from start while below end (up) or above it, by steps of magnitude mag. */
static inline uint64_t trip_of(bool up, uint64_t start, uint64_t end, uint64_t mag, bool more)
{
    return more ? ((up ? end - start : start - end) - 1) / mag + 1 : 0;
}

/* schedule(runtime): the kind the run-sched-var names (OMP_SCHEDULE, omp_set_schedule; libgomp's
 * default is dynamic, 1), *chunk its chunk; -1: libgomp's. Static kinds are split as gcc splits an
 * inlined schedule(static) loop (loops.c's static splits are the same), so a static runtime loop and a
 * static loop of the same trip count give every thread the same iterations, as OpenMP 5.0 §2.9.2
 * requires; auto is static without a chunk, as libgomp runs it. Every thread reads its own ICV: like
 * libgomp, this takes a team whose threads disagree on it (omp_set_schedule inside the region) to be
 * outside OpenMP. */
int ag_gomp_runtime_kind(int nonmonotonic, int64_t *chunk)
{
    int kind = 0, c = 0;
    get_schedule(&kind, &c);
    *chunk = c;
    return ag_loop_runtime_kind(kind, c, nonmonotonic, AG_LOOP_STATIC);
}

/* Begin a long loop from start while below end (incr > 0) or above it (incr < 0) in c's team, without
 * taking a chunk: 1, or 0 when libgomp must run it. */
static int setup_long(struct ag_team_ctx *c, int kind, int64_t chunk, long start, long end, long incr)
{
    if (!c || !incr || kind < 0)
        return 0;
    const bool up = incr > 0;
    const uint64_t mag = up ? (uint64_t)incr : 0 - (uint64_t)incr;
    const uint64_t trip = trip_of(up, (uint64_t)start, (uint64_t)end, mag, up ? start < end : start > end);
    return begin(c, kind, trip, chunk < 1 ? 1 : (uint64_t)chunk, (uint64_t)start, incr, (uint64_t)end);
}

/* The same, and the thread's first chunk: true or false (none), or -1 when libgomp must run it. */
static int start_long(struct ag_team_ctx *c, int kind, int64_t chunk, long start, long end, long incr,
                      long *istart, long *iend)
{
    if (!setup_long(c, kind, chunk, start, end, incr))
        return -1;
    return ag_gomp_loop_next(&c->loop, (uint64_t *)istart, (uint64_t *)iend);
}

/* The same for unsigned long long: up tells the direction, incr is the step's two's complement when down */
typedef unsigned long long ull;
static int start_ull(struct ag_team_ctx *c, int kind, ull chunk, bool up, ull start, ull end, ull incr,
                     ull *istart, ull *iend)
{
    if (!c || !incr || kind < 0)
        return -1;
    const uint64_t trip = trip_of(up, start, end, up ? incr : 0 - incr, up ? start < end : start > end);
    if (!begin(c, kind, trip, chunk < 1 ? 1 : chunk, start, (int64_t)incr, end))
        return -1;
    return ag_gomp_loop_next(&c->loop, (uint64_t *)istart, (uint64_t *)iend);
}

#define REAL(name, ...)                                                                                    \
    static bool (*real)(__VA_ARGS__);                                                                      \
    if (!real)                                                                                             \
        *(void **)&real = ag_scope_sym(AG_SIDE_GOMP, name)

/* The next chunk: the shim's while the thread is in a loop of its own, else libgomp's */
#define NEXT(sfx, T)                                                                                       \
    bool GOMP_loop_##sfx##_next(T *istart, T *iend)                                                        \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_next, istart, iend);                                             \
        struct ag_team_ctx *c = ag_gomp_loop_team();                                                       \
        if (c && c->loop.active)                                                                           \
            return ag_gomp_loop_next(&c->loop, (uint64_t *)istart, (uint64_t *)iend);                      \
        REAL("GOMP_loop_" #sfx "_next", T *, T *);                                                         \
        return real(istart, iend);                                                                         \
    }

#define CHUNKED(name, KIND)                                                                                \
    bool GOMP_loop_##name##_start(long start, long end, long incr, long chunk, long *istart, long *iend)   \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##name##_start, start, end, incr, chunk, istart, iend);                  \
        int r = start_long(ag_gomp_loop_ctx(), KIND, chunk, start, end, incr, istart, iend);               \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL("GOMP_loop_" #name "_start", long, long, long, long, long *, long *);                         \
        return real(start, end, incr, chunk, istart, iend);                                                \
    }                                                                                                      \
    NEXT(name, long)                                                                                       \
    bool GOMP_loop_ull_##name##_start(bool up, ull start, ull end, ull incr, ull chunk, ull *istart,       \
                                      ull *iend)                                                           \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_ull_##name##_start, up, start, end, incr, chunk, istart, iend);          \
        int r = start_ull(ag_gomp_loop_ctx(), KIND, chunk, up, start, end, incr, istart, iend);            \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL("GOMP_loop_ull_" #name "_start", bool, ull, ull, ull, ull, ull *, ull *);                     \
        return real(up, start, end, incr, chunk, istart, iend);                                            \
    }                                                                                                      \
    NEXT(ull_##name, ull)
NEXT(static, long) /* libgomp's own static loops, and the shim's doacross ones (gomp_doacross.c) */
NEXT(ull_static, ull)
CHUNKED(dynamic, AG_LOOP_DYNAMIC)
CHUNKED(guided, AG_LOOP_GUIDED)
CHUNKED(nonmonotonic_dynamic, AG_LOOP_STEAL)
CHUNKED(nonmonotonic_guided, AG_LOOP_GUIDED)

/* schedule(runtime): no chunk argument (the ICV has it); NM: the entry allows any order */
#define RUNTIME(name, NM)                                                                                  \
    bool GOMP_loop_##name##_start(long start, long end, long incr, long *istart, long *iend)               \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##name##_start, start, end, incr, istart, iend);                         \
        struct ag_team_ctx *c = ag_gomp_loop_ctx();                                                        \
        int64_t ch = 0;                                                                                    \
        const int kind = c ? ag_gomp_runtime_kind(NM, &ch) : -1; /* before ch is read */                   \
        int r = start_long(c, kind, ch, start, end, incr, istart, iend);                                   \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL("GOMP_loop_" #name "_start", long, long, long, long *, long *);                               \
        return real(start, end, incr, istart, iend);                                                       \
    }                                                                                                      \
    NEXT(name, long)                                                                                       \
    bool GOMP_loop_ull_##name##_start(bool up, ull start, ull end, ull incr, ull *istart, ull *iend)       \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_ull_##name##_start, up, start, end, incr, istart, iend);                 \
        struct ag_team_ctx *c = ag_gomp_loop_ctx();                                                        \
        int64_t ch = 0;                                                                                    \
        const int kind = c ? ag_gomp_runtime_kind(NM, &ch) : -1;                                           \
        int r = start_ull(c, kind, (ull)ch, up, start, end, incr, istart, iend);                           \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL("GOMP_loop_ull_" #name "_start", bool, ull, ull, ull, ull *, ull *);                          \
        return real(up, start, end, incr, istart, iend);                                                   \
    }                                                                                                      \
    NEXT(ull_##name, ull)
RUNTIME(runtime, 0)
RUNTIME(nonmonotonic_runtime, 1)
RUNTIME(maybe_nonmonotonic_runtime, 1)

/* Combined regions (gomp.h): gomp.c starts them as plain regions when the shim hands out loops, and each
 * thread sets the loop up here. A team the shim does not serve (a team of one, andgate unable to serve
 * it) gets libgomp's work share from GOMP_loop_start, which with no istart takes no chunk — the same
 * answer in every thread of the team, as the team's context is. */
int ag_gomp_loops_on(void)
{
    ag_once(&once, decide);
    return serving && real_loop_start;
}

void ag_gomp_loop_setup(const struct ag_gomp_loop *L)
{
    struct ag_team_ctx *c = ag_gomp_loop_ctx();
    int64_t ch = L->chunk;
    const int kind =
        c && L->kind == AG_GOMP_LOOP_RUNTIME ? ag_gomp_runtime_kind(L->nonmonotonic, &ch) : L->kind;
    if (!setup_long(c, kind, ch, L->start, L->end, L->incr))
        real_loop_start(L->start, L->end, L->incr, L->sched, L->chunk, NULL, NULL, NULL, NULL);
}

/* sections: section numbers 1..count, one at a time to whichever thread asks (a dynamic loop of chunk 1;
 * 0: none left). Combined GOMP_parallel_sections regions stay libgomp's: GOMP_sections2_start, the
 * only way to set sections up in a team the shim does not serve, takes a section. */
unsigned GOMP_sections_start(unsigned count)
{
    AG_GOMP_FORWARD(GOMP_sections_start, count);
    struct ag_team_ctx *c = ag_gomp_loop_ctx();
    uint64_t first, end;
    if (c && begin(c, AG_LOOP_DYNAMIC, count, 1, 1, 1, (uint64_t)count + 1))
        return ag_gomp_loop_next(&c->loop, &first, &end) ? (unsigned)first : 0;
    static unsigned (*real)(unsigned);
    if (!real)
        *(void **)&real = ag_scope_sym(AG_SIDE_GOMP, "GOMP_sections_start");
    return real(count);
}

unsigned GOMP_sections_next(void)
{
    AG_GOMP_FORWARD(GOMP_sections_next);
    struct ag_team_ctx *c = ag_gomp_loop_team();
    uint64_t first, end;
    if (c && c->loop.active)
        return ag_gomp_loop_next(&c->loop, &first, &end) ? (unsigned)first : 0;
    static unsigned (*real)(void);
    if (!real)
        *(void **)&real = ag_scope_sym(AG_SIDE_GOMP, "GOMP_sections_next");
    return real();
}

/* A nowait end (libgomp's *real, looked up as name): nothing for a loop or sections of the shim's, which
 * libgomp never saw; the blocking ends are gomp.c's. */
static void end_nowait(void (**real)(void), const char *name)
{
    struct ag_team_ctx *c = ag_gomp_loop_team();
    if (c) {
        c->loop.ours = 0;
        return;
    }
    if (!*real)
        *(void **)real = ag_scope_sym(AG_SIDE_GOMP, name);
    (*real)();
}

void GOMP_sections_end_nowait(void)
{
    AG_GOMP_FORWARD_VOID(GOMP_sections_end_nowait);
    static void (*real)(void);
    end_nowait(&real, "GOMP_sections_end_nowait");
}

void GOMP_loop_end_nowait(void)
{
    AG_GOMP_FORWARD_VOID(GOMP_loop_end_nowait);
    ag_once(&once, decide);
    end_nowait(&real_end_nowait, "GOMP_loop_end_nowait");
}
