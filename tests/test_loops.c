/* test_loops.c — the shim's loop hand-out (src/preload/loops.c) run directly by a team of plain threads,
 * also in the sanitizer builds: every iteration of every loop instance exactly once, chunks of the
 * promised sizes, and the chunk holding the last iteration the final one its thread gets (lastprivate
 * depends on it). Teams of 2, 3 and 5 threads (5 outnumber the CPUs of a small machine) run 240 loops in
 * a row without a barrier between them, as `nowait` loops do, with random pauses, so threads run up to
 * a ring of slots ahead, steal from threads that have not begun a loop yet, and reuse slots. Kinds:
 * dynamic from one counter, nonmonotonic dynamic with stealing, guided; trip counts 0-1000; chunks 1, 3,
 * 50. Then stealing's locality: threads taking chunks in turn each get their static run, the last thread
 * the last chunk; and a crowded team's loops from the counter. Nothing is timed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "preload/team.h"

enum { LOOPS = 240, MAXTRIP = 1000, MAXN = 5 };
static const uint64_t trips[] = { 0, 1, 2, 3, 7, 64, 1000 };
static const int64_t chunks[] = { 1, 3, 50 };
static const int kinds[] = { AG_LOOP_STEAL, AG_LOOP_DYNAMIC, AG_LOOP_GUIDED };

static _Atomic unsigned char ran[LOOPS][MAXTRIP];
static _Atomic int bad_chunks, after_last;

struct member {
    pthread_t th;
    struct ag_team_ctx ctx;
    unsigned seed;
};

static void shape(int l, int *kind, uint64_t *trip, int64_t *chunk)
{
    *kind = kinds[l % 3];
    *trip = trips[(l / 3) % 7];
    *chunk = chunks[(l / 21) % 3];
}

static void *member(void *arg)
{
    struct member *m = arg;
    for (int l = 0; l < LOOPS; l++) {
        int kind;
        uint64_t trip, first, end;
        int64_t chunk;
        shape(l, &kind, &trip, &chunk);
        if (rand_r(&m->seed) % 8 == 0)
            usleep(rand_r(&m->seed) % 300); /* held back: the others run ahead or steal its run */
        if (!ag_loop_begin(&m->ctx, kind, trip, chunk, 0, 1))
            abort();
        int had_last = 0;
        while (ag_loop_take(&m->ctx.loop, &first, &end)) {
            if (had_last)
                atomic_fetch_add(&after_last, 1);
            /* every chunk but the one ending the loop has `chunk` iterations (guided: at least) */
            int exact = kind != AG_LOOP_GUIDED;
            if (!(first < end && end <= trip &&
                  (end == trip || (exact ? end - first == (uint64_t)chunk : end - first >= (uint64_t)chunk))))
                atomic_fetch_add(&bad_chunks, 1);
            for (uint64_t i = first; i < end && i < trip; i++)
                atomic_fetch_add_explicit(&ran[l][i], 1, memory_order_relaxed);
            had_last |= end == trip;
        }
        ag_loop_finish(&m->ctx.loop);
    }
    return NULL;
}

static void team(unsigned n, int crowded)
{
    memset(ran, 0, sizeof ran);
    atomic_store(&bad_chunks, 0), atomic_store(&after_last, 0);
    struct ag_team_loops *loops = ag_team_loops_new(n, crowded);
    CHECK(loops != NULL, "ag_team_loops_new(%u)\n", n);
    if (!loops)
        return;
    struct member m[MAXN];
    for (unsigned t = 0; t < n; t++) {
        memset(&m[t], 0, sizeof m[t]);
        m[t].ctx.n = n, m[t].ctx.tid = t, m[t].ctx.loops = loops, m[t].seed = 7919 * (t + 1) + n;
        pthread_create(&m[t].th, NULL, member, &m[t]);
    }
    for (unsigned t = 0; t < n; t++)
        pthread_join(m[t].th, NULL);
    long wrong = 0;
    for (int l = 0; l < LOOPS; l++) {
        int kind;
        uint64_t trip;
        int64_t chunk;
        shape(l, &kind, &trip, &chunk);
        for (uint64_t i = 0; i < MAXTRIP; i++)
            wrong += atomic_load(&ran[l][i]) != (i < trip);
    }
    CHECK(wrong == 0, "team of %u (crowded %d): %ld iterations not run exactly once\n", n, crowded, wrong);
    CHECK(atomic_load(&bad_chunks) == 0, "team of %u (crowded %d): %d chunks of the wrong size\n", n, crowded,
          atomic_load(&bad_chunks));
    CHECK(atomic_load(&after_last) == 0, "team of %u (crowded %d): %d chunks after a thread's last chunk\n", n,
          crowded, atomic_load(&after_last));
    free(loops);
}

/* Stealing keeps the data where it was: n threads taking chunks in turn (one driver, no timing) each run
 * exactly the run of chunks a static split gives them, every time, and the last thread runs the chunk
 * holding the last iteration as its final one. Chunk counts a multiple of n (equal runs), the last
 * chunk full or partial. */
