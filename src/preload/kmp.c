/* kmp.c — libomp's barriers (clang's OpenMP) served by andgate, learning teams from the OpenMP tools
 * interface (OMPT, OpenMP 5.0 §4.2-4.5).
 *
 * libomp starts regions in the variadic __kmpc_fork_call, which cannot be wrapped; instead the shim is
 * an OMPT tool: libomp calls ompt_start_tool() (this library's, found first in the global scope under
 * LD_PRELOAD) and the tool registers three callbacks:
 *   parallel-begin  (in the encountering thread, before the team runs): the new team's level, and the
 *                   encountering thread's team set for it (team.h) in the region's parallel_data;
 *   implicit-task   begin (in every team thread): team size and thread index, so the thread pushes a
 *                   context (its team's andgate barrier looked up at its first use, ag_kmp_team: a
 *                   region without barriers or loops reads nothing shared); end pops it. Nested and
 *                   concurrent teams are told apart exactly, as each has its own parallel_data;
 *   task-create     a deferred explicit task in a served team (see below).
 * __kmpc_barrier — explicit barriers, and the implicit ones clang emits after worksharing loops,
 * sections and single — then waits on the team's andgate barrier; so do reductions.
 *
 * Tasks: libomp runs pending tasks at its barriers, andgate's cannot. From the first barrier a deferred
 * task precedes, the team takes libomp's barrier for the rest of the region, every thread at the same
 * barrier, and threads already waiting at andgate's leave it for libomp's (team_tasks.c); the
 * task-create callback tells it of each deferred task.
 * Reductions (__kmpc_reduce / __kmpc_end_reduce) go through their nowait twins and the andgate barrier
 * (below). Left to libomp: the fork and join of regions, __kmpc_copyprivate, __kmpc_cancel_barrier
 * (cancellation points libomp must release), teams deeper than 8 levels, and everything when the
 * program has an OMPT tool of its own (OMP_TOOL_LIBRARIES, or a library with ompt_start_tool linked or
 * preloaded: the shim steps aside, ompt_start_tool below) or OMP_TOOL=disabled.
 * Loop scheduling is served beside it: static loop starts (kmp_loop.c) and dynamic, guided and auto
 * chunks (kmp_dispatch.c). ANDGATE_OMP=0 turns this part off.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include AG_OMPT_HEADER /* omp-tools.h of libomp-dev (CMakeLists.txt) */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "gomp.h"
#include "kmp.h"
#include "preload.h"
#include "team.h"

#define MAX_DEPTH 8

typedef void (*reduce_fn_t)(void *, void *);
static void (*real_barrier)(void *, int32_t);
static int32_t (*real_reduce)(void *, int32_t, int32_t, size_t, void *, reduce_fn_t, void *);
static int32_t (*real_reduce_nowait)(void *, int32_t, int32_t, size_t, void *, reduce_fn_t, void *);
static void (*real_end_reduce)(void *, int32_t, void *), (*real_end_reduce_nowait)(void *, int32_t, void *);
static struct ag_once once = AG_ONCE_INIT;

/* This thread's implicit tasks, innermost last (the initial task is not counted). */
static AG_TLS struct ag_team_ctx stack[MAX_DEPTH];
static AG_TLS int depth;

static void resolve(void)
{
    *(void **)&real_barrier = ag_scope_sym(AG_SIDE_KMP, "__kmpc_barrier");
    *(void **)&real_reduce = ag_scope_sym(AG_SIDE_KMP, "__kmpc_reduce");
    *(void **)&real_reduce_nowait = ag_scope_sym(AG_SIDE_KMP, "__kmpc_reduce_nowait");
    *(void **)&real_end_reduce = ag_scope_sym(AG_SIDE_KMP, "__kmpc_end_reduce");
    *(void **)&real_end_reduce_nowait = ag_scope_sym(AG_SIDE_KMP, "__kmpc_end_reduce_nowait");
}

static inline struct ag_team_ctx *top(void)
{
    int d = depth;
    return d >= 1 && d <= MAX_DEPTH ? &stack[d - 1] : NULL;
}

