/* andgate bench — every andgate algorithm beside the barriers people use today and beside the physical
 * limit, in one run. The data path: options (the table below) -> plan (bench_plan.c: workers, specs,
 * baselines, jobs) -> one worker process per job (bench/worker.c), which prints one record, a JSON line
 * -> the result document (written here, DESIGN.md schema, valid JSON whatever a worker did) -> CSV,
 * report and summary (python/andgate_report). Exit status: 0, 1 when a measurement failed (its record
 * says why), 2 for a bad command line. */
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
#include "host.h"
#include "json.h"
#include "opts.h"
#include "paths.h"
#include "record.h"
#include "spec.h"
#include "topo.h"

#define PROG "andgate bench"

extern char **environ;

struct opts {
    const char *threads, *algos, *baselines, *wait, *method, *pin, *json, *csv, *report, *late;
    unsigned episodes, budget_ms, cdf_threads, c2c_rounds;
    double jitter_us;
    int quick;
};

#define O(f) offsetof(struct opts, f)
static const struct ag_opt options[] = {
    { "--threads", AG_OPT_STR, O(threads), 0, 0, NULL, "LIST|RANGE", "participant counts: 2,4,8 or 1-8 (default 1..usable CPUs, then u+1, 2u, 3u, 4u)" },
    { "--algos", AG_OPT_STR, O(algos), 0, 0, NULL, "all|none|LIST", "andgate specs separated by ';' or ',' (all, auto allowed)" },
    { "--baselines", AG_OPT_STR, O(baselines), 0, 0, NULL, "all|none|LIST", "pthread, gomp, llvm-omp, std::barrier, ck, ck:<algorithm>" },
    { "--wait", AG_OPT_STR, O(wait), 0, 0, NULL, "SPEC", "wait policy of the andgate barriers (default auto)" },
    { "--method", AG_OPT_WORD, O(method), 0, 0, "latency|epcc|jitter|all", NULL, "what to measure (default all)" },
    { "--pin", AG_OPT_WORD, O(pin), 0, 0, "compact|scatter|none", NULL, "thread placement (default compact)" },
    { "--episodes", AG_OPT_UINT, O(episodes), 1, 100000000, NULL, "N", "episodes per measurement at most (default 20000)" },
    { "--budget-ms", AG_OPT_UINT, O(budget_ms), 1, 3600000, NULL, "MS", "time per measurement at most (default 250)" },
    { "--jitter-us", AG_OPT_NUM, O(jitter_us), 0, 1e9, NULL, "US", "jitter method: the late thread's delay (default 100)" },
    { "--late", AG_OPT_WORD, O(late), 0, 0, "rotating|fixed", NULL, "jitter method: which thread is late" },
    { "--quick", AG_OPT_FLAG, O(quick), 0, 0, NULL, NULL, "fewer thread counts, episodes and c2c rounds" },
    { "--json", AG_OPT_STR, O(json), 0, 0, NULL, "FILE|-", "the result document (- for stdout)" },
    { "--csv", AG_OPT_STR, O(csv), 0, 0, NULL, "FILE", "one row per result" },
    { "--report", AG_OPT_STR, O(report), 0, 0, NULL, "DIR", "HTML report with plots (and DIR/results.json)" },
    { "--cdf-threads", AG_OPT_UINT, O(cdf_threads), 0, 4096, NULL, "N", "the report's latency CDF at N threads" },
    { NULL, AG_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL },
};

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
    ag_opts_usage(f, options);
    fprintf(f, "       andgate bench --preload apps [--apps LIST] [--threads LIST] [--bind both|true|false]\n"
               "                     [--constructs all|none|LIST] [--repeat N] [--timeout S] [--quick]\n"
               "                     [--json FILE] [--report DIR] [--csv FILE]\n"
               "       andgate bench --preload 'COMMAND' [--repeat N] [--timeout S] [--json FILE] [--report DIR] [--csv FILE]\n"
               "docs/options.md lists every option of bench and sim; docs/bench.md explains the methods.\n");
}

/* The command line into o, checked whole: methods and thread counts resolved. 1 for --help. */
static int parse_options(int argc, char **argv, struct opts *o, const char **methods, unsigned *nm, unsigned *threads,
                         unsigned *nt)
{
    *o = (struct opts){ .algos = "all", .baselines = "all", .wait = "auto", .method = "all", .pin = "compact",
                        .late = "rotating", .episodes = 20000, .budget_ms = 250, .jitter_us = 100, .c2c_rounds = 20000 };
    if (ag_opts_parse(PROG, options, o, argc, argv, 1))
        return 1;
    if (o->quick) {
        o->episodes = o->episodes < 5000 ? o->episodes : 5000;
        o->budget_ms = o->budget_ms < 100 ? o->budget_ms : 100;
        o->c2c_rounds = 5000;
    }
    static const char *const all_methods[] = { "latency", "epcc", "jitter" };
    *nm = 0;
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(o->method, "all") || !strcmp(o->method, all_methods[i]))
            methods[(*nm)++] = all_methods[i];
    char msg[512];
    struct ag_spec ws;
    if (ag_spec_parse(&ag_wait_table, o->wait, &ws, msg, sizeof msg))
        ag_usage_error(PROG, "--wait: %s", msg);
    if (o->json && o->report && !strcmp(o->json, "-"))
        ag_usage_error(PROG, "--json -: with --report the result must go to a file (the report reads it)");
    if (!o->threads)
        default_threads(ag_usable_cpus(), o->quick, threads, nt);
    else if (!(*nt = ag_parse_counts(o->threads, 4096, threads, AG_PLAN_MAX, msg, sizeof msg)))
        ag_usage_error(PROG, "--threads: %s", msg);
    return 0;
}

