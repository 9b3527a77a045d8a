/* gomp.c — libgomp's barriers (gcc's OpenMP) served by andgate.
 *
 * Regions: GOMP_parallel and the combined GOMP_parallel_loop_* / GOMP_parallel_sections entry points
 * are wrapped; the region's function runs through a trampoline that gives each team thread a context
 * (team.h): the team's andgate barrier, made once per (master thread, level, team size) and reused by
 * every later region of that shape, and the thread's index omp_get_thread_num(). Per region and
 * thread that costs a few thread-local stores; at the region's first barrier two calls into libgomp
 * and a lookup in a short list; per barrier, one check.
 *
 * Barriers served inside such regions (teams of two or more threads):
 *   GOMP_barrier         explicit barriers, and what gcc emits after static loops, single, reductions
 *   GOMP_loop_end        the end of dynamic / guided / runtime / ordered loops: GOMP_loop_end_nowait
 *                        (libgomp's bookkeeping of the loop: the last thread out frees its work share)
 *                        and then the andgate barrier — what GOMP_loop_end does with libgomp's barrier
 *   GOMP_sections_end    likewise through GOMP_sections_end_nowait
 * Loops: the chunks of dynamic, guided and runtime loops, and sections, are handed out by gomp_loop.c
 * (no libgomp work share); a combined GOMP_parallel_loop_* region of those schedules is started as a
 * plain region whose threads set the loop up first.
 * Tasks and cancelled constructs: only libgomp can run deferred tasks at a barrier, and only its barrier
 * clears a cancelled loop's or sections' mark. From the first barrier that a deferred task (GOMP_task,
 * GOMP_taskloop, a nowait target construct) or a cancelled worksharing construct precedes, the team takes
 * libgomp's barrier for the rest of the region (gomp_task.c, team_tasks.c).
 * Left to libgomp (the ABI gives no way in, or OpenMP needs libgomp there): the join at the end of a
 * region (inside GOMP_parallel, with the pool's thread management); the cancellable variants
 * (GOMP_barrier_cancel, GOMP_loop_end_cancel, GOMP_sections_end_cancel: cancellation points that
 * libgomp must be able to release); the barriers inside and after a single with copyprivate
 * (GOMP_single_copy_*, below);
 * regions entered through GOMP_parallel_start (gcc before 4.9), GOMP_parallel_reductions and
 * GOMP_teams_reg — a barrier there finds no context of its level and goes to libgomp; and the regions of
 * a host `target` inside a region of the shim's, where the levels start afresh (the thread's context is
 * set aside while they run: aside()).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "preload.h"
#include "gomp.h"

typedef void (*fn_t)(void *);
static void (*real_barrier)(void), (*real_loop_end)(void), (*real_loop_end_nowait)(void);
static void (*real_sections_end)(void), (*real_sections_end_nowait)(void);
static void (*real_parallel)(fn_t, void *, unsigned, unsigned);
static void *(*real_copy_start)(void);
static void (*real_copy_end)(void *);
static int (*omp_threads)(void), (*omp_thread)(void);
int (*ag_gomp_omp_level)(void);
struct ag_once ag_gomp_once = AG_ONCE_INIT;
static int enabled;
static const char *runtime; /* whose GOMP_* entry points (gomp_runtime): the teams' wait policy */
AG_TLS struct ag_team_ctx *ag_gomp_cur;
AG_TLS int ag_gomp_starting;

#define REAL(name) ag_scope_sym(AG_SIDE_GOMP, name)

/* The runtime whose GOMP_* entry points the program calls: "libgomp", or "libomp" when they are libomp's
 * (its compatibility layer, for objects gcc or gfortran compiled and linked with libomp, as Intel's
 * libiomp5 has too): the object that defines GOMP_parallel also defines __kmpc_fork_call (a process may
 * hold both runtimes; each entry point is then the first definition in load order). A team's waits follow
 * that runtime's policy (team.c runtime_wait). NULL without a GOMP_parallel. Not at load: a symbol lookup
 * that fails allocates its error message, and the program's heap must be at main as it would be without
 * the shim (tests/omp_heap.sh); ag_scope_sym frees the message again. */
