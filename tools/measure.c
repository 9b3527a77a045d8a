/* measure.c — hit, core-to-core, invalidation, atomic and clock measurements for `andgate info --measure`
 * (see measure.h). Timings use the benchmark clock (common/clock.h: the invariant TSC where there is one,
 * CLOCK_MONOTONIC otherwise); single operations are timed between two stamps and the stamp overhead
 * cancels in the differences taken by the caller. */
#define _GNU_SOURCE
#include "measure.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "c2c.h"
#include "clock.h"
#include "stats.h"

int measure_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int measure_partner(int a, void *(*fn)(void *), void *arg, pthread_t *th)
{
    return measure_pin(a) != 0 || pthread_create(th, NULL, fn, arg) ? -1 : 0;
}

double measure_median(double *v, unsigned n)
{
    return n ? stats_of(v, n).median : 0.0;
}

double measure_warm_median(double *v, unsigned n)
{
    unsigned warm = n / 10; /* the first tenth finds lines, TLB and branch predictors cold */
    return measure_median(v + warm, n - warm);
}

/* ---- hit: dependent loads over an L1-resident ring of lines ---- */

static void *volatile sink_ptr;
static volatile uint64_t sink_u64;

int measure_hit(unsigned line, unsigned loads, unsigned runs, double *ns)
{
    enum { LINES = 64 };
    if (line < sizeof(void *))
        line = 64;
    size_t stride = line / sizeof(void *);
    void **buf = aligned_alloc(4096, (LINES * line + 4095) / 4096 * 4096);
    if (!buf)
        return -1;
    /* a ring through the lines in a scrambled order (i * 37 mod 64 is a permutation: 37 is odd) */
    for (unsigned k = 0; k < LINES; k++) {
        unsigned from = k * 37 % LINES, to = (k + 1) * 37 % LINES;
        buf[from * stride] = &buf[to * stride];
    }
    unsigned iters = loads / 8 ? loads / 8 : 1;
    for (unsigned r = 0; r <= runs; r++) {
        void **p = buf;
        uint64_t t0 = bench_mono_ns();
        for (unsigned i = 0; i < iters; i++) {
            p = *p, p = *p, p = *p, p = *p;
            p = *p, p = *p, p = *p, p = *p;
        }
        uint64_t t1 = bench_mono_ns();
        sink_ptr = p;
        if (r) /* run 0 warms the lines and the loop up */
            ns[r - 1] = (double)(t1 - t0) / (8.0 * iters);
    }
    free(buf);
    return 0;
}

/* ---- core-to-core: common/c2c.c ---- */

int measure_c2c(int a, int b, unsigned rounds, unsigned runs, double *ns)
{
    for (unsigned r = 0; r < runs; r++) {
        struct c2c_result res;
        if (c2c_measure(a, b, rounds, &res))
            return -1;
        ns[r] = res.median_ns;
    }
    return 0;
}

/* ---- invalidation: a store to a line another CPU holds vs a store to an owned line ---- */

struct upgrade {
    _Alignas(128) _Atomic uint64_t shared_line; /* written by a, read by b every trial */
    _Alignas(128) _Atomic uint64_t owned_line;  /* a's alone */
    _Alignas(128) _Atomic uint64_t go;          /* a -> b: trial k, read shared_line now */
    _Alignas(128) _Atomic uint64_t done;        /* b -> a: trial k read */
    _Alignas(128) int cpu_b, pinned_b;
    unsigned trials;
};

static void *upgrade_reader(void *arg)
{
    struct upgrade *u = arg;
    u->pinned_b = measure_pin(u->cpu_b) == 0;
    uint64_t sum = 0;
    for (uint64_t k = 1; k <= u->trials; k++) {
        while (atomic_load_explicit(&u->go, memory_order_acquire) != k)
            ;
        sum += atomic_load_explicit(&u->shared_line, memory_order_relaxed);
        atomic_store_explicit(&u->done, k, memory_order_release);
    }
    sink_u64 = sum;
    return NULL;
}