/* A record for a job whose worker gave none (it failed, or was killed after its time limit): the
 * schema's fields with zeros, status "failed" and why. */
static void failed_record(FILE *res, const struct opts *o, const struct bench_job *jb, const char *why)
{
    char name[300];
    snprintf(name, sizeof name, "%s%s", jb->spec ? "andgate:" : "", jb->spec ? jb->spec : jb->impl);
    struct ag_record rec = { .impl = name, .kind = jb->spec ? "andgate" : "baseline", .wait = jb->spec ? o->wait : "default",
                             .pinning = o->pin, .method = jb->method, .threads = jb->threads, .mean_ns = -1,
                             .error = why };
    ag_record_begin(res, &rec);
    ag_record_end(res, &rec);
}

/* One job in its worker; its record (or a failed one) appended to res. Returns 1 when it failed. */
static int run_job(const struct opts *o, const struct bench_job *jb, FILE *res, struct ag_child *c)
{
    char nthr[16], eps[16], budget[16], jit[32];
    snprintf(nthr, sizeof nthr, "%u", jb->threads);
    snprintf(eps, sizeof eps, "%u", o->episodes);
    snprintf(budget, sizeof budget, "%u", o->budget_ms);
    snprintf(jit, sizeof jit, "%.17g", o->jitter_us);
    char *av[] = { (char *)jb->w->path, "--impl", (char *)jb->impl, "--threads", nthr, "--method", (char *)jb->method,
                   "--pin", (char *)o->pin, "--episodes", eps, "--budget-ms", budget, "--jitter-us", jit, "--late",
                   (char *)o->late, jb->spec ? "--spec" : NULL, (char *)jb->spec, "--wait", (char *)o->wait, NULL };
    /* a worker that outlives 20 budgets (a spinning baseline starved by oversubscription) is killed */
    double limit_s = 20.0 * o->budget_ms / 1000 + 5;
    if (ag_child_run(av, environ, limit_s, c) || c->out[0] != '{') {
        char why[400];
        snprintf(why, sizeof why, "%s", c->error[0] ? c->error : "the worker printed no record");
        failed_record(res, o, jb, why);
        return 1;
    }
    c->out[strcspn(c->out, "\n")] = '\0';
    fputs(c->out, res);
    return strstr(c->out, "\"status\":\"failed\"") != NULL;
}

/* Every job, records into memory (the document's host part needs the second c2c pass). */
static unsigned run_jobs(const struct opts *o, const struct bench_plan *p, char **resbuf)
{
    size_t reslen = 0;
    FILE *res = open_memstream(resbuf, &reslen);
    if (!res)
        ag_usage_error(PROG, "out of memory");
    struct ag_child c = { 0 };
    double t0 = ag_now_s();
    unsigned failed = 0;
    int tty = isatty(2);
    for (unsigned j = 0; j < p->njobs; j++) {
        const struct bench_job *jb = &p->jobs[j];
        double el = ag_now_s() - t0, eta = j ? el / j * (p->njobs - j) : 0;
        /* one line rewritten in place on a terminal, a line per measurement in a log */
        fprintf(stderr, "%s[%3u/%u] %-7s %-30.30s threads %-4u elapsed %3.0fs  ETA %3.0fs%s", tty ? "\r" : "", j + 1,
                p->njobs, jb->method, jb->spec ? jb->spec : jb->impl, jb->threads, el, eta, tty ? " " : "\n");
        fputs(j ? ",\n" : "", res);
        failed += (unsigned)run_job(o, jb, res, &c);
    }
    fclose(res);
    free(c.out);
    fprintf(stderr, "%s" PROG ": %u measurements in %.0f s (%u failed)\n", tty ? "\n" : "", p->njobs,
            ag_now_s() - t0, failed);
    return failed;
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
    char model[256], cmd[4096] = "andgate";
    ag_cpu_model(model, sizeof model, NULL);
    size_t cl = strlen(cmd);
    for (int i = 0; i < argc; i++)
        cl += (size_t)snprintf(cmd + cl, cl < sizeof cmd ? sizeof cmd - cl : 0, " %s", argv[i]);
    ag_document_begin(out, "bench", cmd);
    fprintf(out, ",\"host\":{\"model\":");
    json_str(out, model);
    fprintf(out, ",\"cpus_usable\":%u,\"cpus_online\":%u,\"clock\":\"%s\",\"tsc_ghz\":%.4f,"
                 "\"c2c_oneway_ns\":{\"min\":%.1f,\"median\":%.1f},\"c2c_pairs\":[%s]},\"results\":[\n%s]}\n",
            ag_usable_cpus(), ag_topo_get()->ncpus, strstr(clockline, "\"tsc\"") ? "tsc" : "monotonic",
            json_num(clockline, "tsc_ghz") > 0 ? json_num(clockline, "tsc_ghz") : 0.0, cmin, cmed, c2c->json,
            results ? results : "");
}

