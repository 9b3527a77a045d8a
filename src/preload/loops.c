/* loops.c — the chunks of worksharing loops the shim hands out itself, shared by kmp_dispatch.c
 * (libomp) and gomp_loop.c (libgomp); loops.h says how a team's loop instances are numbered.
 *
 * OpenMP 5.0 §2.9.2: dynamic — chunks of `chunk` iterations to threads as they ask; with the
 * nonmonotonic modifier (the default for dynamic since OpenMP 5.0, and what gcc and clang emit for a
 * plain schedule(dynamic)) in any order, so a thread may start on a run of chunks of its own and take
 * from others when it has none left (AG_LOOP_STEAL; libomp's own static_steal schedule does the same);
 * guided — chunks proportional to the unassigned iterations over the threads, never smaller than
 * `chunk` but for the last. Every iteration exactly once, in chunks of consecutive iterations; which
 * thread gets which chunk is unspecified and depends on timing under the runtimes too.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "team.h"
#include "wait.h"

struct ag_team_loops *ag_team_loops_new(unsigned n, int crowded)
{
    size_t head = (sizeof(struct ag_team_loops) + n * sizeof(struct ag_loop_mine) + 63) / 64 * 64;
    size_t ranges = (size_t)AG_LOOP_SLOTS * n * sizeof(struct ag_loop_range);
    struct ag_team_loops *l = aligned_alloc(64, head + ranges);
    if (!l)
        return NULL;
    memset(l, 0, head);
    l->n = n;
    l->crowded = crowded;
    l->range = (struct ag_loop_range *)((char *)l + head);
    for (unsigned i = 0; i < AG_LOOP_SLOTS; i++)
        atomic_init(&l->slot[i].turn, i);
    for (size_t i = 0; i < (size_t)AG_LOOP_SLOTS * n; i++)
        atomic_init(&l->range[i].lohi, AG_LOOP_UNSET);
    return l;
}

/* Instance g of this team may use its slot once every thread is done with instance g - AG_LOOP_SLOTS.
 * The acquire pairs with that instance's last finisher's release in ag_loop_finish(): its reset of the
 * slot's counters and ranges is visible here. Waiting happens only to a thread AG_LOOP_SLOTS - 1
 * `nowait` loops ahead. */
static void wait_turn(struct ag_loop_slot *s, uint64_t g)
{
    for (unsigned spins = 0; atomic_load_explicit(&s->turn, memory_order_acquire) != g; spins++) {
        if (spins < 1000)
            ag_cpu_relax();
        else
            sched_yield(); /* the slowest thread may be waiting for this CPU */
    }
}

int ag_loop_runtime_kind(int kind, int chunk, int nonmonotonic, int auto_kind)
{
    switch ((unsigned)kind & ~AG_OMP_SCHED_MONOTONIC) {
    case AG_OMP_SCHED_STATIC:
        return chunk >= 1 ? AG_LOOP_STATIC_CHUNKED : AG_LOOP_STATIC;
    case AG_OMP_SCHED_DYNAMIC:
        return nonmonotonic && !((unsigned)kind & AG_OMP_SCHED_MONOTONIC) ? AG_LOOP_STEAL : AG_LOOP_DYNAMIC;
    case AG_OMP_SCHED_GUIDED:
        return AG_LOOP_GUIDED;
    case AG_OMP_SCHED_AUTO:
        return auto_kind;
    default:
        return -1;
    }
}

static int begin(struct ag_team_ctx *c, int kind, uint64_t trip, int64_t chunk, uint64_t lb, int64_t st,
                 int shared)
{
    if (shared && c->n >= 2 && !c->loops)
        return 0; /* the whole team lacks the state (same entry): the runtime for all of them */
    uint64_t ch = chunk < 1 ? 1 : (uint64_t)chunk;
    uint64_t nchunks = trip / ch + (trip % ch != 0);
    if (kind == AG_LOOP_STEAL && (c->n < 2 || c->loops->crowded || nchunks >= UINT32_MAX ||
                                  nchunks < AG_LOOP_STEAL_MIN_RUN * c->n))
        kind = AG_LOOP_DYNAMIC; /* nobody to steal from, owners waiting for a CPU, chunk indices that do not
                                 * fit a range word, or runs too short to pay for stealing (the same answer
                                 * in every thread) */
    c->loop = (struct ag_loop_cur){ .active = 1, .trip = trip, .chunk = ch, .lb = lb, .st = st, .n = c->n,
                                    .tid = c->tid, .kind = kind, .nchunks = nchunks, .shares = 2 * c->n };
    /* fetch-and-add may carry `next` past the trip count by a chunk per thread: only where that
     * cannot wrap; else the compare-and-swap path, which never passes it */
    c->loop.cas = kind == AG_LOOP_GUIDED || ch > (UINT64_MAX - trip) / (c->n + 1u);
    if (kind == AG_LOOP_STATIC_CHUNKED)
        c->loop.own = c->tid; /* this thread's first chunk; then every n-th */
    if (shared && c->n >= 2) {
        uint64_t g = c->loops->mine[c->tid].begun++;
        c->loop.slot = &c->loops->slot[g % AG_LOOP_SLOTS];
        c->loop.ranges = &c->loops->range[g % AG_LOOP_SLOTS * c->n];
        c->loop.instance = g;
        wait_turn(c->loop.slot, g);
    }
    return 1;
}