static const char *gomp_runtime(void)
{
    void *gomp = REAL("GOMP_parallel"), *kmp = REAL("__kmpc_fork_call");
    Dl_info g, k;
    if (!gomp)
        return NULL;
    if (kmp && dladdr(gomp, &g) && dladdr(kmp, &k) && g.dli_fbase == k.dli_fbase)
        return "libomp";
    return "libgomp";
}

static void resolve(void)
{
    *(void **)&real_barrier = REAL("GOMP_barrier");
    *(void **)&real_loop_end = REAL("GOMP_loop_end");
    *(void **)&real_loop_end_nowait = REAL("GOMP_loop_end_nowait");
    *(void **)&real_sections_end = REAL("GOMP_sections_end");
    *(void **)&real_sections_end_nowait = REAL("GOMP_sections_end_nowait");
    *(void **)&real_parallel = REAL("GOMP_parallel");
    *(void **)&real_copy_start = REAL("GOMP_single_copy_start");
    *(void **)&real_copy_end = REAL("GOMP_single_copy_end");
    *(void **)&omp_threads = ag_scope_runtime_sym(AG_SIDE_GOMP, "omp_get_num_threads");
    *(void **)&omp_thread = ag_scope_runtime_sym(AG_SIDE_GOMP, "omp_get_thread_num");
    *(void **)&ag_gomp_omp_level = ag_scope_runtime_sym(AG_SIDE_GOMP, "omp_get_level");
    ag_gomp_task_resolve();
    enabled = ag_preload_env()->enabled && ag_preload_env()->gomp && real_barrier && real_loop_end &&
              real_copy_start && real_copy_end &&
              real_loop_end_nowait && real_sections_end && real_sections_end_nowait && omp_threads && omp_thread &&
              ag_gomp_omp_level;
    runtime = gomp_runtime();
    if (!runtime) /* no GOMP_parallel (a libgomp before GCC 4.9): its barriers are still libgomp's */
        runtime = "libgomp";
    if (enabled)
        ag_team_warm(runtime);
}

void ag_gomp_resolve(void)
{
    ag_once(&ag_gomp_once, resolve);
}

/* ---- regions ---- */

/* In every team thread: the trampoline's argument is the region's record (team.h), which names the
 * region's function and argument and the team's set; the master wrote it only if it was not among the
 * set's last few regions, so a region run again costs no miss. The team's size and the thread's index
 * are asked for at the region's first barrier (omp_get_num_threads reads libgomp's team structure,
 * which the master has just rewritten): a region without barriers or a loop of the shim's pays nothing
 * for the shim but this trampoline (a combined loop region asks at once: its loop needs the team). */
static void run_region(const struct ag_team_region *r, const struct ag_gomp_loop *loop)
{
    struct ag_team_ctx ctx, *outer = ag_gomp_cur;
    ag_gomp_starting = 0; /* the runtime has started the team (gomp.h): in the master, which set it */
    /* the rest at its first use: resolved(); noted too, which GOMP_task reads before that */
    ctx.set = r->set, ctx.level = r->level, ctx.resolved = 0, ctx.noted = 0;
    ag_gomp_cur = &ctx;
    if (loop)
        ag_gomp_loop_setup(loop);
    r->fn(r->data);
    ag_gomp_cur = outer; /* the thread is back in the enclosing team (or none) */
}

static void trampoline(void *arg)
{
    run_region(arg, NULL);
}

/* A combined loop region started as a plain one: its record and its loop, on the master's stack, which
 * lives until the region has joined. */
struct combined {
    const struct ag_team_region *r;
    struct ag_gomp_loop loop;
};

static void trampoline_loop(void *arg)
{
    const struct combined *cb = arg;
    run_region(cb->r, &cb->loop);
}

static struct ag_team_ctx *resolved(struct ag_team_ctx *c);