/* Where the document goes: --json FILE, else DIR/results.json for --report, else a temporary file
 * (also for --json -, copied to stdout at the end). */
static void json_path_of(const struct opts *o, char *path, size_t len)
{
    if (o->json && strcmp(o->json, "-"))
        snprintf(path, len, "%s", o->json);
    else if (o->report) {
        if (mkdir(o->report, 0777) && errno != EEXIST)
            ag_usage_error(PROG, "--report %s: %s", o->report, strerror(errno));
        snprintf(path, len, "%s/results.json", o->report);
    } else
        snprintf(path, len, "/tmp/andgate-bench-%d.json", (int)getpid());
}

static void outputs(const struct opts *o, const char *json_path)
{
    char cdf[32];
    snprintf(cdf, sizeof cdf, "%u", o->cdf_threads);
    if (o->csv)
        ag_run_report("bench", json_path, (const char *const[]){ "--csv", o->csv, NULL });
    if (o->report &&
        ag_run_report("bench", json_path,
                      (const char *const[]){ "--out", o->report, o->cdf_threads ? "--cdf-threads" : NULL, cdf, NULL }) == 0)
        fprintf(stderr, PROG ": report in %s/index.html\n", o->report);
    if (o->json && !strcmp(o->json, "-")) { /* stdout carries the document alone */
        FILE *f = fopen(json_path, "r");
        char buf[65536];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, stdout);
        if (f)
            fclose(f);
        unlink(json_path);
        return;
    }
    ag_run_report("bench", json_path, (const char *const[]){ "--summary", NULL });
    if (!o->json && !o->report)
        fprintf(stderr, PROG ": (use --json FILE or --report DIR to keep the results)\n");
}

int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) /* --preload: unmodified programs with and without the shim */
        if (!strcmp(argv[i], "--preload"))
            return bench_preload(argc, argv);
    struct opts o;
    const char *methods[3];
    unsigned nm, threads[AG_PLAN_MAX], nt;
    if (parse_options(argc, argv, &o, methods, &nm, threads, &nt))
        return usage(stdout), 0;
    static struct bench_plan plan;
    bench_plan_make(&plan, o.algos, o.baselines, methods, nm, threads, nt);
    char json_path[PATH_MAX];
    json_path_of(&o, json_path, sizeof json_path);
    FILE *out = fopen(json_path, "w");
    if (!out)
        ag_usage_error(PROG, "cannot write %s: %s", json_path, strerror(errno));

    struct ag_child clk = { 0 };
    char *clk_argv[] = { (char *)plan.core->path, "--clock", NULL }, clockline[256] = "";
    if (ag_child_run(clk_argv, environ, 10, &clk) == 0)
        snprintf(clockline, sizeof clockline, "%s", clk.out);
    free(clk.out);
    int aff[1024];
    unsigned na = ag_affinity_cpus(aff, 1024);
    fprintf(stderr, PROG ": %u usable CPUs, %u thread counts, %u andgate specs, %u baselines, %u methods: "
                    "%u measurements\n", ag_usable_cpus(), nt, plan.nspecs, plan.nbase, nm, plan.njobs);
    static struct c2c_acc c2c;
    c2c_pass(plan.core, aff, na, o.c2c_rounds, 1, &c2c);
    char *results = NULL;
    unsigned failed = run_jobs(&o, &plan, &results);
    c2c_pass(plan.core, aff, na, o.c2c_rounds, 2, &c2c);
    write_document(out, argc, argv, clockline, &c2c, results);
    free(results);
    if (fclose(out))
        ag_usage_error(PROG, "cannot write %s: %s", json_path, strerror(errno));
    if (!o.json || strcmp(o.json, "-"))
        fprintf(stderr, PROG ": results in %s\n", json_path);
    bench_plan_free(&plan);
    outputs(&o, json_path);
    if (failed)
        fprintf(stderr, PROG ": %u of %u measurements failed (their records say why); exit status 1\n", failed,
                plan.njobs);
    return failed ? 1 : 0;
}