int ag_loop_begin(struct ag_team_ctx *c, int kind, uint64_t trip, int64_t chunk, uint64_t lb, int64_t st)
{
    int shared = kind == AG_LOOP_DYNAMIC || kind == AG_LOOP_GUIDED || kind == AG_LOOP_STEAL;
    return begin(c, kind, trip, chunk, lb, st, shared);
}

int ag_loop_begin_shared(struct ag_team_ctx *c, int kind, uint64_t trip, int64_t chunk, uint64_t lb, int64_t st)
{
    return c->n >= 2 && begin(c, kind, trip, chunk, lb, st, 1);
}

/* Static chunks, libomp's splits and gcc's (the same): schedule(static), trip / n iterations per thread
 * and one more for the first trip % n, in thread order (one chunk, `own` marks it taken); schedule(static,
 * c): chunks of c dealt round-robin from thread 0 (`own` is this thread's next chunk). */
static int take_static(struct ag_loop_cur *l, uint64_t *first, uint64_t *end)
{
    if (l->kind == AG_LOOP_STATIC) {
        const uint64_t small = l->trip / l->n, extras = l->trip % l->n;
        const uint64_t count = small + (l->tid < extras);
        if (l->own || !count)
            return 0;
        l->own = 1;
        *first = l->tid * small + (l->tid < extras ? l->tid : extras), *end = *first + count;
        return 1;
    }
    if (!l->trip || l->own > (l->trip - 1) / l->chunk)
        return 0; /* no chunk starts at own * chunk (tested before multiplying: no wrap) */
    *first = l->own * l->chunk;
    *end = l->trip - *first > l->chunk ? *first + l->chunk : l->trip;
    l->own += l->n;
    return 1;
}

static inline uint64_t lo_of(uint64_t w) { return w >> 32; }
static inline uint64_t hi_of(uint64_t w) { return w & UINT32_MAX; }
static inline uint64_t pack(uint64_t lo, uint64_t hi) { return lo << 32 | hi; }

/* Thread v's range in this instance: its run of the chunks, the v-th of n equal runs, the last run less
 * the chunk holding the last iteration (take_steal). Whoever looks first (v itself, or a thread come to
 * take from it before v began the loop) sets it to v's initial run, the same value from every thread
 * (they all see the same trip count, chunk and team size), so racing first looks agree. */
static uint64_t range_of(const struct ag_loop_cur *l, unsigned v)
{
    _Atomic uint64_t *w = &l->ranges[v].lohi;
    uint64_t x = atomic_load_explicit(w, memory_order_relaxed);
    if (x == AG_LOOP_UNSET) {
        uint64_t hi = v + 1 == l->n ? l->nchunks - 1 : (v + 1ull) * l->nchunks / l->n;
        uint64_t init = pack(v * l->nchunks / l->n, hi);
        if (atomic_compare_exchange_strong_explicit(w, &x, init, memory_order_relaxed, memory_order_relaxed))
            x = init;
    }
    return x;
}

static int chunk_at(const struct ag_loop_cur *l, uint64_t k, uint64_t *first, uint64_t *end)
{
    *first = k * l->chunk; /* k < nchunks: no wrap */
    *end = l->trip - *first > l->chunk ? *first + l->chunk : l->trip;
    return 1;
}

/* AG_LOOP_STEAL. Thread t starts on the t-th of n equal runs of chunks, the data it most likely had in
 * the loop before. The chunk holding the last iteration is kept out of the runs and belongs to the last
 * thread, which takes it once it finds no run to take from, as its final chunk: gcc's code decides
 * lastprivate from where the thread's final chunk ended, and clang's from the flag of the chunk its
 * final call returned (libomp 14's own stealing gets this wrong, tests/omp_dynamic.sh). That thread is
 * in the loop until it has it, so nobody else need take it. A thief takes the upper half of a run of
 * two chunks or more and leaves a single chunk to its owner, who is about to take it: threads of equal
 * speed keep their own runs (the last thread counts the last chunk as the last of its run). A range word
 * changes in three ways: its owner takes the lowest chunk (lo + 1), a thief takes the upper half
 * (hi - k), and its owner, having found it empty, stores a run it took from another thread. A chunk
 * index leaves every word for good once taken, so no word returns to a value a stale compare-and-swap
 * expects (no ABA); the stealer's store into its own empty word races with nobody, as nobody changes an
 * empty word. Chunks in flight between a victim's word and the thief's are the thief's to run: a thread
 * that finds every word empty meanwhile may leave (the last one with the last chunk), as the thief will
 * run them. Relaxed throughout, like the counter: the loop's barrier orders the iterations' data. */
