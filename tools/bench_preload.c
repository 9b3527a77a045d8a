/* bench_preload.c — andgate bench --preload: unmodified programs with and without
 * libandgate-preload.so (docs/bench.md, "--preload").
 *   andgate bench --preload 'COMMAND' [--repeat N] [--timeout S] [--json FILE] [--report DIR] [--csv FILE]
 *   andgate bench --preload apps [--apps LIST] [--threads LIST] [--bind both|true|false]
 *                 [--constructs all|none|LIST] [--repeat N] [--timeout S] [--quick] [--json FILE] [--report DIR] [--csv FILE]
 * A configuration runs plain and under LD_PRELOAD alternately, `repeat` times each, every child with a
 * time limit. The speedup (apps) and ratio (constructs) are the median over the pairs of back-to-back
 * runs of each pair's ratio: this VM's core-to-core latency changes mode every few seconds (50, 100 or
 * 240 ns one-way), which moves a barrier-bound run's time by 2x; both runs of a pair usually see the
 * same mode, two medians taken over different runs need not; the whole result document is rewritten after each configuration, so it stays valid JSON
 * whatever happens later. The summary, the report and the CSV come from python/andgate_report. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "bench_preload.h"
#include "child.h"
#include "cli.h"
#include "counts.h"
#include "front.h"
#include "host.h"
#include "opts.h"
#include "outfile.h"
#include "record.h"
#include "stats.h"
#include "paths.h"
#include "topo.h"
#include "../bench/omp_construct_list.h"

extern char **environ;

static const char *const APPS[] = { "cg", "mg", "nbody", "vcode", "streamcluster" };
#define NAPPS (sizeof APPS / sizeof APPS[0])
/* the construct program's list, comma-separated */
#define AG_CONSTRUCT_NAME(id, name, iters) name
static const char CONSTRUCTS[] = AG_OMP_CONSTRUCTS(AG_CONSTRUCT_NAME, ",");
#undef AG_CONSTRUCT_NAME
static const char *const CC[][2] = { { "gcc", "libgomp" }, { "clang", "libomp" } };
static const char *const BIND[] = { "true", "false" };


/* ---- measuring ---- */

/* r: `repeat` runs of argv, plain and under the shim alternately (drift hits both alike), with extra
 * in the environment; stdout of every run compared with the first; stops at the first failure. A run's
 * limit: 20x the longest run so far, at least 120 s and at most first_limit; --timeout S when given. */
static void run_pair(struct pre *p, struct rec *r, char *const argv[], char *const extra[], double first_limit)
{
    char **env[2] = { ag_child_env(NULL, extra), ag_child_env(p->shim, extra) };
    struct ag_child ref = { 0 }, cur = { 0 };
    double longest = 0;
    char label[320];
    if (r->bind)
        snprintf(label, sizeof label, "%s (bind %s, %u threads)", r->cmd, r->bind, r->threads);
    else
        snprintf(label, sizeof label, "%.80s", r->cmd);
    r->identical = 1;
    for (unsigned i = 0; i < p->repeat && !r->error[0]; i++)
        for (int s = 0; s < 2 && !r->error[0]; s++) {
            struct ag_child *x = i || s ? &cur : &ref;
            double limit = longest > 0 ? fmin(first_limit, fmax(120, 20 * longest)) : first_limit;
            limit = p->timeout ? p->timeout : limit;
            if (ag_child_run(argv, env[s], limit, x)) {
                snprintf(r->error, sizeof r->error, "%s run %u: %s", s ? "preloaded" : "plain", i + 1, x->error);
                break;
            }
            longest = fmax(longest, x->wall);
            if (s)
                r->shim[r->ns++] = x->wall;
            else
                r->plain[r->np++] = x->wall;
            if (x != &ref)
                r->compared = 1, r->identical &= x->len == ref.len && (!ref.len || !memcmp(x->out, ref.out, ref.len));
        }
    double mp, ms, lp, ls;
    preload_median_min(r->plain, r->np, &mp, &lp);
    preload_median_min(r->shim, r->ns, &ms, &ls);
    if (r->error[0])
        fprintf(stderr, "andgate bench --preload: %s: FAILED: %s\n", label, r->error);
    else
        fprintf(stderr, "andgate bench --preload: %s: plain %.3f s, preloaded %.3f s (medians of %u), %.2fx "
                "(median of the pairs' ratios)%s\n", label, mp, ms, r->np, preload_paired_ratio(r->plain, r->shim, r->np),
                r->identical ? "" : ", OUTPUT DIFFERS");
    free(ref.out), free(cur.out), free(env[0]), free(env[1]);
}

