/* omp_constructs — the overhead of OpenMP constructs in the runtime a compiler links (gcc: libgomp,
 * clang: libomp), for `andgate bench --preload apps`, which runs it with and without
 * libandgate-preload.so. It knows nothing of andgate.
 *
 * The method is that of the EPCC OpenMP micro-benchmarks (Bull 1999; the barrier benchmark 003 §5.1
 * uses), written here from the method: a short delay loop of about 0.1 us (EPCC's default delay time)
 * is executed `reps` times wrapped in the construct; the same delay loop executed `reps` times in one
 * parallel region without the construct is the reference. The overhead of one construct is
 *     (time of the test - reps x reference time per delay) / reps.
 *   parallel     a `parallel` region per rep, each thread runs the delay
 *   parallel-for a `parallel for schedule(static)` per rep over one iteration per thread, each the
 *                delay (EPCC's PARALLEL FOR: the region and the loop, whose end is the region's join)
 *   for          one region; per rep a `for schedule(static)` over one iteration per thread, each
 *                iteration the delay (the implicit barrier at its end included)
 *   for-dynamic  the same with schedule(dynamic)
 *   parallel-for-dynamic  a `parallel for schedule(dynamic)` per rep over 64 iterations, each the delay:
 *                a constant count, so gcc starts the region and its loop in one call (GOMP_parallel_loop_*),
 *                as it does for any such loop whose bounds are constants; the reference is 64 / threads
 *                delays per rep
 *   barrier      one region; per rep the delay, then `barrier`
 *   single       one region; per rep a `single` running the delay (implicit barrier included)
 *   reduction    one region; per rep a `for reduction(+:x)` over one iteration per thread, the delay
 *                and x += 1 (the sum is checked)
 *   doacross     one region; per rep a `for ordered(1) schedule(static, 1)` over one iteration per
 *                thread: the delay, then `ordered depend(sink: i - 1)` and `depend(source)` (not EPCC's:
 *                the loop's start, the chain of threads - 1 hand-offs from each thread to the next, and
 *                the implicit barrier at its end)
 * Times are wall times of the master thread around the whole region (EPCC's), so the region's start
 * and end count once per test; `reps` is doubled until a test takes the target time (or given -r),
 * which makes that share small. Each test is repeated `outer` times: median and min of the overhead.
 *
 * Threads: OMP_NUM_THREADS (the runtime's default team). Output: one JSON line per construct,
 *   {"construct":"barrier","threads":2,"overhead_ns":{"median":..,"min":..},"reference_ns":..,
 *    "reps":..,"outer":..}
 * usage: omp-constructs [-c LIST] [-r REPS] [-q]; bad usage exits 2 with one line on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omp_construct_list.h"

#define DELAY_NS 100.0 /* EPCC's default delay time, 0.1 us */
#define MAXOUTER 64

static long delay_iters = 1;
static int team = 1;

static void delay(long n)
{
    double a = 0.0;
    for (long i = 0; i < n; i++)
        a += (double)i * 0.5; /* a dependent chain: neither vectorized nor folded without fast-math */
    volatile double sink = a;
    (void)sink;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the tests: each returns the wall time of reps executions ---- */

static double t_reference(long reps)
{
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++)
        delay(delay_iters);
    return now() - t0;
}

static double t_parallel(long reps)
{
    double t0 = now();
    for (long j = 0; j < reps; j++) {
#pragma omp parallel
        delay(delay_iters);
    }
    return now() - t0;
}

static double t_parallel_for(long reps)
{
    double t0 = now();
    for (long j = 0; j < reps; j++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < team; i++)
            delay(delay_iters);
    }
    return now() - t0;
}

static double t_for(long reps)
{
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for schedule(static)
        for (int i = 0; i < team; i++)
            delay(delay_iters);
    }
    return now() - t0;
}

static double t_for_dynamic(long reps)
{
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for schedule(dynamic)
        for (int i = 0; i < team; i++)
            delay(delay_iters);
    }
    return now() - t0;
}

static double t_parallel_for_dynamic(long reps)
{
    double t0 = now();
    for (long j = 0; j < reps; j++) {
#pragma omp parallel for schedule(dynamic)
        for (int i = 0; i < AG_OMP_PFD_ITERS; i++)
            delay(delay_iters);
    }
    return now() - t0;
}

static double t_barrier(long reps)
{
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
        delay(delay_iters);
#pragma omp barrier
    }
    return now() - t0;
}

static double t_single(long reps)
{
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp single
        delay(delay_iters);
    }
    return now() - t0;
}

static double t_reduction(long reps)
{
    long sum = 0;
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < team; i++) {
            delay(delay_iters);
            sum += 1;
        }
    }
    double t = now() - t0;
    if (sum != reps * team) {
        fprintf(stderr, "omp-constructs: reduction gave %ld, expected %ld\n", sum, reps * team);
        exit(1);
    }
    return t;
}