static int take_steal(struct ag_loop_cur *l, uint64_t *first, uint64_t *end)
{
    if (l->own)
        return 0; /* this thread ran the last chunk: it takes no other */
    _Atomic uint64_t *own = &l->ranges[l->tid].lohi;
    uint64_t w = range_of(l, l->tid);
    while (lo_of(w) < hi_of(w))
        if (atomic_compare_exchange_weak_explicit(own, &w, pack(lo_of(w) + 1, hi_of(w)), memory_order_relaxed,
                                                  memory_order_relaxed))
            return chunk_at(l, lo_of(w), first, end);
    for (unsigned k = 1; k < l->n; k++) {
        unsigned v = (l->tid + k) % l->n;
        uint64_t x = range_of(l, v);
        while (lo_of(x) + 1 < hi_of(x)) {
            uint64_t lo = lo_of(x), hi = hi_of(x), take = (hi - lo) / 2;
            if (atomic_compare_exchange_weak_explicit(&l->ranges[v].lohi, &x, pack(lo, hi - take),
                                                      memory_order_relaxed, memory_order_relaxed)) {
                if (take > 1)
                    atomic_store_explicit(own, pack(hi - take + 1, hi), memory_order_relaxed);
                return chunk_at(l, hi - take, first, end);
            }
        }
    }
    if (l->tid + 1 != l->n)
        return 0;
    l->own = 1;
    return chunk_at(l, l->nchunks - 1, first, end);
}

int ag_loop_take(struct ag_loop_cur *l, uint64_t *first, uint64_t *end)
{
    if (l->kind == AG_LOOP_STATIC || l->kind == AG_LOOP_STATIC_CHUNKED)
        return take_static(l, first, end);
    if (!l->slot) { /* a team of one */
        if (l->own >= l->trip)
            return 0;
        *first = l->own, *end = l->own = l->trip;
        return 1;
    }
    if (l->kind == AG_LOOP_STEAL)
        return take_steal(l, first, end);
    _Atomic uint64_t *next = &l->slot->next;
    if (!l->cas) {
        uint64_t i = atomic_fetch_add_explicit(next, l->chunk, memory_order_relaxed);
        if (i >= l->trip)
            return 0;
        *first = i, *end = l->trip - i > l->chunk ? i + l->chunk : l->trip;
        return 1;
    }
    uint64_t i = atomic_load_explicit(next, memory_order_relaxed), c;
    do {
        if (i >= l->trip)
            return 0;
        uint64_t rest = l->trip - i;
        c = l->kind == AG_LOOP_GUIDED ? (rest - 1) / l->shares + 1 : 0; /* guided: a share of what is left */
        if (c < l->chunk)
            c = l->chunk;
        if (c > rest)
            c = rest;
    } while (!atomic_compare_exchange_weak_explicit(next, &i, i + c, memory_order_relaxed, memory_order_relaxed));
    *first = i, *end = i + c;
    return 1;
}

/* The last of the n threads resets the instance's counters and ranges, frees its extra state, and hands
 * the slot to instance g + AG_LOOP_SLOTS. acq_rel: every thread's last access to them precedes its increment of `done`
 * (release), and the last finisher's increment reads them all (acquire), so its reset comes after every
 * access; its release store of `turn` pairs with wait_turn's acquire. */
void ag_loop_finish(struct ag_loop_cur *l)
{
    l->active = 0;
    l->extra = NULL;
    struct ag_loop_slot *s = l->slot;
    if (!s || atomic_fetch_add_explicit(&s->done, 1, memory_order_acq_rel) + 1 < l->n)
        return;
    free(atomic_exchange_explicit(&s->extra, NULL, memory_order_relaxed));
    atomic_store_explicit(&s->next, 0, memory_order_relaxed);
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    if (l->kind == AG_LOOP_STEAL)
        for (unsigned t = 0; t < l->n; t++)
            atomic_store_explicit(&l->ranges[t].lohi, AG_LOOP_UNSET, memory_order_relaxed);
    atomic_store_explicit(&s->turn, l->instance + AG_LOOP_SLOTS, memory_order_release);
}
