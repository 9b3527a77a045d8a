/* andgate bench — every andgate algorithm beside the barriers people use today and beside the physical
 * limit, in one run. Each measurement runs in a fresh worker process (bench/worker.c), one JSON line
 * each; this command plans the run, shows progress, measures the core-to-core limit, writes the
 * result JSON (DESIGN.md schema) and hands CSV, report and summary to python/andgate_report. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "cli.h"
#include "counts.h"
#include "paths.h"
#include "spec.h"
#include "topo.h"

#define MAXLIST 256

struct worker {
    char path[PATH_MAX + 64];
    char names[32][48]; /* implementations it hosts */
    unsigned n;
};

struct job {
    const struct worker *w;
    const char *impl;  /* worker implementation name */
    const char *spec;  /* andgate spec (NULL for baselines) */
    unsigned threads;
    const char *method;
};

struct opts {
    char *threads, *algos, *baselines, *wait, *method, *pin, *json, *csv, *report, *late;
    unsigned episodes, budget_ms, cdf_threads, c2c_rounds;
    double jitter_us;
    int quick;
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "andgate bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* Runs argv, collecting stdout (NUL-terminated, at most len-1 bytes), killing it after timeout_ms.
 * Returns the exit status, or -1 when it could not run or was killed. */
static int run_capture(char *const argv[], char *out, size_t len, unsigned timeout_ms)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t have = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int killed = 0;
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = (long)timeout_ms - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) {
            kill(pid, SIGKILL);
            killed = 1;
            break;
        }
        struct pollfd pfd = { fd[0], POLLIN, 0 };
        if (poll(&pfd, 1, (int)left) <= 0)
            continue;
        ssize_t r = read(fd[0], out + have, len - 1 - have);
        if (r <= 0)
            break;
        have += (size_t)r;
        if (have == len - 1)
            break;
    }
    out[have] = '\0';
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (killed || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static void find_workers(struct worker *ws, unsigned *nw)
{
    static const char *const names[] = { "bench-core", "bench-gomp", "bench-llvm-omp", "bench-std" };
    *nw = 0;
    for (unsigned i = 0; i < 4; i++) {
        struct worker *w = &ws[*nw];
        if (ag_libexec(names[i], w->path, sizeof w->path)) {
            fprintf(stderr, "andgate bench: warning: worker %s not built; its baselines are skipped\n", names[i]);
            continue;
        }
        char out[4096];
        char *argv[] = { w->path, "--list", NULL };
        if (run_capture(argv, out, sizeof out, 10000) != 0) {
            fprintf(stderr, "andgate bench: warning: %s --list failed; skipped\n", w->path);
            continue;
        }
        w->n = 0;
        for (char *line = strtok(out, "\n"); line && w->n < 32; line = strtok(NULL, "\n")) {
            line[strcspn(line, " ")] = '\0';
            snprintf(w->names[w->n++], sizeof w->names[0], "%s", line);
        }
        (*nw)++;
    }
}

static const struct worker *host_of(const struct worker *ws, unsigned nw, const char *impl)
{
    for (unsigned i = 0; i < nw; i++)
        for (unsigned k = 0; k < ws[i].n; k++)
            if (!strcmp(ws[i].names[k], impl))
                return &ws[i];
    return NULL;
}

/* Spec lists: comma-separated, but a token with '=' and no ':' continues the previous spec, so
 * "stour:fanin=4,pad=line,dissemination" is two specs. */
static unsigned split_specs(char *s, char **out)
{
    unsigned n = 0;
    char *save, *tok = strtok_r(s, ",", &save);
    for (; tok; tok = strtok_r(NULL, ",", &save)) {
        if (n && strchr(tok, '=') && !strchr(tok, ':'))
            tok[-1] = ','; /* glue back: the spec continues */
        else if (n < MAXLIST)
            out[n++] = tok;
    }
    return n;
}

static void default_threads(unsigned u, int quick, unsigned *out, unsigned *n)
{
    /* 1 .. usable CPUs, then the oversubscribed counts u+1, 2u, 3u, 4u (quick: u and 2u) */
    unsigned cand[MAXLIST], m = 0;
    if (quick) {
        cand[m++] = u;
        cand[m++] = 2 * u;
    } else {
        for (unsigned t = 1; t <= u && m < MAXLIST - 4; t++)
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

void ag_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            char *v = strchr(line, ':') + 1;
            while (*v == ' ')
                v++;
            v[strcspn(v, "\n")] = '\0';
            snprintf(buf, len, "%s", v);
            break;
        }
    fclose(f);
}

static double json_num(const char *s, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(s, k);
    return p ? strtod(p + strlen(k), NULL) : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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

static void c2c_pass(const struct worker *core, const int *aff, unsigned na, unsigned rounds, int pass,
                     struct c2c_acc *acc)
{
    for (unsigned a = 0; a < na; a++)
        for (unsigned b = a + 1; b < na && acc->n < 256; b++) {
            if (na > 8 && a != 0 && b != a + 1)
                continue;
            char pair[32], rs[16], line[256];
            snprintf(pair, sizeof pair, "%d,%d", aff[a], aff[b]);
            snprintf(rs, sizeof rs, "%u", rounds);
            char *argv[] = { (char *)core->path, "--c2c", pair, "--rounds", rs, NULL };
            if (run_capture(argv, line, sizeof line, 30000) != 0 || line[0] != '{')
                continue;
            acc->min[acc->n] = json_num(line, "min_ns");
            acc->med[acc->n] = json_num(line, "median_ns");
            line[strcspn(line, "}")] = '\0';
            acc->len += (size_t)snprintf(acc->json + acc->len, acc->len < sizeof acc->json ? sizeof acc->json - acc->len : 0,
                                         "%s%s,\"pass\":%d}", acc->n ? "," : "", line, pass);
            fprintf(stderr, "andgate bench: core-to-core CPU %d <-> %d (%s): one-way min %.0f ns, median %.0f ns\n",
                    aff[a], aff[b], pass == 1 ? "before" : "after", acc->min[acc->n], acc->med[acc->n]);
            acc->n++;
        }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: andgate bench [--threads LIST|RANGE] [--algos all|LIST] [--baselines all|none|LIST]\n"
            "                     [--wait SPEC] [--method latency|epcc|jitter|all] [--pin compact|scatter|none]\n"
            "                     [--episodes N] [--budget-ms MS] [--jitter-us US] [--late rotating|fixed]\n"
            "                     [--quick] [--json FILE] [--csv FILE] [--report DIR] [--cdf-threads N]\n"
            "       andgate bench --preload apps [--apps LIST] [--threads LIST] [--bind both|true|false]\n"
            "                     [--constructs all|none|LIST] [--repeat N] [--timeout S] [--quick]\n"
            "                     [--json FILE] [--report DIR] [--csv FILE]\n"
            "       andgate bench --preload 'COMMAND' [--repeat N] [--timeout S] [--json FILE] [--report DIR] [--csv FILE]\n"
            "docs/bench.md explains the methods, the defaults and the outputs.\n");
}

int cmd_bench(int argc, char **argv)
{
    struct opts o = { .algos = "all", .baselines = "all", .wait = "auto", .method = "all", .pin = "compact",
                      .late = "rotating", .episodes = 20000, .budget_ms = 250, .jitter_us = 100, .c2c_rounds = 20000 };
    for (int i = 1; i < argc; i++) /* --preload: unmodified programs with and without the shim */
        if (!strcmp(argv[i], "--preload"))
            return bench_preload(argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick")) {
            o.quick = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            die("option %s needs a value", a);
        }
        char *v = argv[++i];
        if (!strcmp(a, "--threads")) o.threads = v;
        else if (!strcmp(a, "--algos")) o.algos = v;
        else if (!strcmp(a, "--baselines")) o.baselines = v;
        else if (!strcmp(a, "--wait")) o.wait = v;
        else if (!strcmp(a, "--method")) o.method = v;
        else if (!strcmp(a, "--pin")) o.pin = v;
        else if (!strcmp(a, "--episodes")) o.episodes = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--budget-ms")) o.budget_ms = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--jitter-us")) o.jitter_us = strtod(v, NULL);
        else if (!strcmp(a, "--late")) o.late = v;
        else if (!strcmp(a, "--json")) o.json = v;
        else if (!strcmp(a, "--csv")) o.csv = v;
        else if (!strcmp(a, "--report")) o.report = v;
        else if (!strcmp(a, "--cdf-threads")) o.cdf_threads = (unsigned)strtoul(v, NULL, 10);
        else {
            usage(stderr);
            die("unknown option '%s'", a);
        }
    }
    if (o.quick) {
        o.episodes = o.episodes < 5000 ? o.episodes : 5000;
        o.budget_ms = o.budget_ms < 100 ? o.budget_ms : 100;
        o.c2c_rounds = 5000;
    }
    if (!o.episodes || !o.budget_ms)
        die("--episodes and --budget-ms must be positive");
    if (strcmp(o.pin, "compact") && strcmp(o.pin, "scatter") && strcmp(o.pin, "none"))
        die("--pin: expected compact, scatter or none, got '%s'", o.pin);
    if (strcmp(o.late, "rotating") && strcmp(o.late, "fixed"))
        die("--late: expected rotating or fixed, got '%s'", o.late);
    static const char *const all_methods[] = { "latency", "epcc", "jitter" };
    const char *methods[3];
    unsigned nm = 0;
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(o.method, "all") || !strcmp(o.method, all_methods[i]))
            methods[nm++] = all_methods[i];
    if (!nm)
        die("--method: expected latency, epcc, jitter or all, got '%s'", o.method);
    char msg[512];
    struct ag_spec ws;
    if (ag_spec_parse(&ag_wait_table, o.wait, &ws, msg, sizeof msg))
        die("--wait: %s", msg);

    unsigned u = ag_usable_cpus(), threads[MAXLIST], nt;
    char err[300];
    if (!o.threads)
        default_threads(u, o.quick, threads, &nt);
    else if (!(nt = ag_parse_counts(o.threads, 4096, threads, MAXLIST, err, sizeof err)))
        die("--threads: %s", err);

    struct worker ws_[4];
    unsigned nw;
    find_workers(ws_, &nw);
    const struct worker *core = host_of(ws_, nw, "andgate");
    if (!core)
        die("the bench-core worker is missing: build with make");

    /* andgate implementations: every algorithm with its defaults, or the given specs */
    char *specs[MAXLIST];
    unsigned ns = 0;
    char algos_buf[4096];
    snprintf(algos_buf, sizeof algos_buf, "%s", o.algos);
    if (!strcmp(algos_buf, "all")) {
        for (unsigned i = 0; i < ag_algo_table.n && ns < MAXLIST; i++)
            specs[ns++] = (char *)ag_algo_table.get(i)->name;
    } else if (strcmp(algos_buf, "none")) {
        ns = split_specs(algos_buf, specs);
    }
    for (unsigned i = 0; i < ns; i++) {
        struct ag_spec sp;
        if (strcmp(specs[i], "auto") && ag_spec_parse(&ag_algo_table, specs[i], &sp, msg, sizeof msg))
            die("--algos: %s", msg);
    }
    /* baselines: every one a worker hosts, or the given names ("ck" for every ck:*) */
    const char *base[MAXLIST];
    const struct worker *base_w[MAXLIST];
    unsigned nb = 0;
    char bl[1024];
    snprintf(bl, sizeof bl, "%s", o.baselines);
    for (unsigned i = 0; i < nw; i++)
        for (unsigned k = 0; k < ws_[i].n; k++) {
            const char *name = ws_[i].names[k];
            if (!strcmp(name, "andgate"))
                continue;
            int want = !strcmp(bl, "all");
            if (strcmp(bl, "all") && strcmp(bl, "none")) {
                char tmp[1024], *save;
                snprintf(tmp, sizeof tmp, "%s", bl);
                for (char *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save))
                    want |= !strcmp(t, name) || (!strcmp(t, "ck") && !strncmp(name, "ck:", 3));
            }
            if (want && nb < MAXLIST)
                base[nb] = name, base_w[nb++] = &ws_[i];
        }
    if (strcmp(bl, "all") && strcmp(bl, "none")) {
        char tmp[1024], *save;
        snprintf(tmp, sizeof tmp, "%s", bl);
        for (char *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int known = 0;
            for (unsigned i = 0; i < nb; i++)
                known |= !strcmp(t, base[i]) || (!strcmp(t, "ck") && !strncmp(base[i], "ck:", 3));
            if (!known)
                fprintf(stderr, "andgate bench: warning: baseline '%s' is not available here; skipped "
                                "(known: pthread, gomp, llvm-omp, std::barrier, ck, ck:<algorithm>)\n", t);
        }
    }

    /* the plan */
    unsigned njobs = nm * nt * (ns + nb);
    struct job *jobs = calloc(njobs ? njobs : 1, sizeof *jobs);
    unsigned j = 0;
    for (unsigned m = 0; m < nm; m++)
        for (unsigned t = 0; t < nt; t++) {
            for (unsigned i = 0; i < ns; i++)
                jobs[j++] = (struct job){ core, "andgate", specs[i], threads[t], methods[m] };
            for (unsigned i = 0; i < nb; i++)
                jobs[j++] = (struct job){ base_w[i], base[i], NULL, threads[t], methods[m] };
        }

    /* output file: --json, else inside --report, else a temporary file for --csv / the summary */
    char json_path[PATH_MAX];
    if (o.json)
        snprintf(json_path, sizeof json_path, "%s", o.json);
    else if (o.report) {
        mkdir(o.report, 0777);
        snprintf(json_path, sizeof json_path, "%s/results.json", o.report);
    } else
        snprintf(json_path, sizeof json_path, "/tmp/andgate-bench-%d.json", (int)getpid());
    FILE *out = fopen(json_path, "w");
    if (!out)
        die("cannot write %s: %s", json_path, strerror(errno));

    /* host and the physical limit */
    char model[256], clockline[256] = "";
    ag_cpu_model(model, sizeof model);
    char *clk_argv[] = { (char *)core->path, "--clock", NULL };
    run_capture(clk_argv, clockline, sizeof clockline, 10000);
    int aff[1024];
    unsigned na = ag_affinity_cpus(aff, 1024);
    fprintf(stderr, "andgate bench: %u usable CPUs, %u thread counts, %u andgate specs, %u baselines, %u methods: "
                    "%u measurements\n", u, nt, ns, nb, nm, njobs);
    static struct c2c_acc c2c;
    c2c_pass(core, aff, na, o.c2c_rounds, 1, &c2c);

    /* the measurements, into memory: the document's host part needs the second c2c pass */
    char *resbuf = NULL;
    size_t reslen = 0;
    FILE *res = open_memstream(&resbuf, &reslen);
    if (!res)
        die("out of memory");
    double t0 = now_s();
    unsigned failed = 0;
    int tty = isatty(2);
    for (j = 0; j < njobs; j++) {
        const struct job *jb = &jobs[j];
        char nthr[16], eps[16], budget[16], jit[32], line[16384];
        snprintf(nthr, sizeof nthr, "%u", jb->threads);
        snprintf(eps, sizeof eps, "%u", o.episodes);
        snprintf(budget, sizeof budget, "%u", o.budget_ms);
        snprintf(jit, sizeof jit, "%g", o.jitter_us);
        char *av[32];
        unsigned ac = 0;
        av[ac++] = (char *)jb->w->path;
        av[ac++] = "--impl", av[ac++] = (char *)jb->impl;
        av[ac++] = "--threads", av[ac++] = nthr;
        av[ac++] = "--method", av[ac++] = (char *)jb->method;
        av[ac++] = "--pin", av[ac++] = o.pin;
        av[ac++] = "--episodes", av[ac++] = eps;
        av[ac++] = "--budget-ms", av[ac++] = budget;
        av[ac++] = "--jitter-us", av[ac++] = jit;
        av[ac++] = "--late", av[ac++] = o.late;
        if (jb->spec) {
            av[ac++] = "--spec", av[ac++] = (char *)jb->spec;
            av[ac++] = "--wait", av[ac++] = o.wait;
        }
        av[ac] = NULL;
        double el = now_s() - t0;
        double eta = j ? el / j * (njobs - j) : 0;
        /* one line rewritten in place on a terminal, a line per measurement in a log */
        fprintf(stderr, "%s[%3u/%u] %-7s %-30.30s threads %-4u elapsed %3.0fs  ETA %3.0fs%s", tty ? "\r" : "", j + 1,
                njobs, jb->method, jb->spec ? jb->spec : jb->impl, jb->threads, el, eta, tty ? " " : "\n");
        /* a worker that outlives 20 budgets (a spinning baseline starved by oversubscription) is killed */
        int rc = run_capture(av, line, sizeof line, 20 * o.budget_ms + 5000);
        line[strcspn(line, "\n")] = '\0';
        if (rc != 0 || line[0] != '{') {
            failed++;
            fprintf(res, "%s{\"impl\":", j ? "," : "");
            char name[300];
            snprintf(name, sizeof name, "%s%s", jb->spec ? "andgate:" : "", jb->spec ? jb->spec : jb->impl);
            json_str(out, name);
            fprintf(res, ",\"kind\":\"%s\",\"threads\":%u,\"wait\":", jb->spec ? "andgate" : "baseline", jb->threads);
            json_str(out, jb->spec ? o.wait : "default");
            fprintf(res, ",\"pinning\":\"%s\",\"method\":\"%s\",\"median_ns\":0,\"min_ns\":0,\"p99_ns\":0,"
                         "\"cpu_ns_per_episode\":0,\"episodes\":0,\"status\":\"failed\",\"error\":\"%s\"}\n",
                    o.pin, jb->method, rc == -1 ? "killed after its time limit" : "worker failed");
        } else {
            fprintf(res, "%s%s\n", j ? "," : "", line);
            if (strstr(line, "\"status\":\"failed\""))
                failed++;
        }
        fflush(res);
    }
    fclose(res);
    c2c_pass(core, aff, na, o.c2c_rounds, 2, &c2c);
    double cmin = 0, cmed = 0;
    if (c2c.n) {
        qsort(c2c.min, c2c.n, sizeof(double), cmp_double);
        qsort(c2c.med, c2c.n, sizeof(double), cmp_double);
        cmin = c2c.min[0];
        cmed = c2c.med[c2c.n / 2];
    }
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(out, "{\"tool\":\"andgate\",\"version\":\"%s\",\"mode\":\"bench\",\"command\":", ANDGATE_VERSION_STRING);
    {
        char cmd[4096] = "andgate";
        size_t cl = strlen(cmd);
        for (int i = 0; i < argc; i++)
            cl += (size_t)snprintf(cmd + cl, cl < sizeof cmd ? sizeof cmd - cl : 0, " %s", argv[i]);
        json_str(out, cmd);
    }
    fprintf(out, ",\"date\":\"%s\",\"host\":{\"model\":", date);
    json_str(out, model);
    fprintf(out, ",\"cpus_usable\":%u,\"cpus_online\":%u,\"clock\":\"%s\",\"tsc_ghz\":%.4f,"
                 "\"c2c_oneway_ns\":{\"min\":%.1f,\"median\":%.1f},\"c2c_pairs\":[%s]},\"results\":[\n%s]}\n",
            u, ag_topo_get()->ncpus, strstr(clockline, "\"tsc\"") ? "tsc" : "monotonic",
            json_num(clockline, "tsc_ghz") > 0 ? json_num(clockline, "tsc_ghz") : 0.0, cmin, cmed, c2c.json,
            resbuf ? resbuf : "");
    free(resbuf);
    fclose(out);
    fprintf(stderr, "%sandgate bench: %u measurements in %.0f s (%u failed); results in %s\n", tty ? "\n" : "", njobs,
            now_s() - t0, failed, json_path);
    free(jobs);

    char cdf[32];
    snprintf(cdf, sizeof cdf, "%u", o.cdf_threads);
    if (o.csv)
        ag_run_report("bench", json_path, (const char *const[]){ "--csv", o.csv, NULL });
    if (o.report &&
        ag_run_report("bench", json_path,
                      (const char *const[]){ "--out", o.report, o.cdf_threads ? "--cdf-threads" : NULL, cdf, NULL }) == 0)
        fprintf(stderr, "andgate bench: report in %s/index.html\n", o.report);
    ag_run_report("bench", json_path, (const char *const[]){ "--summary", NULL });
    if (!o.json && !o.report)
        fprintf(stderr, "andgate bench: (use --json FILE or --report DIR to keep the results)\n");
    return 0;
}