static void in_turn(unsigned n)
{
    struct ag_team_loops *loops = ag_team_loops_new(n, 0);
    CHECK(loops != NULL, "ag_team_loops_new(%u)\n", n);
    if (!loops)
        return;
    struct ag_team_ctx c[MAXN];
    long wrong = 0;
    for (int l = 0; l < 2 * AG_LOOP_SLOTS + 3; l++) {
        const uint64_t chunk = 1 + l % 5, nchunks = n * (uint64_t)(AG_LOOP_STEAL_MIN_RUN + l % 4);
        const uint64_t trip = nchunks * chunk - (l % 2 ? chunk - 1 : 0);
        for (unsigned t = 0; t < n; t++) {
            memset(&c[t], 0, sizeof c[t]);
            c[t].n = n, c[t].tid = t, c[t].loops = loops;
            CHECK(ag_loop_begin(&c[t], AG_LOOP_STEAL, trip, (int64_t)chunk, 0, 1) && c[t].loop.kind == AG_LOOP_STEAL,
                  "in turn, team of %u, loop %d: not a stealing loop\n", n, l);
        }
        unsigned done = 0, finished[MAXN] = { 0 };
        uint64_t last_end[MAXN] = { 0 };
        while (done < n)
            for (unsigned t = 0; t < n; t++) {
                uint64_t first, end;
                if (finished[t])
                    continue;
                if (!ag_loop_take(&c[t].loop, &first, &end)) {
                    finished[t] = 1, done++;
                    ag_loop_finish(&c[t].loop);
                    continue;
                }
                const uint64_t k = first / chunk, lo = t * nchunks / n, hi = (t + 1) * nchunks / n;
                wrong += k < lo || k >= hi || first < last_end[t];
                last_end[t] = end;
            }
        wrong += last_end[n - 1] != trip;
    }
    CHECK(wrong == 0, "in turn, team of %u: %ld chunks away from their static owner or out of order\n", n, wrong);
    free(loops);
}

/* A crowded team (threads outnumbering the CPUs) deals the chunks of a nonmonotonic loop from the counter,
 * however many chunks each thread's run would hold. */
static void crowded(unsigned n)
{
    struct ag_team_loops *loops = ag_team_loops_new(n, 1);
    CHECK(loops != NULL, "ag_team_loops_new(%u, 1)\n", n);
    if (!loops)
        return;
    struct ag_team_ctx c = { .n = n, .tid = 0, .loops = loops };
    uint64_t first, end;
    CHECK(ag_loop_begin(&c, AG_LOOP_STEAL, 1000, 1, 0, 1) && c.loop.kind == AG_LOOP_DYNAMIC,
          "crowded team of %u: a nonmonotonic loop of 1000 chunks is kind %d, not the counter\n", n, c.loop.kind);
    CHECK(ag_loop_take(&c.loop, &first, &end) && first == 0 && end == 1,
          "crowded team of %u: the first chunk is not [0, 1)\n", n);
    free(loops);
}

/* A team that is not crowded steals from AG_LOOP_STEAL_MIN_RUN chunks a thread on, and deals a shorter
 * loop from the counter (a few chunks of uneven cost: loops.h says why), whatever the chunk size. */
static void short_runs(unsigned n)
{
    struct ag_team_loops *loops = ag_team_loops_new(n, 0);
    CHECK(loops != NULL, "ag_team_loops_new(%u, 0)\n", n);
    if (!loops)
        return;
    for (uint64_t chunk = 1; chunk <= 7; chunk += 3) { /* six loops of thread 0 alone: fewer than AG_LOOP_SLOTS */
        const uint64_t at = (uint64_t)AG_LOOP_STEAL_MIN_RUN * n * chunk; /* iterations of exactly the minimum */
        struct ag_team_ctx c = { .n = n, .tid = 0, .loops = loops };
        CHECK(ag_loop_begin(&c, AG_LOOP_STEAL, at - chunk, (int64_t)chunk, 0, 1) && c.loop.kind == AG_LOOP_DYNAMIC,
              "team of %u, chunk %llu: a loop of one chunk under %d a thread is kind %d, not the counter\n", n,
              (unsigned long long)chunk, AG_LOOP_STEAL_MIN_RUN, c.loop.kind);
        ag_loop_finish(&c.loop);
        c = (struct ag_team_ctx){ .n = n, .tid = 0, .loops = loops };
        CHECK(ag_loop_begin(&c, AG_LOOP_STEAL, at, (int64_t)chunk, 0, 1) && c.loop.kind == AG_LOOP_STEAL,
              "team of %u, chunk %llu: a loop of %d chunks a thread is kind %d, not stealing\n", n,
              (unsigned long long)chunk, AG_LOOP_STEAL_MIN_RUN, c.loop.kind);
        ag_loop_finish(&c.loop);
    }
    free(loops);
}

int main(void)
{
    for (unsigned n = 2; n <= MAXN; n += n == 2 ? 1 : 2) {
        team(n, 0);
        team(n, 1);
        in_turn(n);
        crowded(n);
        short_runs(n);
    }
    return check_done();
}