/* name is an item of the comma-separated list */
static int member(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (!strncmp(s, name, n) && (s[n] == ',' || !s[n]))
            return 1;
    return 0;
}

static int wanted(const char *list, const char *name)
{
    return member(list, "all") || member(list, name);
}

static struct rec *new_rec(struct rec *arr, unsigned *n, const char *name, unsigned c, const char *bind, unsigned t)
{
    struct rec *r = &arr[(*n)++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->compiler = c < 2 ? CC[c][0] : "cc", r->runtime = c < 2 ? CC[c][1] : "pthread";
    r->bind = bind, r->threads = t;
    r->plain_min = r->shim_min = INFINITY;
    return r;
}

/* --quick: -i a twentieth of the default the app's -h states ("default N"), or 2 */
static void quick_iters(char *path, char *buf, size_t len)
{
    struct ag_child c = { 0 };
    char *argv[] = { path, "-h", NULL }, *none[] = { NULL }, **env = ag_child_env(NULL, none);
    const char *d = ag_child_run(argv, env, 30, &c) || !c.out ? NULL : strstr(c.out, "default ");
    long n = d ? strtol(d + 8, NULL, 10) / 20 : 2;
    snprintf(buf, len, "%ld", n > 0 ? n : 1);
    free(c.out), free(env);
}

/* one configuration: an OpenMP app (compiler c, OMP_PROC_BIND=BIND[b], OMP_NUM_THREADS) or streamcluster
 * (c == 2: -t, nothing in the environment) */
static void run_app(struct pre *p, char *path, const char *app, unsigned c, unsigned b, unsigned threads, char *iters)
{
    struct rec *r = new_rec(p->app, &p->na, app, c, c == 2 ? "n/a" : BIND[b], threads);
    char nt[16], thr[40], bind[40];
    snprintf(nt, sizeof nt, "%u", threads);
    snprintf(thr, sizeof thr, "OMP_NUM_THREADS=%u", threads);
    snprintf(bind, sizeof bind, "OMP_PROC_BIND=%s", BIND[b]);
    char *omp_argv[] = { path, p->quick ? "-i" : NULL, iters, NULL }, *omp_env[] = { thr, bind, NULL };
    char *pth_argv[] = { path, "-t", nt, p->quick ? "-n" : NULL, "20000", NULL }, *pth_env[] = { NULL };
    char *const *argv = c == 2 ? pth_argv : omp_argv;
    size_t l = (size_t)snprintf(r->cmd, sizeof r->cmd, "%s", strrchr(path, '/') + 1);
    for (unsigned k = 1; argv[k] && l < sizeof r->cmd; k++)
        l += (size_t)snprintf(r->cmd + l, sizeof r->cmd - l, " %s", argv[k]);
    run_pair(p, r, argv, c == 2 ? pth_env : omp_env, p->quick ? 120 : 600);
    preload_write_doc(p, p->path);
}

/* every app x compiler x bind x threads that is built; streamcluster (pthread barriers, no OpenMP
 * binding) runs unbound only (when false is among the bindings), bind "n/a" */
static void run_apps(struct pre *p)
{
    for (unsigned a = 0; a < NAPPS; a++) {
        int pth = !strcmp(APPS[a], "streamcluster");
        for (unsigned c = 0; c < (pth ? 1u : 2u) && wanted(p->apps, APPS[a]); c++) {
            char path[PATH_MAX + 96], iters[24] = "";
            snprintf(path, sizeof path, "%s/%s%s%s", p->dir, APPS[a], pth ? "" : "-", pth ? "" : CC[c][0]);
            if (!ag_is_file(path)) {
                fprintf(stderr, "andgate bench --preload: note: %s is not built; skipped\n", path);
                continue;
            }
            if (p->quick && !pth)
                quick_iters(path, iters, sizeof iters);
            for (unsigned b = pth; b < 2; b++)
                for (unsigned t = 0; t < p->nt && wanted(p->bind, BIND[b]); t++)
                    run_app(p, path, APPS[a], pth ? 2 : c, b, p->threads[t], iters);
        }
    }
}

/* construct NAME's median and min overhead from the program's output; 0, or -1 */
static int parse_construct(const char *out, const char *name, unsigned threads, double *med, double *min, char *err,
                           size_t len)
{
    char key[48];
    snprintf(key, sizeof key, "{\"construct\":\"%s\",", name);
    const char *s = strstr(out ? out : "", key);
    unsigned t;
    if (!s || sscanf(s + strlen(key), "\"threads\":%u,\"overhead_ns\":{\"median\":%lf,\"min\":%lf}", &t, med, min) != 3 ||
        !isfinite(*med) || !isfinite(*min))
        return snprintf(err, len, "no result for %s in the program's output", name), -1;
    if (t != threads)
        return snprintf(err, len, "the program ran a team of %u threads, not %u", t, threads), -1;
    return 0;
}

/* One pair of runs of the construct program `path` for record r's construct alone (plain, then
 * preloaded): each run's median overhead appended to r, the least kept. */
static void construct_pair(struct pre *p, const char *path, char **const env[2], struct rec *r)
{
    if (r->error[0])
        return;
    const char *name = r->name;
    unsigned threads = r->threads;
    char *argv[] = { (char *)path, "-c", (char *)name, p->quick ? "-q" : NULL, NULL };
    struct ag_child run[2] = { { 0 } };
    for (int s = 0; s < 2; s++)
        if (ag_child_run(argv, env[s], p->timeout ? p->timeout : p->quick ? 60 : 300, &run[s]))
            break;
    int bad = run[0].error[0] ? 0 : run[1].error[0] ? 1 : -1;
    double med[2], min[2];
    if (bad >= 0)
        snprintf(r->error, sizeof r->error, "%s run: %.360s", bad ? "preloaded" : "plain", run[bad].error);
    else if (!parse_construct(run[0].out, name, threads, &med[0], &min[0], r->error, sizeof r->error) &&
             !parse_construct(run[1].out, name, threads, &med[1], &min[1], r->error, sizeof r->error)) {
        r->plain[r->np++] = med[0], r->shim[r->ns++] = med[1];
        r->plain_min = fmin(r->plain_min, min[0]), r->shim_min = fmin(r->shim_min, min[1]);
    }
    free(run[0].out), free(run[1].out);
}

/* The construct overheads: for each compiler, bind and team size, `repeat` rounds; in each round every
 * construct's pair of runs in turn (a run measures one construct: the two of a pair are a second apart,
 * where a run of every construct put them several seconds apart, across the VM's speed modes). */
static void run_constructs(struct pre *p)
{
    const char *list = strcmp(p->constructs, "all") ? p->constructs : CONSTRUCTS;
    for (unsigned c = 0; c < 2 && strcmp(p->constructs, "none"); c++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/omp-constructs-%s", p->dir, CC[c][0]);
        if (!ag_is_file(path)) {
            fprintf(stderr, "andgate bench --preload: note: %s is not built; construct overheads of %s skipped\n",
                    path, CC[c][0]);
            continue;
        }
        for (unsigned b = 0; b < 2; b++)
            for (unsigned t = 0; t < p->nt && wanted(p->bind, BIND[b]); t++) {
                char thr[40], bind[40], tmp[512];
                snprintf(thr, sizeof thr, "OMP_NUM_THREADS=%u", p->threads[t]);
                snprintf(bind, sizeof bind, "OMP_PROC_BIND=%s", BIND[b]);
                char *extra[] = { thr, bind, NULL };
                char **env[2] = { ag_child_env(NULL, extra), ag_child_env(p->shim, extra) };
                unsigned first = p->nc;
                snprintf(tmp, sizeof tmp, "%s", list);
                for (char *save, *k = strtok_r(tmp, ",", &save); k; k = strtok_r(NULL, ",", &save))
                    new_rec(p->con, &p->nc, k, c, BIND[b], p->threads[t]);
                for (unsigned i = 0; i < p->repeat; i++)
                    for (unsigned r = first; r < p->nc; r++)
                        construct_pair(p, path, env, &p->con[r]);
                fprintf(stderr, "andgate bench --preload: omp-constructs-%s bind=%s threads %u: %u pairs of runs "
                                "per construct\n", CC[c][0], BIND[b], p->threads[t], p->repeat);
                free(env[0]), free(env[1]);
                preload_write_doc(p, p->path);
            }
    }
}

/* ---- the command line ---- */

/* v: one of `alone`, or a comma-separated list of names of `known`, each once */
static void check_list(const char *opt, const char *v, const char *known, const char *alone)
{
    char tmp[512];
    if (!strchr(v, ',') && member(alone, v))
        return;
    if (!*v || *v == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,") || strlen(v) >= sizeof tmp)
        die("%s: expected %s or a comma-separated list of %s, got '%s'", opt, alone, known, v);
    snprintf(tmp, sizeof tmp, "%s", v);
    for (char *save, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!member(known, t) || (*save && member(save, t)))
            die("%s: '%s' is unknown or named twice (known: %s)", opt, t, known);
}

#define O(f) offsetof(struct pre, f)
static const struct ag_opt options[] = {
    { "--preload", AG_OPT_STR, O(single), 0, 0, NULL, "apps|'COMMAND'", "the papers' apps and streamcluster, or one command" },
    { "--apps", AG_OPT_STR, O(apps), 0, 0, NULL, "all|LIST", "cg, mg, nbody, vcode, streamcluster (apps only)" },
    { "--threads", AG_OPT_STR, O(threads_arg), 0, 0, NULL, "LIST", "team sizes (apps only; default 2,4)" },
    { "--bind", AG_OPT_WORD, O(bind), 0, 0, "both|true|false", NULL, "OMP_PROC_BIND (apps only; default both)" },
    { "--constructs", AG_OPT_STR, O(constructs), 0, 0, NULL, "all|none|LIST", "OpenMP construct overheads (apps only)" },
    { "--quick", AG_OPT_FLAG, O(quick), 0, 0, NULL, NULL, "a twentieth of each app's iterations (apps only)" },
    { "--repeat", AG_OPT_UINT, O(repeat), 1, MAXRUNS, NULL, "N", "runs each, plain and preloaded (default 3)" },
    { "--timeout", AG_OPT_UINT, O(timeout), 1, 86400, NULL, "S", "time limit per run" },
    { "--json", AG_OPT_STR, O(json), 0, 0, NULL, "FILE", "the result document (a file; - is refused)" },
    { "--report", AG_OPT_STR, O(report), 0, 0, NULL, "DIR", "HTML report (and DIR/results.json)" },
    { "--csv", AG_OPT_STR, O(csv), 0, 0, NULL, "FILE", "one row per record" },
    { NULL, AG_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL },
};

static void parse_opts(struct pre *p, int argc, char **argv)
{
    front_command_line("andgate bench", argc, argv, p->cmdline, sizeof p->cmdline); /* argv[0]: "bench" */
    if (ag_opts_parse("andgate bench --preload", options, p, argc, argv, 1)) {
        printf("usage: andgate bench --preload apps|'COMMAND' [OPTIONS]\n");
        ag_opts_usage(stdout, options);
        exit(0);
    }
    if (!strcmp(p->single, "apps"))
        p->single = NULL;
    if (p->single && (p->apps || p->threads_arg || p->bind || p->constructs || p->quick))
        die("--apps, --threads, --bind, --constructs and --quick go with --preload apps only");
    p->apps = p->apps ? p->apps : "all", p->constructs = p->constructs ? p->constructs : "all";
    p->bind = !p->bind || !strcmp(p->bind, "both") ? "true,false" : p->bind;
    if (p->json && !strcmp(p->json, "-")) /* the document is rewritten after each configuration */
        die("--json -: expected a file (the preload document is rewritten as each configuration finishes)");
    check_list("--apps", p->apps, "cg,mg,nbody,vcode,streamcluster", "all");
    check_list("--constructs", p->constructs, CONSTRUCTS, "all,none");
    char err[300];
    if (!(p->nt = ag_parse_counts(p->threads_arg ? p->threads_arg : "2,4", 4096, p->threads, MAXT, err, sizeof err)))
        die("--threads: %s", err);
}

int bench_preload(int argc, char **argv)
{
    static struct pre p = { .repeat = 3 };
    parse_opts(&p, argc, argv);
    cli_check_env("andgate bench --preload"); /* the shim reads it in every preloaded run */
    ag_exe_dir(p.dir, sizeof p.dir);
    snprintf(p.shim, sizeof p.shim, "%s/../lib/libandgate-preload.so", p.dir);
    if (!ag_is_file(p.shim))
        snprintf(p.shim, sizeof p.shim, "%s/../lib64/libandgate-preload.so", p.dir);
    if (!ag_is_file(p.shim))
        die("libandgate-preload.so not found beside %s (build it with make)", p.dir);
    char real[PATH_MAX];
    if (realpath(p.shim, real))
        snprintf(p.shim, sizeof p.shim, "%s", real);
    ag_cpu_model(p.model, sizeof p.model, NULL);
    p.usable = ag_usable_cpus(), p.online = ag_topo_get()->ncpus;
    if (p.report && mkdir(p.report, 0777) && errno != EEXIST)
        die("cannot make %s: %s", p.report, strerror(errno));
    if (p.report)
        snprintf(p.path, sizeof p.path, "%s/results.json", p.report);
    else if (p.json)
        snprintf(p.path, sizeof p.path, "%s", p.json);
    else
        snprintf(p.path, sizeof p.path, "/tmp/andgate-preload-%d.json", (int)getpid());
    p.app = calloc(NAPPS * 2 * 2 * MAXT, sizeof *p.app);
    p.con = calloc(6 * 2 * 2 * MAXT, sizeof *p.con);
    if (!p.app || !p.con)
        die("out of memory");
    /* an unwritable output fails now, not after the runs; an earlier document stays until the first
     * configuration replaces it */
    const char *docs[] = { p.path, p.json }; /* with --report and --json, both */
    for (unsigned i = 0; i < 2; i++)
        if (docs[i] && ag_outfile_check(docs[i]))
            die("cannot write %s: %s", docs[i], strerror(errno));
    if (p.csv && ag_outfile_check(p.csv))
        die("--csv %s: cannot write: %s", p.csv, strerror(errno));
    if (!p.json && !p.report) /* a temporary document: not left behind by an interrupted run */
        ag_remove_on_signal(p.path, 1);
    if (p.single) {
        struct rec *r = &p.app[p.na++];
        snprintf(r->cmd, sizeof r->cmd, "%s", p.single);
        char *argv_sh[] = { "/bin/sh", "-c", (char *)p.single, NULL }, *extra[] = { NULL };
        run_pair(&p, r, argv_sh, extra, 3600);
    } else {
        run_apps(&p);
        run_constructs(&p);
    }
    preload_write_doc(&p, p.path);
    int bad = !p.na && !p.nc;
    for (unsigned i = 0; i < p.na; i++)
        bad |= p.app[i].error[0] || !p.app[i].identical;
    for (unsigned i = 0; i < p.nc; i++)
        bad |= p.con[i].error[0] != '\0';
    /* the CSV, the report and the summary as bench and sim make them */
    struct ag_exp outs_of = { .json = p.json, .csv = p.csv, .report = p.report };
    bad |= front_outputs("andgate bench --preload", "bench", &outs_of, p.path, 1);
    if (p.json || p.report)
        fprintf(stderr, "andgate bench --preload: results in %s\n", p.json ? p.json : p.path);
    if (!p.na && !p.nc)
        fprintf(stderr, "andgate bench --preload: nothing was measured (no app and no construct program built)\n");
    free(p.app), free(p.con);
    return bad;
}
