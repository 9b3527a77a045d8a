/* engine.h — the measurement engine of andgate bench: one harness for every implementation.
 *
 * Methods (docs/bench.md has the definitions and their sources):
 *   latency  back-to-back episodes on pinned threads; per episode, the time from the last arrival to
 *            the last departure, from a synchronized clock (001 §V, 002 §IV, 003 §5, 000 §2);
 *   epcc     EPCC syncbench overhead: (delay + barrier) loop time minus delay-only loop time, per
 *            barrier, inner repetitions self-calibrated to a target test time, 20 outer repetitions
 *            (Bull, "Measuring synchronisation and scheduling overheads in OpenMP", 003 [4]);
 *   jitter   one late thread (fixed or rotating) delays its arrival; release latency after the last
 *            arrival and the CPU time all threads burned per episode (001 §V-B, Fig. 7b).
 */
#ifndef AG_BENCH_ENGINE_H
#define AG_BENCH_ENGINE_H

#include <stdint.h>
#include <stdio.h>

#include "impl.h"
#include "stats.h"

enum bench_method { BM_LATENCY, BM_EPCC, BM_JITTER };
enum bench_pin { PIN_CORES, PIN_COMPACT, PIN_SCATTER, PIN_NONE };

extern const char *const bench_method_names[]; /* "latency", "epcc", "jitter" */
extern const char *const bench_pin_names[];    /* "cores", "compact", "scatter", "none" */

struct bench_params {
    const struct bench_impl *impl;
    const char *spec, *wait; /* andgate spec strings (NULL for baselines) */
    unsigned n;
    int method, pin;
    unsigned episodes;       /* at most this many episodes (latency, jitter) */
    uint64_t budget_ns;      /* and at most about this much time per measurement */
    uint64_t jitter_ns;      /* jitter: the late thread's delay */
    int late_rotating;       /* jitter: the late thread is k mod n (else the last tid) */
    unsigned nsamples;       /* quantiles of the latency distribution kept for CDF plots */
    unsigned usable;         /* usable CPUs of the process before any pinning (0: ask) */
};

struct bench_result {
    int ok;
    char error[200];
    char desc[256];          /* what the implementation says it created */
    unsigned episodes;
    struct stats ns;         /* latency per episode (latency, jitter) or overhead per barrier (epcc) */
    struct stats cycles;     /* the same in TSC reference cycles (zero without an invariant TSC) */
    double cpu_ns_per_episode;
    double c2c_ns;           /* latency, n >= 2, pinned: one-way c2c median between threads 0 and 1's CPUs,
                              * measured right before (the machine's c2c drifts; 0 when not measured) */
    double *samples;         /* nsamples quantiles in ns, malloc'd (NULL for epcc) */
    unsigned nsamples;
};

/* The CPU each participant is pinned to under a policy, from the usable CPUs and the topology:
 * cores takes one hardware thread of every core (topology order) before any SMT sibling, compact
 * fills hardware threads in topology order (siblings together), scatter spreads consecutive tids
 * across packages, cache groups and cores first; cpu[i] = -1 for none. The simulator's placements
 * (sim/machine_place.c) have the same names and meaning. */
void bench_pin_map(int pin, unsigned n, int *cpu);

int bench_run(const struct bench_params *p, struct bench_result *r);
void bench_result_free(struct bench_result *r);

/* The result as one JSON object of the result schema (python/andgate_report/schema.json), one line. */
void bench_result_json(FILE *f, const struct bench_params *p, const struct bench_result *r);

#endif
