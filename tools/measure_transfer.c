/* measure_transfer.c — the transfers common/c2c.c's ping-pong does not time, for `andgate info --measure`
 * (see measure.h). The ping-pong times a store into a line the other CPU spins on, without a pause,
 * until the spinner has the value. Here, with CPU b as the partner thread:
 *   - a cold transfer: a load by CPU a of a line b has just modified while nobody polled it (what the
 *     last arrival's fetch-and-add on a counter meets), beside the same load of a line a owns;
 *   - the same ping-pong with a pause in both spin loops, as the library's spin phases wait (ag_cpu_relax):
 *     x86's PAUSE lets a spinning core leave its loop without the memory-order flush that an unpaused
 *     spin pays when the line it polls is invalidated (Intel SDM, PAUSE). Printed only: the model does
 *     not use it (docs/results.md, "andgate sim" (a)).
 *
 * Every line sits on a page of its own: with the measured line next to the hand-shake lines, the
 * hardware prefetchers (adjacent-line, region) fetch it along with the hand-shake's misses and the load
 * comes out as a hit. */
#define _GNU_SOURCE
#include "measure.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "wait.h"

struct xfer {
    _Alignas(4096) _Atomic uint64_t line; /* cold: written by b, then loaded once by a; paused: the ping-pong */
    _Alignas(4096) _Atomic uint64_t own;  /* a's alone */
    _Alignas(4096) _Atomic uint64_t go;   /* cold, a -> b: trial k, write the line now */
    _Alignas(4096) _Atomic uint64_t done; /* cold, b -> a: trial k written */
    _Alignas(4096) int cpu_b, pinned_b, paused;
    unsigned n;                           /* trials, or round trips */
};

static volatile uint64_t sink;

/* b: waits for `at` on *w (pausing in the paused ping-pong), then stores `put` to *to */
static void answer(const struct xfer *x, _Atomic uint64_t *w, uint64_t at, _Atomic uint64_t *to, uint64_t put)
{
    while (atomic_load_explicit(w, memory_order_acquire) != at)
        if (x->paused)
            ag_cpu_relax();
    atomic_store_explicit(to, put, memory_order_release);
}

static void *partner(void *arg)
{
    struct xfer *x = arg;
    x->pinned_b = measure_pin(x->cpu_b) == 0;
    for (uint64_t k = 1; k <= x->n; k++)
        if (x->paused)
            answer(x, &x->line, 2 * k - 1, &x->line, 2 * k);
        else /* the store to the line leaves it Modified in b, a's copy gone; then the hand-shake */
            answer(x, &x->go, k, &x->line, k), atomic_store_explicit(&x->done, k, memory_order_release);
    return NULL;
}

/* ticks of one load between two stamps (bench_ticks waits for the load before it stamps) */
static inline uint64_t timed_load(_Atomic uint64_t *line)
{
    uint64_t t0 = bench_ticks();
    sink = atomic_load_explicit(line, memory_order_relaxed);
    return bench_ticks() - t0;
}

static void cold_trials(struct xfer *x, double *remote, double *owned)
{
    for (uint64_t k = 1; k <= x->n; k++) {
        atomic_store_explicit(&x->go, k, memory_order_release);
        while (atomic_load_explicit(&x->done, memory_order_acquire) != k)
            ;
        atomic_store_explicit(&x->own, k, memory_order_relaxed); /* a holds it */
        uint64_t settle = bench_mono_ns() + 1000; /* the hand-shake's own misses settle first */
        while (bench_mono_ns() < settle)
            ;
        owned[k - 1] = bench_ticks_to_ns((double)timed_load(&x->own));
        remote[k - 1] = bench_ticks_to_ns((double)timed_load(&x->line));
    }
}

static void paused_rounds(struct xfer *x, double *oneway)
{
    for (uint64_t k = 1; k <= x->n; k++) {
        uint64_t t0 = bench_ticks();
        atomic_store_explicit(&x->line, 2 * k - 1, memory_order_release);
        while (atomic_load_explicit(&x->line, memory_order_acquire) != 2 * k)
            ag_cpu_relax();
        oneway[k - 1] = bench_ticks_to_ns((double)(bench_ticks() - t0)) / 2;
    }
}

/* One run: cold (out2 != NULL: the remote and owned medians) or the paused ping-pong (its one-way). */
static int run(int a, int b, unsigned n, double *out, double *out2)
{
    struct xfer *x = aligned_alloc(4096, sizeof *x);
    double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
    pthread_t th;
    if (x) {
        memset(x, 0, sizeof *x);
        x->cpu_b = b, x->n = n, x->paused = out2 == NULL;
    }
    if (!x || !v || !w || measure_partner(a, partner, x, &th)) {
        free(x), free(v), free(w);
        return -1;
    }
    if (out2)
        cold_trials(x, v, w);
    else
        paused_rounds(x, v);
    pthread_join(th, NULL);
    int ok = x->pinned_b;
    *out = measure_warm_median(v, n);
    if (out2)
        *out2 = measure_warm_median(w, n);
    free(x), free(v), free(w);
    return ok ? 0 : -1;
}

int measure_cold(int a, int b, unsigned trials, unsigned runs, double *remote_ns, double *owned_ns)
{
    for (unsigned r = 0; r < runs; r++)
        if (run(a, b, trials < 10 ? 10 : trials, &remote_ns[r], &owned_ns[r]))
            return -1;
    return 0;
}

int measure_c2c_paused(int a, int b, unsigned rounds, unsigned runs, double *ns)
{
    for (unsigned r = 0; r < runs; r++)
        if (run(a, b, rounds < 10 ? 10 : rounds, &ns[r], NULL))
            return -1;
    return 0;
}
