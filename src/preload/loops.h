/* loops.h — the shared state of a team's dynamically scheduled worksharing loops (kmp_dispatch.c serves
 * libomp's; libgomp's stay libgomp's).
 *
 * A team (one barrier entry of team.c: a master, a level, n threads) runs its worksharing loops in the
 * same order in every thread (OpenMP 5.0 §2.9: every thread of a team encounters the same worksharing
 * regions in the same order), so thread tid's count of loops begun names the loop: instance g is the
 * g-th served loop of the team, counted over all its regions (the per-thread counts live here, not in
 * the thread, so they survive from region to region and stay equal at every region start). Instance g
 * uses slot g % AG_LOOP_SLOTS; a slot is handed to instance g + AG_LOOP_SLOTS only when all n threads
 * have found instance g exhausted, so a thread may run up to AG_LOOP_SLOTS - 1 `nowait` loops ahead of
 * the slowest before it waits.
 */
#ifndef AG_PRELOAD_LOOPS_H
#define AG_PRELOAD_LOOPS_H

#include <stdatomic.h>
#include <stdint.h>

#define AG_LOOP_SLOTS 8

struct ag_loop_slot {
    _Alignas(64) _Atomic uint64_t turn; /* the instance this slot serves now (initially its index) */
    _Atomic uint64_t next;              /* iterations handed out (may pass the trip count) */
    _Atomic unsigned done;              /* threads that found the instance exhausted */
};

struct ag_loop_mine {
    _Alignas(64) uint64_t begun; /* loops this thread index has begun: written by that thread only */
};

struct ag_team_loops {
    unsigned n;
    struct ag_loop_slot slot[AG_LOOP_SLOTS];
    struct ag_loop_mine mine[]; /* n */
};

/* The state of a team of n threads (n >= 2), every slot free for its first instance; NULL when out of
 * memory. Freed with free(). */
struct ag_team_loops *ag_team_loops_new(unsigned n);

/* How a loop's chunks are handed out (kmp_dispatch.c) */
enum { AG_LOOP_DYNAMIC, AG_LOOP_GUIDED, AG_LOOP_STATIC, AG_LOOP_STATIC_CHUNKED };

/* A thread's dynamically scheduled loop in progress (in its team context, one per nesting level). */
struct ag_loop_cur {
    int active;                /* 1: the shim serves this loop's chunks; 0: libomp does */
    struct ag_loop_slot *slot; /* NULL: a team of one or a static loop; the counter is `own` */
    uint64_t instance, trip, chunk, own;
    uint64_t lb;               /* the first iteration's value, as the unsigned twin of the loop's type */
    int64_t st;                /* the increment */
    unsigned n, tid;
    int kind;                  /* AG_LOOP_* */
    int cas;                   /* hand out by compare-and-swap (guided, or fetch-and-add could wrap) */
};

#endif