/* True when the calling thread's context is of a level deeper than the one the thread is at: it runs a
 * `target` region on the host inside a region of the shim's (libgomp's fallback starts the nesting
 * afresh, at level 0, in the thread that meets the construct or in the one that runs its target task), so
 * a team it starts now may have the context's level, or that of a team around it. */
static inline int in_host_target(void)
{
    return ag_gomp_cur && ag_gomp_cur->level > ag_gomp_omp_level();
}

/* The context of a thread inside a region that a host target runs (aside): of no level (served() and
 * the loops find no team), unresolved (the doacross entry points go to libgomp), its deferred tasks
 * noted (GOMP_task goes to libgomp at once), and deeper than any level, so every region started inside
 * is libgomp's too (region_begin) and runs with it in turn. Shared by every such thread: nothing writes
 * to it (whatever writes a context first finds it resolved, or of the current level). */
static struct ag_team_ctx host_target_ctx = { .level = INT_MAX, .noted = 1 };

/* A region libgomp runs unserved (region_begin said no, GOMP_parallel_reductions): in a host target the
 * thread's context is set aside until the region has joined, since the new team's barriers, loops and
 * doacross loops, at the level of the context, would be taken for its team's (a `single`'s target whose
 * `parallel` had a barrier hung: its master waited in the enclosing team's andgate barrier, its other
 * thread in libgomp's). Returns the context to put back. */
static struct ag_team_ctx *aside(void)
{
    struct ag_team_ctx *c = ag_gomp_cur;
    if (enabled && in_host_target())
        ag_gomp_cur = &host_target_ctx;
    return c;
}

/* The master, before libgomp starts the team: the record to hand to the trampoline, or NULL to run the
 * region untouched (shim off, level too deep, out of memory). */
static const struct ag_team_region *region_begin(fn_t fn, void *data)
{
    ag_once(&ag_gomp_once, resolve);
    if (!enabled)
        return NULL;
    int level = ag_gomp_omp_level() + 1;
    /* A thread still inside a region of the shim's at this level or deeper runs a `target` region on the
     * host (in_host_target): the set this thread would start at `level` may be that region's own, busy
     * (libgomp's target7.f90, a `parallel do` in a target in tasks, hung). The region is libgomp's. */
    if (in_host_target())
        return NULL;
    struct ag_team_ctx *outer = ag_gomp_cur && ag_gomp_cur->level == level - 1 ? ag_gomp_cur : NULL;
    if (outer)
        resolved(outer); /* the enclosing team's threads, which the new team shares the CPUs with */
    struct ag_team_set *s = ag_team_begin(level, outer);
    if (!s)
        return NULL;
    ag_gomp_starting = 1; /* until the runtime has started the team (gomp.h) */
    return ag_team_region(s, fn, data);
}

void GOMP_parallel(fn_t fn, void *data, unsigned num_threads, unsigned flags)
{
    AG_GOMP_FORWARD_VOID(GOMP_parallel, fn, data, num_threads, flags);
    const struct ag_team_region *r = region_begin(fn, data);
    if (r) {
        real_parallel(trampoline, (void *)r, num_threads, flags);
        return;
    }
    struct ag_team_ctx *const outer = aside();
    real_parallel(fn, data, num_threads, flags);
    ag_gomp_cur = outer;
}

/* A `parallel` with a task reduction: libgomp's region and barriers (the shim has no way to run the
 * reduction's tasks), wrapped only to set the context aside in a host target. */
unsigned GOMP_parallel_reductions(fn_t fn, void *data, unsigned num_threads, unsigned flags)
{
    AG_GOMP_FORWARD(GOMP_parallel_reductions, fn, data, num_threads, flags);
    static unsigned (*real)(fn_t, void *, unsigned, unsigned);
    if (!real)
        *(void **)&real = REAL("GOMP_parallel_reductions");
    ag_once(&ag_gomp_once, resolve);
    struct ag_team_ctx *const outer = aside();
    unsigned n = real(fn, data, num_threads, flags);
    ag_gomp_cur = outer;
    return n;
}

