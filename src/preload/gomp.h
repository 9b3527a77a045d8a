/* gomp.h — what gomp.c (libgomp's regions and barriers) tells gomp_loop.c, gomp_task.c and
 * gomp_doacross.c. */
#ifndef AG_PRELOAD_GOMP_H
#define AG_PRELOAD_GOMP_H

#include <stdbool.h>
#include <stdint.h>

#include "preload.h"
#include "scope.h"
#include "team.h"

/* gomp.c's lookups, done once per process (ag_gomp_resolve), and the calling thread's context in the
 * innermost region gomp.c wrapped (NULL outside one, unresolved until its first use). Global, not static:
 * gomp_task.c's GOMP_task, in assembly, reads both by name; the version script keeps them private. */
extern struct ag_once ag_gomp_once;
extern AG_TLS struct ag_team_ctx *ag_gomp_cur;
/* Set while this thread starts a region gomp.c serves, from before the runtime's GOMP_parallel to the
 * trampoline: when the GOMP_* entry points are libomp's (gcc's code linked with libomp), libomp reports
 * that region to kmp.c's OMPT callbacks too, which must leave it to gomp.c (two sides counting the same
 * team's barriers and tasks disagreed, and a region with tasks hung) */
extern AG_TLS int ag_gomp_starting;
void ag_gomp_resolve(void);
/* For the entry points written in x86-64 assembly (gomp_task.c's GOMP_task, gomp_doacross.c's waits): a
 * macro's value as a string (a struct offset in an operand), and the entry's first instruction under CET */
#define AG_STR_(x) #x
#define AG_STR(x) AG_STR_(x)
#ifdef __CET__
#define AG_ENDBR "endbr64\n\t"
#else
#define AG_ENDBR ""
#endif
/* an entry point's first statement (scope.h): a call of another runtime's goes on to it */
#define AG_GOMP_FORWARD(name, ...) AG_SCOPE_FORWARD(AG_SIDE_GOMP, name, __VA_ARGS__)
#define AG_GOMP_FORWARD_VOID(name, ...) AG_SCOPE_FORWARD_VOID(AG_SIDE_GOMP, name, __VA_ARGS__)
/* Called by gomp.c's lookups: gomp_task.c's own (libgomp's task and target entry points, GOMP_cancel). */
void ag_gomp_task_resolve(void);

/* The calling thread's context in the libgomp team it is in now, resolved, when andgate serves that
 * team (a region gomp.c wrapped, at the current nesting level, with a barrier); else NULL. Its `loop`
 * member belongs to gomp_loop.c. */
struct ag_team_ctx *ag_gomp_team(void);
/* The same when the thread is in a loop or sections of the shim's (its context resolved, `loop.ours`
 * set); else NULL, looking nothing up: the shim's loops begin only in resolved contexts, so a region whose
 * loops and sections are libgomp's (combined sections, ordered loops) pays nothing in their _next and
 * nowait ends. */
extern int (*ag_gomp_omp_level)(void); /* libgomp's omp_get_level, looked up by ag_gomp_resolve */
static inline struct ag_team_ctx *ag_gomp_loop_team(void)
{
    struct ag_team_ctx *c = ag_gomp_cur;
    return c && c->resolved && c->loop.ours && c->level == ag_gomp_omp_level() ? c : NULL;
}

/* A combined `parallel for` with a dynamic, guided or runtime schedule (GOMP_parallel_loop_*) as its master
 * called it: the AG_LOOP_* kind (AG_GOMP_LOOP_RUNTIME: the run-sched-var's, with `nonmonotonic` as the
 * entry allows), the loop, and `sched`, libgomp's code for the same schedule (GOMP_loop_start's). */
#define AG_GOMP_LOOP_RUNTIME (-1)
struct ag_gomp_loop {
    int kind, nonmonotonic;
    long start, end, incr, chunk, sched;
};
/* gomp_loop.c for gomp_doacross.c: the calling thread's served team when the shim may hand out its loops
 * (else NULL); the kind schedule(runtime) names (*chunk its chunk; -1: libgomp's); a loop over the
 * iteration indices [0, trip) begun as one whose threads share state (ag_loop_begin_shared): 1 when the
 * shim serves it; and the thread's next chunk of a loop of the shim's, false when it has none left (the
 * loop then finished for it). */
struct ag_team_ctx *ag_gomp_loop_ctx(void);
int ag_gomp_runtime_kind(int nonmonotonic, int64_t *chunk);
int ag_gomp_doacross_begin(struct ag_team_ctx *c, int kind, uint64_t trip, uint64_t chunk);
bool ag_gomp_loop_next(struct ag_loop_cur *l, uint64_t *first, uint64_t *end);

/* Whether gomp_loop.c hands out libgomp's loops in this process (ANDGATE_OMP_LOOPS, OMP_CANCELLATION). */
int ag_gomp_loops_on(void);
/* In every thread of the combined region's team, before the region's function asks for its first chunk:
 * the loop set up as the shim's when it serves the team, else as libgomp's work share (GOMP_loop_start,
 * no chunk taken). Either way the function's GOMP_loop_*_next calls find it. */
void ag_gomp_loop_setup(const struct ag_gomp_loop *loop);

#endif