const struct ag_team_ctx *ag_kmp_place(void)
{
    return top();
}

struct ag_team_ctx *ag_kmp_team(void)
{
    struct ag_team_ctx *c = top();
    if (c && __builtin_expect(!c->resolved, 0))
        ag_team_resolve(c, "libomp");
    return c;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned requested, int flags, const void *ra)
{
    (void)task, (void)frame, (void)requested;
    if (ag_gomp_starting) { /* gomp.c serves this region (gomp.h) */
        ag_gomp_starting = 0;
        parallel->ptr = NULL;
        return;
    }
    struct ag_team_set *s = (flags & ompt_parallel_team) ? ag_team_begin(depth + 1, ag_kmp_team()) : NULL;
    if (s) /* the region's record, named by its call site: whether it made deferred tasks last time */
        ag_team_region(s, NULL, (void *)(uintptr_t)ra);
    parallel->ptr = s;
}

/* Marks the task data of an implicit task this thread counted in `depth`. The end of a task is told by
 * its data, not by its flags: libomp 14 reports the end of every later implicit task of a thread that
 * was the master of a league's team (`teams` on the host) with the initial-task flag, which would leave
 * that thread's depth one higher after each region it joins. */
static char counted;

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned n, unsigned index, int flags)
{
    if (endpoint == ompt_scope_end) {
        if (task && task->ptr == &counted && depth > 0) {
            task->ptr = NULL;
            depth--;
        }
        return;
    }
    if (!(flags & ompt_task_implicit) || !task)
        return; /* the initial task of the thread or of a league */
    task->ptr = &counted;
    if (depth < MAX_DEPTH) {
        struct ag_team_set *s = parallel ? parallel->ptr : NULL;
        ag_team_enter(&stack[depth], s, s ? ag_team_level(s) : depth + 1, n, index); /* resolved at first use */
    }
    depth++;
}

static void on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *created, int flags,
                           int has_dependences, const void *ra)
{
    (void)task, (void)frame, (void)created, (void)has_dependences, (void)ra;
    if (!(flags & ompt_task_explicit) || (flags & ompt_task_undeferred))
        return;
    struct ag_team_ctx *c = ag_kmp_team();
    if (c)
        ag_team_task(c);
}

/* One barrier of a served team: andgate's, or libomp's from the barrier a deferred task precedes on
 * (the same outcome in every thread of the team; team_tasks.c). */
static void team_barrier(struct ag_team_ctx *c, void *loc, int32_t gtid)
{
    if (!ag_team_wait(c))
        return;
    ag_once(&once, resolve);
    real_barrier(loc, gtid);
}

void __kmpc_barrier(void *loc, int32_t gtid)
{
    AG_KMP_FORWARD_VOID(__kmpc_barrier, loc, gtid);
    struct ag_team_ctx *c = ag_kmp_team();
    if (c && c->bar) {
        team_barrier(c, loc, gtid);
        return;
    }
    ag_once(&once, resolve);
    real_barrier(loc, gtid);
}

/* Reductions without nowait: clang calls __kmpc_reduce, combines as told by its result (1: this thread
 * combines, under libomp's lock or alone; 2: every thread combines with atomics; 0: nothing to do) and,
 * for 1 and 2, calls __kmpc_end_reduce, whose barrier makes the result visible to all. Served teams
 * take the nowait twins and the team's andgate barrier instead, one per thread and reduction: in
 * __kmpc_end_reduce for results 1 and 2, and at once for 0 (libomp's tree method: the threads that
 * handed their data up; their barrier pairs with the combining thread's in __kmpc_end_reduce, after
 * it wrote the result). In teams of more than 4 threads libomp picks the tree method, whose nowait
 * form is itself a full barrier, so those teams keep libomp's blocking reduction. */
#define REDUCE_MAX_TEAM 4

static inline struct ag_team_ctx *reduce_served(void)
{
    struct ag_team_ctx *c = ag_kmp_team();
    return c && c->bar && !c->tasking && c->n <= REDUCE_MAX_TEAM ? c : NULL;
}

