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
    for (uint64_t k = 1; k <= 2 * (uint64_t)pp->rounds; k += 2) {
        while (atomic_load_explicit(&pp->line, memory_order_acquire) != k)
            ;
        atomic_store_explicit(&pp->line, k + 1, memory_order_release);
    }
    return NULL;
}

int c2c_measure(int a, int b, unsigned roundtrips, struct c2c_result *out)
{
    struct pingpong *pp = aligned_alloc(128, sizeof *pp);
    double *rt = malloc(roundtrips * sizeof *rt);
    if (!pp || !rt || pin(a) != 0) {
        free(pp), free(rt);
        return -1;
    }
    atomic_init(&pp->line, 0);
    pp->cpu_b = b;
    pp->rounds = roundtrips;
    pp->pinned_b = 0;
    pthread_t th;
    if (pthread_create(&th, NULL, pong, pp)) {
        free(pp), free(rt);
        return -1;
    }
    for (uint64_t k = 1, i = 0; i < roundtrips; k += 2, i++) {
        uint64_t t0 = bench_ticks();
        atomic_store_explicit(&pp->line, k, memory_order_release);
        while (atomic_load_explicit(&pp->line, memory_order_acquire) != k + 1)
            ;
        rt[i] = bench_ticks_to_ns((double)(bench_ticks() - t0)) / 2;
    }
    pthread_join(th, NULL);
    /* the first round trips find the line and the threads cold: drop a tenth */
    unsigned warm = roundtrips / 10;
    struct stats st = stats_of(rt + warm, roundtrips - warm);
    *out = (struct c2c_result){ a, b, st.min, st.median };
    int ok = pp->pinned_b;
    free(pp);
    free(rt);
    return ok ? 0 : -1;
}
