/* worker.c — the entry point of every benchmark worker executable (bench-core, bench-gomp,
 * bench-llvm-omp, bench-std): one measurement per process, its result as one JSON line on stdout.
 * `andgate bench` runs the workers and gathers the lines; they can also be run by hand:
 *
 *   WORKER --list                      the implementations this worker hosts ("name kind" lines)
 *   WORKER --clock                     {"clock":"tsc"|"monotonic","tsc_ghz":x}
 *   WORKER --c2c A,B [--rounds N]      core-to-core one-way latency between CPUs A and B
 *   WORKER --impl NAME --threads N [--method latency|epcc|jitter] [--pin compact|scatter|none]
 *          [--spec SPEC --wait WAIT] [--episodes E] [--budget-ms B] [--jitter-us D]
 *          [--late rotating|fixed] [--samples K]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2c.h"
#include "clock.h"
#include "andgate.h"
#include "engine.h"

static int usage(void)
{
    fprintf(stderr, "usage: see the comment at the top of bench/worker.c\n");
    return 2;
}

static int word(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    struct bench_params p = { .n = 0, .method = BM_LATENCY, .pin = PIN_COMPACT, .episodes = 20000,
                              .budget_ns = 300000000u, .jitter_ns = 100000, .late_rotating = 1, .nsamples = 101 };
    const char *impl = NULL;
    bench_clock_init();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--list")) {
            for (int k = 0; bench_impls[k]; k++)
                printf("%s %s\n", bench_impls[k]->name, bench_impls[k]->kind);
            return 0;
        }
        if (!strcmp(a, "--clock")) {
            printf("{\"clock\":\"%s\",\"tsc_ghz\":%.4f}\n", bench_clk.tsc ? "tsc" : "monotonic",
                   bench_clk.tsc ? bench_clk.ticks_per_ns : 0.0);
            return 0;
        }
        if (!v)
            return usage();
        i++;
        if (!strcmp(a, "--c2c")) {
            int x, y;
            unsigned rounds = 20000;
            if (sscanf(v, "%d,%d", &x, &y) != 2)
                return usage();
            if (i + 2 < argc && !strcmp(argv[i + 1], "--rounds"))
                rounds = (unsigned)strtoul(argv[i + 2], NULL, 10);
            struct c2c_result r;
            if (c2c_measure(x, y, rounds ? rounds : 1, &r)) {
                fprintf(stderr, "c2c: cannot pin to CPUs %d and %d\n", x, y);
                return 1;
            }
            printf("{\"a\":%d,\"b\":%d,\"min_ns\":%.1f,\"median_ns\":%.1f,\"skew_ns\":%.1f}\n", r.a, r.b, r.min_ns,
                   r.median_ns, r.skew_ns);
            return 0;
        }
        if (!strcmp(a, "--impl")) impl = v;
        else if (!strcmp(a, "--threads")) p.n = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--method")) p.method = word(v, bench_method_names, 3);
        else if (!strcmp(a, "--pin")) p.pin = word(v, bench_pin_names, 3);
        else if (!strcmp(a, "--spec")) p.spec = v;
        else if (!strcmp(a, "--wait")) p.wait = v;
        else if (!strcmp(a, "--episodes")) p.episodes = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--budget-ms")) p.budget_ns = strtoull(v, NULL, 10) * 1000000u;
        else if (!strcmp(a, "--jitter-us")) p.jitter_ns = (uint64_t)(strtod(v, NULL) * 1000);
        else if (!strcmp(a, "--late")) p.late_rotating = !strcmp(v, "rotating") ? 1 : !strcmp(v, "fixed") ? 0 : -1;
        else if (!strcmp(a, "--samples")) p.nsamples = (unsigned)strtoul(v, NULL, 10);
        else return usage();
    }
    if (!impl || p.n == 0 || p.n > 4096 || p.method < 0 || p.pin < 0 || p.late_rotating < 0)
        return usage();
    for (int k = 0; bench_impls[k]; k++)
        if (!strcmp(bench_impls[k]->name, impl))
            p.impl = bench_impls[k];
    if (!p.impl) {
        fprintf(stderr, "worker: no implementation '%s' here\n", impl);
        return 2;
    }
    /* before any pinning: an OpenMP team pins the calling thread as its thread 0 */
    p.usable = ag_usable_cpus();
    struct bench_result r;
    bench_run(&p, &r);
    bench_result_json(stdout, &p, &r);
    bench_result_free(&r);
    return 0;
}