int32_t __kmpc_reduce(void *loc, int32_t gtid, int32_t nvars, size_t size, void *data, reduce_fn_t fn, void *lck)
{
    AG_KMP_FORWARD(__kmpc_reduce, loc, gtid, nvars, size, data, fn, lck);
    ag_once(&once, resolve);
    struct ag_team_ctx *c = reduce_served();
    if (!c)
        return real_reduce(loc, gtid, nvars, size, data, fn, lck);
    int32_t r = real_reduce_nowait(loc, gtid, nvars, size, data, fn, lck);
    if (r == 0)
        team_barrier(c, loc, gtid);
    return r;
}

void __kmpc_end_reduce(void *loc, int32_t gtid, void *lck)
{
    AG_KMP_FORWARD_VOID(__kmpc_end_reduce, loc, gtid, lck);
    ag_once(&once, resolve);
    struct ag_team_ctx *c = reduce_served();
    if (!c) {
        real_end_reduce(loc, gtid, lck);
        return;
    }
    real_end_reduce_nowait(loc, gtid, lck);
    team_barrier(c, loc, gtid);
}

/* ---- the OMPT tool ---- */

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr_ra)
{
    (void)command, (void)modifier, (void)arg, (void)codeptr_ra;
    return -2; /* omp.h (OpenMP 5.0 §3.8): omp_control_tool_notool */
}

static int tool_init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set)
        return 0;
    /* every callback must always be delivered: a missed task creation would let a barrier skip tasks */
    int ok = set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) == ompt_set_always &&
             set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task) == ompt_set_always &&
             set(ompt_callback_task_create, (ompt_callback_t)on_task_create) == ompt_set_always;
    if (!ok) {
        ag_preload_warn_once("andgate-preload: libomp does not deliver every OMPT callback the shim needs; "
                             "libomp keeps its barriers\n");
        set(ompt_callback_parallel_begin, NULL);
        set(ompt_callback_implicit_task, NULL);
        set(ompt_callback_task_create, NULL);
        return 0;
    }
    /* omp_control_tool returns what a tool's control-tool callback returns: "no tool" (-2), as without
     * the shim, instead of libomp's "a tool without that callback" (-1) */
    set(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
    ag_team_warm("libomp");
    return 1; /* keep the tool */
}

static void tool_fini(ompt_data_t *data)
{
    (void)data;
}

/* The program's own tool, in a library found after the shim (linked with the program, or preloaded
 * after it): the next ompt_start_tool in the lookup order, asked first, as libomp's own weak definition
 * asks the next one. libomp takes one tool; when the program's starts, it is that one, and the shim
 * steps aside. (A tool defined in the executable is found before the shim, which is never asked.) */
static ompt_start_tool_result_t *program_tool(unsigned int omp_version, const char *runtime_version)
{
    ompt_start_tool_result_t *(*next)(unsigned int, const char *);
    *(void **)&next = dlsym(RTLD_NEXT, "ompt_start_tool");
    if (!next)
        (void)dlerror(); /* free the failed lookup's message */
    return next ? next(omp_version, runtime_version) : NULL;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t tool = { tool_init, tool_fini, { 0 } };
    const struct ag_preload_env *env = ag_preload_env();
    ompt_start_tool_result_t *theirs = program_tool(omp_version, runtime_version);
    const char *libraries = getenv("OMP_TOOL_LIBRARIES");
    if (!env->enabled || !env->omp)
        return theirs;
    if (theirs) {
        ag_preload_verbose("andgate-preload: the program has its own OMPT tool: libomp keeps its barriers\n");
        return theirs;
    }
    if (libraries && *libraries) { /* libomp loads them itself after this returns NULL */
        ag_preload_verbose("andgate-preload: OMP_TOOL_LIBRARIES is set: libomp keeps its barriers\n");
        return NULL;
    }
    if (!ag_scope_adopt_kmp(__builtin_return_address(0))) { /* scope.h: the shim serves one libomp */
        ag_preload_verbose("andgate-preload: a second libomp outside the global scope keeps its barriers\n");
        return NULL;
    }
    return &tool;
}
