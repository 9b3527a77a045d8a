/* gomp_doacross.c — libgomp's doacross loops (`for ordered(n)` with `ordered depend(sink: ...)` and
 * `ordered depend(source)`, OpenMP 5.0 §2.17.9; 5.2's doacross clause) in the teams gomp.c serves: the
 * shim hands out their chunks (loops.c, as for dynamic loops) and keeps their posts itself.
 *
 * Why: libgomp's GOMP_doacross_wait polls without end, never yielding the CPU or sleeping. With more
 * threads than CPUs a waiter keeps the CPU that the thread it waits for needs, until the scheduler's
 * time slice ends: a 1,000-iteration wavefront took seconds at 4 threads on 2 CPUs (docs/results.md,
 * thirty-third part), against milliseconds at 2.
 *
 * How: gcc numbers a doacross loop's iterations itself (index 0 .. counts[0]-1 of the workshared first
 * dimension, then those of the ordered(n) inner dimensions), starts it with GOMP_loop_doacross_*_start
 * and asks for further chunks with the plain GOMP_loop_*_next. Here the start begins a loop of the
 * shim's that takes a team instance even when static (ag_loop_begin_shared), and the instance's extra
 * state is one word per index of the first dimension: the position (flattened, plus one) of the last
 * inner iteration posted for it, 0 before any. One thread runs all the inner iterations of a first index,
 * in order, so the word only grows and has one writer; a sink (i, j...) is done once word i has passed
 * j's position, whichever thread ran it and whatever the schedule. Waits spin for a while and then
 * yield at every poll (at once in a team whose threads outnumber the CPUs), so a waiter gives the CPU
 * back to the thread it waits for (gomp_doacross_wait.c).
 * In a team of one (not served: no barrier) the loop is libgomp's, and its waits return at once (one thread
 * runs the iterations in order; AG_DX_SOLO, gomp_doacross.h).
 * Left to libgomp: loops outside a served team, those GOMP_loop_doacross_start begins (gcc's generic entry,
 * used with task reductions; wrapped only to mark a team of one), more than AG_DX_MAX_INDICES
 * first-dimension indices (a word each) or AG_DX_MAX_DIMS dimensions, inner dimensions whose product
 * passes 2^63, everything ANDGATE_OMP_LOOPS=0 or OMP_CANCELLATION=true leave to it (gomp_loop.c). Such a
 * loop's posts and waits find no loop of the shim's and go on to libgomp.
 */
#include <stdlib.h>
#include <string.h>

#include "gomp_doacross.h"

#define AG_DX_MAX_INDICES (1u << 22) /* 32 MB of words */
/* up to this many indices, a cache line each: the words of neighbouring indices are mostly posted by
 * different threads (every chunk boundary; each index under schedule(static, 1)), and sharing a line
 * made each post move it away from the waiter next door too (2 threads, a 600 x 600 wavefront of
 * static chunks of 2 rows) */
#define AG_DX_PADDED_INDICES (1u << 16) /* 4 MB */
#define AG_DX_LINE_WORDS 8

/* The loop's shape as gcc passes it, or 0 when the shim cannot keep its posts (the same answer in every
 * thread: they all see the same counts). */
static int servable(unsigned ndims, const uint64_t *count)
{
    if (ndims < 1 || ndims > AG_DX_MAX_DIMS || count[0] > AG_DX_MAX_INDICES)
        return 0;
    uint64_t inner = 1; /* a count of 0: no iteration, so no post or wait */
    for (unsigned d = 1; d < ndims && count[d]; d++) {
        if (inner > (UINT64_MAX / 2) / count[d])
            return 0;
        inner *= count[d];
    }
    return 1;
}

/* The instance's posts: made by the first thread of the team to begin it (the others free their copy),
 * with every word 0; a thread out of memory tries again until another's copy or its own is in place.
 * The acquire pairs with the installer's release: the zeroed words and the counts are visible. */
