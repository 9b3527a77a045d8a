/* andgate bench — every andgate algorithm beside the barriers people use today and beside the physical
 * limit, in one run. The data path: options (common/experiment.c; bench's defaults here) -> plan
 * (bench_plan.c: workers, specs, waits, baselines, jobs) -> one worker process per job (tools/front.c
 * runs bench/worker.c, which prints one record, a JSON line) -> the result document (written here with
 * the host's clock and core-to-core passes; valid JSON whatever a worker did) -> CSV, report and
 * summary (python/andgate_report). --mpi plans MPI jobs instead (bench_plan_make_mpi: each worker is
 * `mpirun -np R bench-mpi`, bench/mpi_worker.c); --preload is tools/bench_preload.c. Exit status: 0,
 * 1 when a measurement failed (its record says why), 2 for a bad command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "bench_plan.h"
#include "child.h"
#include "cli.h"
#include "counts.h"
#include "front.h"
#include "host.h"
#include "json.h"
#include "paths.h"
#include "record.h"
#include "spec.h"
#include "topo.h"

#define PROG "andgate bench"

extern char **environ;

static double json_num(const char *s, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(s, k);
    return p ? strtod(p + strlen(k), NULL) : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 1 .. usable CPUs, then the oversubscribed counts u+1, 2u, 3u, 4u (quick: u and 2u), no repeats */
static void default_threads(unsigned u, int quick, unsigned *out, unsigned *n)
{
    unsigned cand[AG_PLAN_MAX], m = 0;
    if (quick) {
        cand[m++] = u;
        cand[m++] = 2 * u;
    } else {
        for (unsigned t = 1; t <= u && m < AG_PLAN_MAX - 4; t++)
            cand[m++] = t;
        cand[m++] = u + 1, cand[m++] = 2 * u, cand[m++] = 3 * u, cand[m++] = 4 * u;
    }
    *n = 0;
    for (unsigned i = 0; i < m; i++) {
        int dup = 0;
        for (unsigned j = 0; j < *n; j++)
            dup |= out[j] == cand[i];
        if (!dup)
            out[(*n)++] = cand[i];
    }
}

/* The physical limit: one-way latency for CPU pairs (all pairs up to 8 CPUs; beyond, CPU 0 against
 * every CPU and neighbours), appended to acc. Run before and after the measurements: the machine's
 * noise moves it, and both passes go into host.c2c_oneway_ns. */
struct c2c_acc {
    double min[256], med[256];
    unsigned n;
    char json[32768];
    size_t len;
};

static void c2c_pass(const struct bench_worker *core, const int *aff, unsigned na, unsigned rounds, int pass,
                     struct c2c_acc *acc)
{
    struct ag_child c = { 0 };
    for (unsigned a = 0; a < na; a++)
        for (unsigned b = a + 1; b < na && acc->n < 256; b++) {
            if (na > 8 && a != 0 && b != a + 1)
                continue;
            char pair[32], rs[16];
            snprintf(pair, sizeof pair, "%d,%d", aff[a], aff[b]);
            snprintf(rs, sizeof rs, "%u", rounds);
            char *argv[] = { (char *)core->path, "--c2c", pair, "--rounds", rs, NULL };
            if (ag_child_run(argv, environ, 30, &c) || c.out[0] != '{')
                continue;
            char *line = c.out;
            acc->min[acc->n] = json_num(line, "min_ns");
            acc->med[acc->n] = json_num(line, "median_ns");
            line[strcspn(line, "}")] = '\0';
            acc->len += (size_t)snprintf(acc->json + acc->len, acc->len < sizeof acc->json ? sizeof acc->json - acc->len : 0,
                                         "%s%s,\"pass\":%d}", acc->n ? "," : "", line, pass);
            fprintf(stderr, PROG ": core-to-core CPU %d <-> %d (%s): one-way min %.0f ns, median %.0f ns\n", aff[a],
                    aff[b], pass == 1 ? "before" : "after", acc->min[acc->n], acc->med[acc->n]);
            acc->n++;
        }
    free(c.out);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: andgate bench [OPTIONS]\n");
    ag_exp_usage(f, AG_EXP_BENCH);
    fprintf(f, "       andgate bench --preload apps [--apps LIST] [--threads LIST] [--bind both|true|false]\n"
               "                     [--constructs all|none|LIST] [--repeat N] [--timeout S] [--quick]\n"
               "                     [--json FILE] [--report DIR] [--csv FILE]\n"
               "       andgate bench --mpi [--ranks LIST] [--threads LIST] [--mpi-node shared[:ranks=K]|rank|both] [--wait LIST]\n"
               "                     [--method latency|epcc|all] [--episodes N] [--budget-ms MS] [--timeout S] [--quick]\n"
               "                     [--json FILE|-] [--csv FILE] [--report DIR] [--quiet]\n"
               "       andgate bench --preload 'COMMAND' [--repeat N] [--timeout S] [--json FILE] [--report DIR] [--csv FILE]\n"
               "docs/options.md lists every option of bench and sim; docs/bench.md explains the methods.\n");
}

