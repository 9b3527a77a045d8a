/* loops.h — worksharing loops whose chunks the shim hands out itself (loops.c), for libomp
 * (kmp_dispatch.c: dynamic, guided, auto, runtime) and libgomp (gomp_loop.c: dynamic, guided, runtime,
 * and sections as a loop of their numbers).
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
    _Atomic(void *) extra; /* the instance's state beyond its chunks (gomp_doacross.c's posts): made by
                            * the first thread to need it, freed by the last finisher */
};

/* AG_LOOP_STEAL: one thread's chunks of a slot's instance, chunk indices [lo, hi) packed as
 * lo << 32 | hi, or AG_LOOP_UNSET before any thread has touched them in this instance. */
struct ag_loop_range {
    _Alignas(64) _Atomic uint64_t lohi;
};
#define AG_LOOP_UNSET UINT64_MAX

struct ag_loop_mine {
    _Alignas(64) uint64_t begun; /* loops this thread index has begun: written by that thread only */
};

struct ag_team_loops {
    unsigned n;
    int crowded; /* the team's threads (with those of the teams around it) outnumber the process's CPUs:
                  * no AG_LOOP_STEAL (AG_LOOP_STEAL_MIN_RUN says why) */
    struct ag_loop_slot slot[AG_LOOP_SLOTS];
    struct ag_loop_range *range; /* AG_LOOP_SLOTS * n, in this allocation: slot s, thread t at s * n + t */
    struct ag_loop_mine mine[];  /* n */
};

/* The state of a team of n threads (n >= 2), crowded or not, every slot free for its first instance; NULL
 * when out of memory. Freed with free(). */
struct ag_team_loops *ag_team_loops_new(unsigned n, int crowded);

/* How a loop's chunks are handed out:
 *   AG_LOOP_DYNAMIC        chunks of `chunk` in iteration order from one counter, to threads as they ask
 *   AG_LOOP_STEAL          nonmonotonic dynamic, teams not crowded: thread t starts on the t-th of n
 *                          equal runs of chunks (the iterations a static split gives it, whose data it
 *                          likely touched last) and, when its own are gone, takes half of what another
 *                          thread has left (2 chunks or more); the chunk holding the last iteration is the
 *                          last thread's final one
 *   AG_LOOP_GUIDED         chunks of the even share of what is left (libgomp) or half of it (libomp),
 *                          never below `chunk`
 *   AG_LOOP_STATIC(_CHUNKED) static splits, libomp's and gcc's alike, computed by each thread alone
 *                          (libomp's dispatcher, and schedule(runtime) with a static run-sched-var) */
enum { AG_LOOP_DYNAMIC, AG_LOOP_GUIDED, AG_LOOP_STATIC, AG_LOOP_STATIC_CHUNKED, AG_LOOP_STEAL };

/* omp_sched_t (omp.h), as omp_get_schedule reports the run-sched-var */
enum { AG_OMP_SCHED_STATIC = 1, AG_OMP_SCHED_DYNAMIC = 2, AG_OMP_SCHED_GUIDED = 3, AG_OMP_SCHED_AUTO = 4 };
#define AG_OMP_SCHED_MONOTONIC 0x80000000u
/* schedule(runtime): the AG_LOOP_* kind the run-sched-var names (kind and chunk as omp_get_schedule gives
 * them), for a loop whose entry point allows any order (nonmonotonic) or not; auto as auto_kind (each
 * runtime runs auto its own way); -1 for a kind beyond OpenMP's four. dynamic goes out in any order
 * unless the loop or the run-sched-var says monotonic (OpenMP 5.0 §2.9.2). */
