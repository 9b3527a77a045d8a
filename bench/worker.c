/* worker.c — the entry point of every benchmark worker executable (bench-core, bench-gomp,
 * bench-llvm-omp, bench-std): one measurement per process, its result as one JSON line on stdout.
 * `andgate bench` runs the workers and gathers the lines; they can also be run by hand:
 *
 *   WORKER --list                      the implementations this worker hosts ("name kind" lines)
 *   WORKER --clock                     {"clock":"tsc"|"monotonic","tsc_ghz":x}
 *   WORKER --c2c A,B [--rounds N]      core-to-core one-way latency between CPUs A and B
 *   WORKER --impl NAME --threads N [--method latency|epcc|jitter] [--pin cores|compact|scatter|none]
 *          [--spec SPEC --wait WAIT] [--episodes E] [--budget-ms B] [--jitter-us D]
 *          [--late rotating|fixed] [--samples K]
 *
 * The options are rows of the one table in common/experiment.c (numbers checked, exit 2 for bad usage);
 * `andgate bench` passes on the ones it shares with the workers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2c.h"
#include "clock.h"
#include "andgate.h"
#include "counts.h"
#include "experiment.h"
#include "engine.h"

static int word(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

static int c2c(const char *pair, unsigned rounds)
{
    int x, y;
    char end;
    if (sscanf(pair, "%d,%d%c", &x, &y, &end) != 2)
        ag_usage_error("worker", "--c2c: expected two CPUs A,B, got '%s'", pair);
    struct c2c_result r;
    if (c2c_measure(x, y, rounds, &r)) {
        fprintf(stderr, "c2c: cannot pin to CPUs %d and %d\n", x, y);
        return 1;
    }
    printf("{\"a\":%d,\"b\":%d,\"min_ns\":%.1f,\"median_ns\":%.1f,\"skew_ns\":%.1f}\n", r.a, r.b, r.min_ns, r.median_ns,
           r.skew_ns);
    return 0;
}

int main(int argc, char **argv)
{
    /* the options of a job: the rows of common/experiment.c that the bench workers read */
    struct ag_exp o = { .method = "latency", .pin = "cores", .late = "rotating", .wait = "auto", .episodes = 20000,
                        .budget_ms = 300, .jitter_us = 100, .rounds = 20000, .samples = 101 };
    if (ag_exp_parse("worker", AG_EXP_BENCH_JOB, &o, argc, argv, 1)) {
        printf("usage: WORKER --list | --clock | --c2c A,B [--rounds N] | --impl NAME --threads N [OPTIONS]\n");
        ag_exp_usage(stdout, AG_EXP_BENCH_JOB);
        return 0;
    }
    bench_clock_init();
    if (o.list) {
        for (int k = 0; bench_impls[k]; k++)
            printf("%s %s\n", bench_impls[k]->name, bench_impls[k]->kind);
        return 0;
    }
    if (o.clock) {
        printf("{\"clock\":\"%s\",\"tsc_ghz\":%.4f}\n", bench_clk.tsc ? "tsc" : "monotonic",
               bench_clk.tsc ? bench_clk.ticks_per_ns : 0.0);
        return 0;
    }
    if (o.c2c)
        return c2c(o.c2c, o.rounds);
    struct bench_params p = { .spec = o.spec, .wait = o.wait, .method = word(o.method, bench_method_names, 3),
                              .pin = word(o.pin, bench_pin_names, 4), .episodes = o.episodes,
                              .budget_ns = (uint64_t)o.budget_ms * 1000000u, .jitter_ns = (uint64_t)(o.jitter_us * 1000),
                              .late_rotating = !strcmp(o.late, "rotating"), .nsamples = o.samples };
    char err[200];
    if (!o.impl || !o.threads)
        ag_usage_error("worker", "a job needs --impl NAME and --threads N");
    if (ag_parse_counts(o.threads, 4096, &p.n, 1, err, sizeof err) != 1)
        ag_usage_error("worker", "--threads: expected one count in 1..4096, got '%s'", o.threads);
    if (p.method < 0)
        ag_usage_error("worker", "--method: one method per job, got '%s'", o.method);
    for (int k = 0; bench_impls[k]; k++)
        if (!strcmp(bench_impls[k]->name, o.impl))
            p.impl = bench_impls[k];
    if (!p.impl)
        ag_usage_error("worker", "no implementation '%s' here (--list)", o.impl);
    /* before any pinning: an OpenMP team pins the calling thread as its thread 0 */
    p.usable = ag_usable_cpus();
    struct bench_result r;
    bench_run(&p, &r);
    bench_result_json(stdout, &p, &r);
    bench_result_free(&r);
    return 0;
}