/* --mpi takes the plan's --threads (per rank), --ranks, --mpi-node, --wait, --method latency|epcc|all and
 * how each job runs; an option that picks what a bench without --mpi measures is refused, and --ranks
 * and --mpi-node are refused without --mpi. */
static void check_mpi_options(int argc, char **argv, struct ag_exp *o)
{
    static const char *const not_mpi[] = { "--algos", "--baselines", "--pin",
                                           "--jitter-us", "--late", "--cdf-threads" };
    if (!o->mpi) {
        if (o->ranks || o->mpi_node)
            ag_usage_error(PROG, "%s: only with --mpi", o->ranks ? "--ranks" : "--mpi-node");
        return;
    }
    for (int i = 1; i < argc; i++)
        for (unsigned k = 0; k < sizeof not_mpi / sizeof *not_mpi; k++) {
            size_t n = strlen(not_mpi[k]);
            if (!strncmp(argv[i], not_mpi[k], n) && (argv[i][n] == '\0' || argv[i][n] == '='))
                ag_usage_error(PROG, "%s: not with --mpi (it measures mpi:fused:*, mpi:three-step and mpi:MPI_Barrier, "
                                     "mpirun placing the ranks)", not_mpi[k]);
        }
    if (!strcmp(o->method, "jitter"))
        ag_usage_error(PROG, "--method: with --mpi expected latency, epcc or all, got 'jitter'");
    if (!strcmp(o->method, "all"))
        o->method = "latency|epcc";
    if (!o->threads)
        o->threads = "1,2"; /* per rank */
    /* Open MPI's mpirun refuses root unless both variables say so; every job would fail on its banner */
    const char *allow = getenv("OMPI_ALLOW_RUN_AS_ROOT"), *confirm = getenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM");
    if (geteuid() == 0 && !getenv("ANDGATE_MPIRUN") && !(allow && !strcmp(allow, "1") && confirm && !strcmp(confirm, "1")))
        ag_usage_error(PROG, "--mpi: running as root, which Open MPI's mpirun refuses; run as another user, or set "
                             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (or ANDGATE_MPIRUN)");
}

/* The command line into o over bench's defaults, checked whole: methods and thread counts resolved.
 * 1 for --help. */
static int parse_options(int argc, char **argv, struct ag_exp *o, const char **methods, unsigned *nm, unsigned *threads,
                         unsigned *nt)
{
    *o = (struct ag_exp){ .algos = "all", .baselines = "all", .wait = "auto", .method = "all", .pin = "cores",
                          .late = "rotating", .episodes = 20000, .budget_ms = 250, .jitter_us = 100, .rounds = 20000 };
    if (ag_exp_parse(PROG, AG_EXP_BENCH, o, argc, argv, 1))
        return 1;
    if (o->quick) {
        o->episodes = o->episodes < 5000 ? o->episodes : 5000;
        o->budget_ms = o->budget_ms < 100 ? o->budget_ms : 100;
        o->rounds = 5000;
    }
    check_mpi_options(argc, argv, o);
    if (!o->timeout_s) /* a worker that outlives 20 budgets (a spinning baseline starved by oversubscription) */
        o->timeout_s = 20.0 * o->budget_ms / 1000 + 5;
    if (!strcmp(o->method, "latency|epcc")) /* --mpi's all */
        methods[0] = "latency", methods[1] = "epcc", *nm = 2;
    else
        *nm = ag_exp_methods(o->method, methods);
    char msg[512];
    if (!o->threads)
        default_threads(ag_usable_cpus(), o->quick, threads, nt);
    else if (!(*nt = ag_parse_counts(o->threads, 4096, threads, AG_PLAN_MAX, msg, sizeof msg)))
        ag_usage_error(PROG, "--threads: %s", msg);
    return 0;
}

/* The result document (DESIGN.md: tool, version, mode, command, host, results). */
static void write_document(FILE *out, int argc, char **argv, const char *clockline, struct c2c_acc *c2c,
                           const char *results)
{
    double cmin = 0, cmed = 0;
    if (c2c->n) {
        qsort(c2c->min, c2c->n, sizeof(double), cmp_double);
        qsort(c2c->med, c2c->n, sizeof(double), cmp_double);
        cmin = c2c->min[0], cmed = c2c->med[c2c->n / 2];
    }
    char model[256], cmd[4096];
    ag_cpu_model(model, sizeof model, NULL);
    front_command_line(PROG, argc, argv, cmd, sizeof cmd);
    ag_document_begin(out, "bench", cmd);
    fprintf(out, ",\"host\":{\"model\":");
    json_str(out, model);
    fprintf(out, ",\"cpus_usable\":%u,\"cpus_online\":%u,\"clock\":\"%s\",\"tsc_ghz\":%.4f,"
                 "\"c2c_oneway_ns\":{\"min\":%.1f,\"median\":%.1f},\"c2c_pairs\":[%s]},\"results\":[\n%s]}\n",
            ag_usable_cpus(), ag_topo_get()->ncpus, strstr(clockline, "\"tsc\"") ? "tsc" : "monotonic",
            json_num(clockline, "tsc_ghz") > 0 ? json_num(clockline, "tsc_ghz") : 0.0, cmin, cmed, c2c->json,
            results ? results : "");
}

int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) /* --preload: unmodified programs with and without the shim */
        if (!strcmp(argv[i], "--preload"))
            return bench_preload(argc, argv);
    struct ag_exp o;
    const char *methods[3];
    unsigned nm, threads[AG_PLAN_MAX], nt;
    if (parse_options(argc, argv, &o, methods, &nm, threads, &nt))
        return usage(stdout), 0;
    cli_check_env(PROG);
    static struct bench_plan plan;
    if (o.mpi)
        bench_plan_make_mpi(&plan, &o, methods, nm, threads, nt);
    else
        bench_plan_make(&plan, &o, methods, nm, threads, nt);
    struct ag_outfile doc;
    front_document_open(PROG, &o, &doc);

    struct ag_child clk = { 0 };
    char *clk_argv[] = { (char *)plan.core->path, "--clock", NULL }, clockline[256] = "";
    if (ag_child_run(clk_argv, environ, 10, &clk) == 0)
        snprintf(clockline, sizeof clockline, "%s", clk.out);
    free(clk.out);
    int aff[1024];
    unsigned na = ag_affinity_cpus(aff, 1024);
    if (o.mpi)
        fprintf(stderr, PROG ": --mpi: %u usable CPUs, %u rank counts x %u thread counts per rank, %u waits, "
                        "%u methods: %u measurements, each under %s\n", ag_usable_cpus(), plan.nranks, nt, plan.nwaits,
                nm, plan.njobs, plan.launcher[0]);
    else
        fprintf(stderr, PROG ": %u usable CPUs, %u thread counts, %u andgate specs x %u waits, %u baselines, %u methods: "
                        "%u measurements\n", ag_usable_cpus(), nt, plan.nspecs, plan.nwaits, plan.nbase, nm, plan.njobs);
    static struct c2c_acc c2c;
    c2c_pass(plan.core, aff, na, o.rounds, 1, &c2c);
    char *results = NULL;
    struct front_run run = { PROG, AG_EXP_BENCH, &o, plan.jobs, plan.njobs, o.timeout_s, NULL, NULL };
    unsigned failed = front_run_jobs(&run, &results);
    c2c_pass(plan.core, aff, na, o.rounds, 2, &c2c);
    write_document(doc.f, argc, argv, clockline, &c2c, results);
    free(results);
    front_document_commit(PROG, &doc);
    if (o.json ? strcmp(o.json, "-") : o.report != NULL) /* not a temporary document */
        fprintf(stderr, PROG ": results in %s\n", doc.path);
    bench_plan_free(&plan);
    int lost = front_outputs(PROG, "bench", &o, doc.path, 1);
    if (failed)
        fprintf(stderr, PROG ": %u of %u measurements failed (their records say why); exit status 1\n", failed,
                plan.njobs);
    return failed || lost ? 1 : 0;
}