/* The combined entry points. Loops the shim hands out (dynamic, guided, runtime; gomp.h): a plain region
 * whose threads set the loop up before the region's function runs. Otherwise, and for static loops and
 * sections: the same entry point, with the loop or the sections set up by libgomp. */
#define ARGS_OF(...) __VA_ARGS__
#define PARALLEL_LOOP(name, params, args, loop)                                                    \
    void name params                                                                               \
    {                                                                                              \
        AG_GOMP_FORWARD_VOID(name, ARGS_OF args);                                                  \
        static void (*real) params;                                                                \
        if (!real)                                                                                 \
            *(void **)&real = REAL(#name);                                                         \
        const struct ag_team_region *r = region_begin(fn, data);                                   \
        const struct ag_gomp_loop l = loop;                                                        \
        if (r && l.sched >= 0 && ag_gomp_loops_on()) {                                             \
            struct combined cb = { r, l };                                                         \
            real_parallel(trampoline_loop, &cb, nt, flags);                                        \
            return;                                                                                \
        }                                                                                          \
        if (r) {                                                                                   \
            fn = trampoline, data = (void *)r;                                                     \
            real args;                                                                             \
            return;                                                                                \
        }                                                                                          \
        struct ag_team_ctx *const outer = aside();                                                 \
        real args;                                                                                 \
        ag_gomp_cur = outer;                                                                       \
    }
#define CHUNKED (fn_t fn, void *data, unsigned nt, long start, long end, long incr, long chunk, unsigned flags)
#define CHUNKED_ARGS (fn, data, nt, start, end, incr, chunk, flags)
#define RUNTIME (fn_t fn, void *data, unsigned nt, long start, long end, long incr, unsigned flags)
#define RUNTIME_ARGS (fn, data, nt, start, end, incr, flags)
#define LOOP(kind, nm, chunk, sched) { kind, nm, start, end, incr, chunk, sched }
#define NOT_OURS { .sched = -1 }
PARALLEL_LOOP(GOMP_parallel_loop_static, CHUNKED, CHUNKED_ARGS, NOT_OURS)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, CHUNKED, CHUNKED_ARGS,
              LOOP(AG_LOOP_DYNAMIC, 0, chunk, AG_OMP_SCHED_DYNAMIC))
PARALLEL_LOOP(GOMP_parallel_loop_guided, CHUNKED, CHUNKED_ARGS,
              LOOP(AG_LOOP_GUIDED, 0, chunk, AG_OMP_SCHED_GUIDED))
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, CHUNKED, CHUNKED_ARGS,
              LOOP(AG_LOOP_STEAL, 1, chunk, AG_OMP_SCHED_DYNAMIC))
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, CHUNKED, CHUNKED_ARGS,
              LOOP(AG_LOOP_GUIDED, 1, chunk, AG_OMP_SCHED_GUIDED))
/* libgomp's sched 0 (GFS_RUNTIME): the run-sched-var's schedule */
PARALLEL_LOOP(GOMP_parallel_loop_runtime, RUNTIME, RUNTIME_ARGS, LOOP(AG_GOMP_LOOP_RUNTIME, 0, 0, 0))
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_runtime, RUNTIME, RUNTIME_ARGS, LOOP(AG_GOMP_LOOP_RUNTIME, 1, 0, 0))
PARALLEL_LOOP(GOMP_parallel_loop_maybe_nonmonotonic_runtime, RUNTIME, RUNTIME_ARGS,
              LOOP(AG_GOMP_LOOP_RUNTIME, 1, 0, 0))
PARALLEL_LOOP(GOMP_parallel_sections, (fn_t fn, void *data, unsigned nt, unsigned count, unsigned flags),
              (fn, data, nt, count, flags), NOT_OURS)

/* ---- barriers ---- */

/* A context entered by the trampoline, completed at its first use in the region: the team's size and the
 * thread's index from libgomp, then what serves the team. */