static double t_doacross(long reps)
{
    double t0 = now();
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for ordered(1) schedule(static, 1)
        for (int i = 0; i < team; i++) {
            delay(delay_iters);
#pragma omp ordered depend(sink : i - 1)
#pragma omp ordered depend(source)
        }
    }
    return now() - t0;
}

static const struct construct {
    const char *name;
    double (*run)(long reps);
    int iters; /* 0: one delay per thread and rep; else a loop of this many delays shared by the team */
} constructs[] = {
#define AG_CONSTRUCT_ENTRY(id, name, iters) { name, t_##id, iters },
    AG_OMP_CONSTRUCTS(AG_CONSTRUCT_ENTRY, )
#undef AG_CONSTRUCT_ENTRY
};
enum { NCONSTRUCTS = sizeof constructs / sizeof constructs[0] };

/* ---- measurement ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* delay_iters for about DELAY_NS: the fastest of a few timed long runs */
static void calibrate_delay(void)
{
    const long n = 1000000;
    double best = 1e9;
    for (int k = 0; k < 5; k++) {
        double t0 = now();
        delay(n);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    delay_iters = (long)(DELAY_NS * 1e-9 / (best / (double)n) + 0.5);
    if (delay_iters < 1)
        delay_iters = 1;
}

/* reps given, or doubled from 64 until one test takes target seconds */
static long pick_reps(double (*run)(long), long fixed, double target)
{
    if (fixed)
        return fixed;
    long reps = 64;
    while (run(reps) < target && reps < (1L << 30))
        reps *= 2;
    return reps;
}

/* per-delay reference time in seconds: the median over outer repetitions */
static double reference(long fixed, double target, int outer)
{
    long reps = pick_reps(t_reference, fixed, target);
    double v[MAXOUTER];
    for (int k = 0; k < outer; k++)
        v[k] = t_reference(reps) / (double)reps;
    return median(v, outer);
}

static void measure(const struct construct *c, double ref, long fixed, double target, int outer)
{
    long reps = pick_reps(c->run, fixed, target);
    const double work = c->iters ? (double)c->iters / team : 1.0; /* delays per thread and rep */
    double v[MAXOUTER], lo = 0;
    for (int k = 0; k < outer; k++) {
        v[k] = (c->run(reps) / (double)reps - ref * work) * 1e9;
        lo = k == 0 || v[k] < lo ? v[k] : lo;
    }
    printf("{\"construct\":\"%s\",\"threads\":%d,\"overhead_ns\":{\"median\":%.2f,\"min\":%.2f},"
           "\"reference_ns\":%.2f,\"reps\":%ld,\"outer\":%d}\n",
           c->name, team, median(v, outer), lo, ref * 1e9, reps, outer);
    fflush(stdout);
}

static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "omp-constructs: %s '%s' (usage: omp-constructs [-c ", what, arg);
    for (int k = 0; k < NCONSTRUCTS; k++) /* the table's names, in its order */
        fprintf(stderr, "%s%s", k ? "," : "", constructs[k].name);
    fprintf(stderr, "] [-r REPS] [-q])\n");
    exit(2);
}

/* -c LIST into want[]: each name known, none twice */
static void parse_list(char *list, int *want)
{
    for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < NCONSTRUCTS && strcmp(constructs[k].name, t))
            k++;
        if (k == NCONSTRUCTS)
            usage_error("unknown construct", t);
        if (want[k])
            usage_error("construct named twice", t);
        want[k] = 1;
    }
}

int main(int argc, char **argv)
{
    int want[NCONSTRUCTS] = { 0 }, any = 0, quick = 0;
    long fixed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-q")) {
            quick = 1;
        } else if ((!strcmp(a, "-c") || !strcmp(a, "-r")) && i + 1 < argc) {
            char *v = argv[++i], *end;
            if (a[1] == 'c') {
                if (!*v || *v == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
                    usage_error("bad construct list", v);
                parse_list(v, want);
                continue;
            }
            errno = 0;
            fixed = (*v >= '0' && *v <= '9') ? strtol(v, &end, 10) : -1;
            if (fixed < 1 || fixed > (1L << 30) || errno || *end)
                usage_error("-r: expected a count from 1 to 2^30, got", v);
        } else {
            usage_error(a[0] == '-' && (a[1] == 'c' || a[1] == 'r') ? "option needs a value:" : "unknown argument",
                        a);
        }
    }
    for (int k = 0; k < NCONSTRUCTS; k++)
        any |= want[k];
#pragma omp parallel
#pragma omp master
    team = omp_get_num_threads();
    const int outer = quick ? 5 : 20;
    const double target = quick ? 1e-3 : 1e-2; /* seconds per test */
    calibrate_delay();
    double ref = reference(fixed, target, outer);
    for (int k = 0; k < NCONSTRUCTS; k++)
        if (!any || want[k])
            measure(&constructs[k], ref, fixed, target, outer);
    return 0;
}
