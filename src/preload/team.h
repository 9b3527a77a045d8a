/* team.h — the andgate barriers of OpenMP teams, made once and reused across parallel regions.
 *
 * A team is identified by the thread that starts it (its master, thread 0), its nesting level and its
 * size. One thread starts at most one team at a time at a given level, so (master, level, size) names
 * at most one live team, and every region that master starts at that level with that many threads
 * reuses the same barrier: nothing is made or freed per region (issue 10's "lean steady state"). The
 * barriers of a master live in a set per level, found through the master's thread-local storage and
 * freed when the master thread exits. The exception, a `target` region run on the host, whose nesting
 * starts again at level 0 inside a running region: gomp.c leaves its teams to libgomp (region_begin).
 *
 * Used by gomp.c (libgomp, from a trampoline around the region's function) and kmp.c (libomp, from
 * OMPT callbacks); both keep a per-thread context that says which barrier serves the team the thread
 * is in now.
 */
#ifndef AG_PRELOAD_TEAM_H
#define AG_PRELOAD_TEAM_H

#include <stdatomic.h>
#include <stdint.h>

#include "andgate.h"
#include "loops.h"

struct ag_team_set;
struct ag_team_ctx;

/* A region as gomp.c's trampoline finds it: the function and argument libgomp would have run (kmp.c:
 * no function, the call site as `data`), and the set and level of the team that runs it. */
struct ag_team_region {
    void (*fn)(void *);
    void *data;
    struct ag_team_set *set;
    int level;
    int tasks; /* the master's: the region created deferred tasks the last time it ran (team_tasks.c) */
};

/* Once per process, before any team is served: what a process's first served team would otherwise pay
 * inside its region — the topology read from sysfs, the process's CPUs (their files read once), and for
 * libgomp the pause latency (runtime_wait) — about 0.5 ms on the development VM (0.9 ms before the pause
 * calibration was cut). Called when the library is loaded into a program linked with the runtime
 * (common.c), else at the shim's first contact with it (libgomp: its first call into the shim; libomp:
 * the OMPT tool's initialization; a runtime loaded later with dlopen). A program that times its first
 * regions saw it: EPCC's taskbench sized its PARALLEL TASK test from a first run that held it, and
 * reported 15-50x libgomp's overhead per task (docs/results.md). */
void ag_team_warm(const char *runtime);

/* Called by a thread about to start a team at nesting level `level` (1 = a root team), before the team
 * runs: its set for the teams it starts at that level, made ready for the new region (broken barriers
 * repaired, whether the region just joined made deferred tasks noted in its record; the enclosing teams'
 * threads noted from master_ctx, the starting thread's own context, resolved, or NULL). NULL when the
 * level is too deep or memory is exhausted (then the runtime keeps its barriers). */
struct ag_team_set *ag_team_begin(int level, const struct ag_team_ctx *master_ctx);
/* After ag_team_begin(s), always: the region record of (fn, data) for this region's threads to read. A set
 * keeps the last few regions it ran and writes one only when it is new, so a program that alternates
 * between a handful of regions (a time step of several `parallel for`) costs its threads no miss here.
 * A region that created deferred tasks the last time it ran starts on the runtime's barriers
 * (team_tasks.c). */
const struct ag_team_region *ag_team_region(struct ag_team_set *s, void (*fn)(void *), void *data);

/* The barrier of the team of n threads (n >= 2) of this set: made by the first thread that asks (the
 * others wait for the outcome, so the whole team takes the same road) and kept, with the team's loop
 * state (*loops; NULL when out of memory). NULL when andgate cannot serve it (a bad ANDGATE_ALGO /
 * ANDGATE_WAIT, reported once; out of memory): the runtime's barrier and loops, for this team and every
 * later one of this size. `runtime` names it in messages. `threads`
 * counts the threads of this team and of every team enclosing it (nested teams share the CPUs): when
 * they outnumber the usable CPUs and ANDGATE_WAIT is unset, the barrier gets wait=auto's
 * oversubscribed policy although the team alone would fit. */
ag_barrier_t *ag_team_barrier(struct ag_team_set *s, unsigned n, unsigned long threads, const char *runtime,
                              struct ag_team_loops **loops);

/* Deferred tasks (team_tasks.c): the first barrier index, counted from 0 in the current region of this
 * set, before which some team thread created a deferred task; UINT64_MAX when none. Set by the master in
 * ag_team_region before the team starts (0 for a region that made tasks the last time it ran); lowered
 * by the creating thread. */
_Atomic uint64_t *ag_team_first_task(struct ag_team_set *s);
/* team_tasks.c broke a barrier of s: ag_team_begin repairs it before the set's next region. */
void ag_team_broke(struct ag_team_set *s);
/* A team thread created a deferred task in the current region of s: the region's record remembers it. */
void ag_team_note_task(struct ag_team_set *s);
int ag_team_level(const struct ag_team_set *s);

/* The per-thread context: which barrier serves the team this thread is in, and its index there. Entering
 * a team records who the thread is (a few stores to its own memory); what serves the team is looked up
 * on the first barrier or loop that needs it (ag_team_resolve), so a region without either reads
 * nothing shared beyond what the runtime reads (a program of many short `parallel for` regions pays no
 * miss here). */
struct ag_team_ctx {
    ag_barrier_t *bar; /* NULL: the runtime's barrier (valid once resolved) */
    struct ag_team_set *set;
    unsigned tid, n; /* index in the team, team size */
    int level;
    int resolved;          /* bar, loops and threads are valid */
    unsigned long threads; /* threads of this team times those of the enclosing teams */
    uint64_t episodes; /* barriers this thread ran in the current region (team_tasks.c) */
    int tasking;       /* deferred tasks appeared: the runtime's barrier from now on (team_tasks.c) */
    int noted;         /* this thread recorded a deferred task of the region: the next ones need nothing */
    int copy_end;      /* gomp.c: the team's next GOMP_barrier ends a `single copyprivate`: libgomp's */
    struct ag_team_loops *loops; /* the team's dynamically scheduled loops (NULL: the runtime's) */
    struct ag_loop_cur loop;     /* kmp_dispatch.c, gomp_loop.c: this thread's loop in progress */
};

/* Record that this thread is thread tid of a team of n started from set s at level (s may be NULL: not
 * served); nothing shared is read. */
static inline void ag_team_enter(struct ag_team_ctx *ctx, struct ag_team_set *s, int level, unsigned n,
                                 unsigned tid)
{
    ctx->set = s, ctx->level = level, ctx->n = n, ctx->tid = tid;
    ctx->resolved = 0, ctx->episodes = 0, ctx->tasking = 0, ctx->noted = 0, ctx->copy_end = 0;
    ctx->loop.active = 0, ctx->loop.ours = 0, ctx->loop.extra = NULL;
}

/* Look up what serves the team of an entered context (once per region; `runtime` names it in
 * messages): its barrier and loops, and the threads sharing the CPUs. */
void ag_team_resolve(struct ag_team_ctx *ctx, const char *runtime);

/* One barrier of a served team (ctx resolved, ctx->bar set): 0 when andgate's barrier completed it; 1
 * when the caller must run the runtime's barrier instead, which runs pending tasks — in every thread of
 * the team from the first barrier a deferred task precedes, for the rest of the region (team_tasks.c). */
int ag_team_wait(struct ag_team_ctx *ctx);
/* This thread created (or may have created) a deferred task in its served team (ctx resolved): the team
 * takes the runtime's barrier from this thread's next barrier on, and the threads waiting there now
 * leave andgate's for it. */
void ag_team_task(struct ag_team_ctx *ctx);

#endif