int ag_loop_runtime_kind(int kind, int chunk, int nonmonotonic, int auto_kind);
/* AG_LOOP_STEAL only where every thread's run holds this many chunks or more, and only in a team that is
 * not crowded; other loops take the counter. Stealing pays per chunk (each thread takes from its own line,
 * near its own data) and costs at the end (a look at every other thread's run, the runs reset): a loop
 * of one chunk per thread (EPCC's for-dynamic) cost 1.5x as much with it on 2 CPUs. It assumes threads of
 * equal speed, each on a CPU of its own: it leaves a thread's last chunk to that thread, and the chunk
 * holding the last iteration to the last thread. Where threads outnumber the CPUs, those owners wait for
 * a CPU while the threads that have one could run their chunks: GAPBS's PageRank at 4 threads on 2 CPUs
 * took up to 1.2x as long per sweep with stealing as from the counter, and twice the sweeps
 * (docs/results.md, nineteenth part). It also assumes chunks of about equal cost, which a loop of a few
 * chunks a thread does not keep: the first runs decide most of the split, a thief takes only the upper
 * half of what is left, and one costly chunk's neighbours stay with its owner. CP2K's grid loops, six
 * atom-pair blocks of very uneven cost on 2 threads (three a run), took a quarter longer with stealing
 * than from the counter; with four chunks a run or more, a chunk is a small part of a thread's share, and
 * with fewer each chunk is large enough that the counter's one shared line per chunk costs nothing
 * (docs/results.md, thirtieth part). */
#define AG_LOOP_STEAL_MIN_RUN 4

/* A thread's dynamically scheduled loop in progress (in its team context, one per nesting level). */
struct ag_loop_cur {
    int active;                /* 1: the shim serves this loop's chunks; 0: the runtime does */
    int ours;                  /* gomp_loop.c: the thread's current worksharing loop is the shim's, until
                                * its end (libgomp keeps no work share for it) */
    struct ag_loop_slot *slot; /* NULL: a team of one or a static loop; the counter is `own` */
    struct ag_loop_range *ranges; /* AG_LOOP_STEAL: the slot's n ranges */
    uint64_t instance, trip, chunk, nchunks;
    uint64_t own;              /* a team of one: iterations taken; static chunked: this thread's next chunk;
                                * static: 1 once the thread has its chunk; AG_LOOP_STEAL: 1 once the
                                * last thread has the chunk holding the last iteration */
    uint64_t lb;               /* the first iteration's value, as the unsigned twin of the loop's type */
    uint64_t hi;               /* gomp_loop.c: the loop's end value, which ends the last chunk */
    int64_t st;                /* the increment */
    unsigned n, tid;
    int kind;                  /* AG_LOOP_* */
    int cas;                   /* hand out by compare-and-swap (guided, or fetch-and-add could wrap) */
    unsigned shares;           /* guided: a chunk is the unassigned iterations over this, rounded up; 2n
                                * as libomp divides (ag_loop_begin), n as libgomp does (gomp_loop.c) */
    void *extra;               /* the slot's `extra` once this thread has attached it; NULL after finish */
};

struct ag_team_ctx;
/* Begin a loop of `trip` iterations (index 0 is the value lb, each next one st further) of `kind` in the
 * calling thread's served team: 1 when the shim hands out its chunks (c->loop set up), 0 when the
 * runtime must (a team without loop state: the same answer in every thread of the team). A kind that
 * needs state shared by the team takes the team's next instance number. */
int ag_loop_begin(struct ag_team_ctx *c, int kind, uint64_t trip, int64_t chunk, uint64_t lb, int64_t st);
/* The same for a loop whose threads share more than its chunks (a doacross loop's posts, whatever its
 * kind): it takes the team's next instance even when static, so that c->loop.slot->extra is the
 * instance's; 0 when the team has no loop state. */
int ag_loop_begin_shared(struct ag_team_ctx *c, int kind, uint64_t trip, int64_t chunk, uint64_t lb, int64_t st);
/* The next chunk [*first, *end) of iteration indices, or 0: the loop is exhausted for this thread, and
 * ag_loop_finish(l) must follow. */
int ag_loop_take(struct ag_loop_cur *l, uint64_t *first, uint64_t *end);
/* This thread found the loop exhausted: it never touches the instance's shared state again. */
void ag_loop_finish(struct ag_loop_cur *l);

#endif
