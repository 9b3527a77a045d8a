/* c2c.c — core-to-core one-way latency by cache-line ping-pong (see c2c.h). */
#define _GNU_SOURCE
#include "c2c.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "stats.h"

struct pingpong {
    _Alignas(128) _Atomic uint64_t line; /* alone on its (adjacent-pair of) cache line(s) */
    _Alignas(128) int cpu_b;
    unsigned rounds;
    int pinned_b;
    uint64_t *seen_b; /* b's clock when it saw round trip i */
};

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static void *pong(void *p)
{
    struct pingpong *pp = p;
    pp->pinned_b = pin(pp->cpu_b) == 0;
    for (uint64_t k = 1, i = 0; k <= 2 * (uint64_t)pp->rounds; k += 2, i++) {
        while (atomic_load_explicit(&pp->line, memory_order_acquire) != k)
            ;
        pp->seen_b[i] = bench_ticks();
        atomic_store_explicit(&pp->line, k + 1, memory_order_release);
    }
    return NULL;
}

int c2c_measure(int a, int b, unsigned roundtrips, struct c2c_result *out)
{
    struct pingpong *pp = aligned_alloc(128, sizeof *pp);
    double *rt = malloc(roundtrips * sizeof *rt), *skew = malloc(roundtrips * sizeof *skew);
    uint64_t *sent = malloc(roundtrips * sizeof *sent), *seen = malloc(roundtrips * sizeof *seen);
    if (!pp || !rt || !skew || !sent || !seen || pin(a) != 0) {
        free(pp), free(rt), free(skew), free(sent), free(seen);
        return -1;
    }
    pp->seen_b = seen;
    atomic_init(&pp->line, 0);
    pp->cpu_b = b;
    pp->rounds = roundtrips;
    pp->pinned_b = 0;
    pthread_t th;
    if (pthread_create(&th, NULL, pong, pp)) {
        free(pp), free(rt), free(skew), free(sent), free(seen);
        return -1;
    }
    for (uint64_t k = 1, i = 0; i < roundtrips; k += 2, i++) {
        uint64_t t0 = bench_ticks();
        atomic_store_explicit(&pp->line, k, memory_order_release);
        while (atomic_load_explicit(&pp->line, memory_order_acquire) != k + 1)
            ;
        uint64_t t1 = bench_ticks();
        sent[i] = t0;
        rt[i] = bench_ticks_to_ns((double)(t1 - t0)) / 2;
        skew[i] = (double)(t1 - t0) / 2; /* completed below, once b's stamps are ours */
    }
    pthread_join(th, NULL);
    for (unsigned i = 0; i < roundtrips; i++)
        skew[i] = bench_ticks_to_ns((double)(int64_t)(seen[i] - sent[i]) - skew[i]);
    /* the first round trips find the line and the threads cold: drop a tenth */
    unsigned warm = roundtrips / 10;
    struct stats st = stats_of(rt + warm, roundtrips - warm), sk = stats_of(skew + warm, roundtrips - warm);
    *out = (struct c2c_result){ a, b, st.min, st.median, sk.median };
    int ok = pp->pinned_b;
    free(pp), free(rt), free(skew), free(sent), free(seen);
    return ok ? 0 : -1;
}