static struct ag_doacross *attach(struct ag_loop_slot *s, unsigned ndims, const uint64_t *count,
                                  int crowded, unsigned threads)
{
    void *x = atomic_load_explicit(&s->extra, memory_order_acquire);
    while (!x) {
        const unsigned stride = count[0] <= AG_DX_PADDED_INDICES ? AG_DX_LINE_WORDS : 1;
        const size_t words = count[0] * stride;
        const size_t posts = (sizeof(struct ag_doacross) + words * sizeof(uint64_t) + 63) / 64 * 64;
        const size_t bytes = posts + threads * sizeof(struct ag_dx_seen);
        struct ag_doacross *d = aligned_alloc(64, bytes);
        if (!d) {
            sched_yield();
            x = atomic_load_explicit(&s->extra, memory_order_acquire);
            continue;
        }
        memset(d, 0, bytes);
        d->ndims = ndims, d->stride = stride, d->crowded = crowded;
        d->seen = (struct ag_dx_seen *)((char *)d + posts);
        for (unsigned k = 0; k < ndims; k++)
            d->count[k] = count[k];
        if (atomic_compare_exchange_strong_explicit(&s->extra, &x, d, memory_order_acq_rel,
                                                    memory_order_acquire))
            x = d;
        else
            free(d);
    }
    return x;
}

/* A doacross loop of libgomp's begins in the calling thread: its context marked AG_DX_SOLO when it is a
 * team of one at the current level and the shim hands out loops, unmarked otherwise. One that begins at
 * another level while a loop of the thread's runs (in a team that libgomp entered without the shim,
 * GOMP_parallel_reductions or a target region run on the host, inside the body) is multi-threaded or
 * another team's and must wait for real: the running loop, the shim's (`extra` its posts) or a team of
 * one's (AG_DX_SOLO, which stays after such a loop ends: the next loop at its level marks again), gets
 * AG_DX_NESTED, and its posts and waits check the level from then on. */
static void solo_mark(void)
{
    (void)ag_gomp_loop_ctx(); /* resolves a context of the current level (NULL in a team of one) */
    struct ag_team_ctx *c = ag_gomp_cur;
    if (!c || !c->resolved)
        return;
    const uintptr_t x = (uintptr_t)c->loop.extra;
    const int here = c->level == ag_gomp_omp_level();
    if (x && (x & ~(uintptr_t)AG_DX_MARKS || !here)) {
        c->loop.extra = (void *)(x | AG_DX_NESTED);
        return;
    }
    c->loop.extra = c->n == 1 && ag_gomp_loops_on() && here ? AG_DX_SOLO : NULL;
}

/* Begin the doacross loop in the calling thread's served team and take its first chunk: true or false
 * (none), or -1 when libgomp must run it. */
static int start(unsigned ndims, const uint64_t *count, int kind, uint64_t chunk, uint64_t *istart,
                 uint64_t *iend)
{
    struct ag_team_ctx *c = ag_gomp_loop_ctx();
    if (!c || kind < 0 || !servable(ndims, count) ||
        !ag_gomp_doacross_begin(c, kind, count[0], chunk ? chunk : 1)) {
        solo_mark();
        return -1;
    }
    c->loop.extra = attach(c->loop.slot, ndims, count, c->loops->crowded, c->n);
    return ag_gomp_loop_next(&c->loop, istart, iend);
}

/* depend(source) of iteration idx: its position in word idx[0]. The release pairs with the acquire of
 * a waiter that sees it, so the iteration's writes before the post are visible to the sink's code. */
static void post(struct ag_doacross *d, const uint64_t *idx)
{
    uint64_t p = position(d, idx);
    if (idx[0] < d->count[0] && p)
        atomic_store_explicit(&d->posted[idx[0] * d->stride], p, memory_order_release);
}