static struct ag_team_ctx *resolved(struct ag_team_ctx *c)
{
    if (__builtin_expect(!c->resolved, 0)) {
        ag_team_enter(c, c->set, c->level, (unsigned)omp_threads(), (unsigned)omp_thread());
        ag_team_resolve(c, runtime);
    }
    return c;
}

/* The calling thread's team context when andgate serves the team it is in now: a context of another
 * level belongs to an enclosing team (this barrier is in a region libgomp entered without us). */
static inline struct ag_team_ctx *served(void)
{
    struct ag_team_ctx *c = ag_gomp_cur;
    if (!c || c->level != ag_gomp_omp_level())
        return NULL;
    return resolved(c)->bar ? c : NULL;
}

struct ag_team_ctx *ag_gomp_team(void)
{
    return served();
}

void GOMP_barrier(void)
{
    AG_GOMP_FORWARD_VOID(GOMP_barrier);
    struct ag_team_ctx *c = served();
    if (c && !c->copy_end && !ag_team_wait(c))
        return;
    if (c)
        c->copy_end = 0;
    ag_once(&ag_gomp_once, resolve);
    real_barrier();
}

/* A `single copyprivate`: gcc calls GOMP_single_copy_start (every thread but the one that runs the
 * single: wait for its data, then copy it) or GOMP_single_copy_end (that thread: publish its data), each
 * waiting at libgomp's barrier inside, then GOMP_barrier, so that the data outlives the copies. That
 * barrier stays libgomp's too. At andgate's, the last to arrive (a copier) left first, reached the next
 * region's single first and ran it, so the single changed thread at every region; the thread running
 * it then held the private data it had just written as a copier, and every copy pulled those lines from
 * the other core (EPCC's COPYPRIVATE, a 472 KB array: 2.6-4x libgomp's time, docs/results.md). libgomp's
 * waiters leave its barrier before its last arriver does, and the thread that ran the single keeps
 * running it, as without the shim. Every thread of the team calls one of the two, so every thread
 * takes libgomp's barrier at the team's next GOMP_barrier (GOMP_barrier_cancel, where gcc emits that,
 * is libgomp's anyway: the mark then waits for the next one). */
static inline void copy_barrier_next(void)
{
    struct ag_team_ctx *c = served();
    if (c)
        c->copy_end = 1;
}

void *GOMP_single_copy_start(void)
{
    AG_GOMP_FORWARD(GOMP_single_copy_start);
    ag_once(&ag_gomp_once, resolve);
    copy_barrier_next();
    return real_copy_start();
}

void GOMP_single_copy_end(void *data)
{
    AG_GOMP_FORWARD_VOID(GOMP_single_copy_end, data);
    ag_once(&ag_gomp_once, resolve);
    copy_barrier_next();
    real_copy_end(data);
}

/* The end of a worksharing construct: libgomp's nowait end (its bookkeeping: the last thread out frees
 * the construct's work share; none for a loop or sections gomp_loop.c handed out), then the team's
 * barrier — what the blocking end does with libgomp's barrier. Unserved: libgomp's blocking end. */
static inline void worksharing_end(void (*const *nowait)(void), void (*const *blocking)(void))
{
    struct ag_team_ctx *c = served(); /* non-NULL: resolve() has run, the pointers are set */
    if (c) {
        if (c->loop.ours)
            c->loop.ours = 0;
        else
            (*nowait)();
        if (ag_team_wait(c))
            real_barrier();
        return;
    }
    ag_once(&ag_gomp_once, resolve);
    (*blocking)();
}

void GOMP_loop_end(void)
{
    AG_GOMP_FORWARD_VOID(GOMP_loop_end);
    worksharing_end(&real_loop_end_nowait, &real_loop_end);
}

void GOMP_sections_end(void)
{
    AG_GOMP_FORWARD_VOID(GOMP_sections_end);
    worksharing_end(&real_sections_end_nowait, &real_sections_end);
}