/* ticks of one store + full fence to *line (the fence waits for the store to own its line) */
static inline uint64_t timed_store(_Atomic uint64_t *line, uint64_t v)
{
    uint64_t t0 = bench_ticks();
    atomic_store_explicit(line, v, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    return bench_ticks() - t0;
}

static int upgrade_run(int a, int b, unsigned trials, double *shared_ns, double *owned_ns)
{
    struct upgrade *u = aligned_alloc(128, sizeof *u);
    double *sh = malloc(trials * sizeof *sh), *ow = malloc(trials * sizeof *ow);
    pthread_t th;
    if (u) {
        memset(u, 0, sizeof *u);
        u->cpu_b = b;
        u->trials = trials;
    }
    if (!u || !sh || !ow || measure_partner(a, upgrade_reader, u, &th)) {
        free(u), free(sh), free(ow);
        return -1;
    }
    uint64_t sum = 0;
    for (uint64_t k = 1; k <= trials; k++) {
        atomic_store_explicit(&u->shared_line, k, memory_order_relaxed); /* a owns it (b's copy gone) */
        atomic_store_explicit(&u->go, k, memory_order_release);
        while (atomic_load_explicit(&u->done, memory_order_acquire) != k)
            ;
        /* b holds a copy now; a reads both lines so that it holds both (the stores below are no misses) */
        sum += atomic_load_explicit(&u->shared_line, memory_order_relaxed);
        sum += atomic_load_explicit(&u->owned_line, memory_order_relaxed);
        ow[k - 1] = bench_ticks_to_ns((double)timed_store(&u->owned_line, k));
        sh[k - 1] = bench_ticks_to_ns((double)timed_store(&u->shared_line, k + 1));
    }
    pthread_join(th, NULL);
    sink_u64 = sum;
    int ok = u->pinned_b;
    *shared_ns = measure_warm_median(sh, trials);
    *owned_ns = measure_warm_median(ow, trials);
    free(u), free(sh), free(ow);
    return ok ? 0 : -1;
}

int measure_upgrade(int a, int b, unsigned trials, unsigned runs, double *shared_ns, double *owned_ns)
{
    if (trials < 10)
        trials = 10;
    for (unsigned r = 0; r < runs; r++)
        if (upgrade_run(a, b, trials, &shared_ns[r], &owned_ns[r]))
            return -1;
    return 0;
}

/* ---- atomic read-modify-write vs plain store on an owned line ---- */

static struct {
    _Alignas(128) _Atomic uint64_t v;
} owned;

void measure_atomic(unsigned ops, unsigned runs, double *rmw_ns, double *store_ns)
{
    if (!ops)
        ops = 1;
    for (unsigned r = 0; r <= runs; r++) {
        uint64_t inc = 1, t0 = bench_mono_ns();
        for (unsigned i = 0; i < ops; i++) /* the next addend depends on the old value: a latency chain */
            inc = 1 + (atomic_fetch_add_explicit(&owned.v, inc, memory_order_seq_cst) >> 63);
        uint64_t t1 = bench_mono_ns();
        for (unsigned i = 0; i < ops; i++)
            atomic_store_explicit(&owned.v, i, memory_order_relaxed);
        uint64_t t2 = bench_mono_ns();
        sink_u64 = inc;
        if (r) { /* run 0 warms up */
            rmw_ns[r - 1] = (double)(t1 - t0) / ops;
            store_ns[r - 1] = (double)(t2 - t1) / ops;
        }
    }
}

/* ---- core clock from dependent adds ---- */

double measure_add_chain_ghz(void)
{
    double best = 0;
    for (int r = 0; r < 4; r++) {
        uint64_t x = 0, n = 0, t0 = bench_mono_ns(), t1;
        do { /* each add depends on the previous one; the empty asm keeps the compiler from folding them */
            for (int i = 0; i < 1024; i++) {
                x += 1;
                __asm__ volatile("" : "+r"(x));
                x += 1;
                __asm__ volatile("" : "+r"(x));
                x += 1;
                __asm__ volatile("" : "+r"(x));
                x += 1;
                __asm__ volatile("" : "+r"(x));
            }
            n += 4096;
            t1 = bench_mono_ns();
        } while (t1 - t0 < 5000000u);
        sink_u64 = x;
        double ghz = (double)n / (double)(t1 - t0);
        if (ghz > best)
            best = ghz;
    }
    return best;
}