/* libgomp's own fn, looked up once */
#define REAL(fn)                                                                                           \
    static __typeof__(&fn) real;                                                                           \
    if (!real)                                                                                             \
    *(void **)&real = ag_scope_sym(AG_SIDE_GOMP, #fn)

/* GOMP_loop_{,ull_}doacross_*_start: the shim's loop, or libgomp's */
#define START(sfx, T, KIND)                                                                                \
    bool GOMP_loop_##sfx##_start(unsigned n, T *counts, T chunk, T *istart, T *iend)                       \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_start, n, counts, chunk, istart, iend);                          \
        int r = start(n, (const uint64_t *)counts, KIND, (uint64_t)chunk, (uint64_t *)istart,              \
                      (uint64_t *)iend);                                                                   \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL(GOMP_loop_##sfx##_start);                                                                     \
        return real(n, counts, chunk, istart, iend);                                                       \
    }
START(doacross_static, long, chunk > 0 ? AG_LOOP_STATIC_CHUNKED : AG_LOOP_STATIC)
START(doacross_dynamic, long, AG_LOOP_DYNAMIC)
START(doacross_guided, long, AG_LOOP_GUIDED)
START(ull_doacross_static, ull, chunk > 0 ? AG_LOOP_STATIC_CHUNKED : AG_LOOP_STATIC)
START(ull_doacross_dynamic, ull, AG_LOOP_DYNAMIC)
START(ull_doacross_guided, ull, AG_LOOP_GUIDED)

/* schedule(runtime): the run-sched-var's kind, in iteration order (doacross loops are monotonic) */
static int runtime_start(unsigned n, const uint64_t *counts, uint64_t *istart, uint64_t *iend)
{
    int64_t chunk = 0;
    const int kind = ag_gomp_loop_ctx() ? ag_gomp_runtime_kind(0, &chunk) : -1;
    return start(n, counts, kind, chunk > 0 ? (uint64_t)chunk : 0, istart, iend);
}

#define RUNTIME(sfx, T)                                                                                    \
    bool GOMP_loop_##sfx##_start(unsigned n, T *counts, T *istart, T *iend)                                \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_start, n, counts, istart, iend);                                 \
        int r = runtime_start(n, (const uint64_t *)counts, (uint64_t *)istart, (uint64_t *)iend);          \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL(GOMP_loop_##sfx##_start);                                                                     \
        return real(n, counts, istart, iend);                                                              \
    }
RUNTIME(doacross_runtime, long)
RUNTIME(ull_doacross_runtime, ull)

/* GOMP_loop_{,ull_}doacross_start: gcc's generic entry (a doacross loop with a task reduction), libgomp's
 * loop; a team of one's waits skipped as above. */
#define GENERIC(sfx, T)                                                                                    \
    bool GOMP_loop_##sfx##_start(unsigned n, T *counts, long sched, T chunk, T *istart, T *iend,           \
                                 uintptr_t *reductions, void **mem)                                        \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_start, n, counts, sched, chunk, istart, iend, reductions, mem);  \
        solo_mark();                                                                                       \
        REAL(GOMP_loop_##sfx##_start);                                                                     \
        return real(n, counts, sched, chunk, istart, iend, reductions, mem);                               \
    }
GENERIC(doacross, long)
GENERIC(ull_doacross, ull)

/* GOMP_doacross_{,ull_}post(counts): the iteration's indices, one per dimension */
#define POST(sfx, T)                                                                                       \
    void GOMP_doacross_##sfx(T *counts)                                                                    \
    {                                                                                                      \
        AG_GOMP_FORWARD_VOID(GOMP_doacross_##sfx, counts);                                                 \
        struct ag_doacross *d = mine();                                                                    \
        if (d) {                                                                                           \
            if (d != AG_DX_SOLO)                                                                           \
                post(d, (const uint64_t *)counts);                                                         \
            return;                                                                                        \
        }                                                                                                  \
        REAL(GOMP_doacross_##sfx);                                                                         \
        real(counts);                                                                                      \
    }
POST(post, long)
POST(ull_post, ull)

