/* andgate-sim — `andgate sim` runs this (it carries the simulator build of the algorithms, which cannot
 * share a process with libandgate's). Output: the result JSON of DESIGN.md, mode "sim", with traffic
 * counts per episode; a table on stderr. docs/sim.md. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "hw.h"
#include "auto.h"
#include "counts.h"
#include "json.h"
#include "machine.h"
#include "model.h"
#include "opts.h"
#include "record.h"
#include "spec.h"

struct cli {
    const char *machine, *algos, *threads, *json, *pin, *wait, *method, *schedule;
    unsigned episodes;
    unsigned long long seed;
    double late_ns, work_ns, work_jitter_ns, alpha;
    int quiet, model, machines;
};

#define O(f) offsetof(struct cli, f)
static const struct ag_opt options[] = {
    { "--machine", AG_OPT_STR, O(machine), 0, 0, NULL, "NAME|FILE", "the modeled machine (default kunpeng920; --machines lists them)" },
    { "--algos", AG_OPT_STR, O(algos), 0, 0, NULL, "all|sw|hw|LIST", "specs (auto allowed) and hw-* devices separated by ';' or ','" },
    { "--threads", AG_OPT_STR, O(threads), 0, 0, NULL, "LIST|RANGE", "participant counts: 2,4,8 or 2-8 (default 2,4,8,16,32,64)" },
    { "--wait", AG_OPT_WORD, O(wait), 0, 0, "spin|pause", NULL, "waiters spin on their cached copy (the model has no sleeping)" },
    { "--method", AG_OPT_WORD, O(method), 0, 0, "latency|epcc|jitter", NULL, "what to measure (default latency)" },
    { "--late-ns", AG_OPT_NUM, O(late_ns), 0, 1e9, NULL, "NS", "jitter method: the late participant's delay (default 100000)" },
    { "--work-ns", AG_OPT_NUM, O(work_ns), 0, 1e9, NULL, "NS", "work between episodes" },
    { "--work-jitter-ns", AG_OPT_NUM, O(work_jitter_ns), 0, 1e9, NULL, "NS", "uniform extra work per participant" },
    { "--episodes", AG_OPT_UINT, O(episodes), 1, 10000000, NULL, "N", "episodes per run (default 200)" },
    { "--seed", AG_OPT_U64, O(seed), 0, 9007199254740992.0, NULL, "S", "random schedule and jitter seed (default 1)" },
    { "--schedule", AG_OPT_WORD, O(schedule), 0, 0, "fixed|random", NULL, "which ready participant runs next" },
    { "--pin", AG_OPT_WORD, O(pin), 0, 0, "cores|compact|scatter", NULL, "placement on the machine (default cores)" },
    { "--alpha", AG_OPT_NUM, O(alpha), 0, 1, NULL, "X", "what-if: every layer's invalidation weight" },
    { "--model", AG_OPT_FLAG, O(model), 0, 0, NULL, NULL, "002's analytical models beside the simulation" },
    { "--json", AG_OPT_STR, O(json), 0, 0, NULL, "FILE|-", "the result document (default and - : stdout)" },
    { "--quiet", AG_OPT_FLAG, O(quiet), 0, 0, NULL, NULL, "no table on stderr" },
    { "--machines", AG_OPT_FLAG, O(machines), 0, 0, NULL, NULL, "list the machine descriptions found" },
    { NULL, AG_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL },
};

static int fail_arg(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "andgate sim: %s '%s': expected %s\n", opt, v, want);
    return 2;
}

struct item {
    const char *spec;
    const struct sim_hw *hw;
};

static int by_name(const void *a, const void *b) { return strcmp(a, b); }
static int by_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

static int list_machines(void)
{
    char names[128][64];
    unsigned n = sim_machine_names(names, 128);
    qsort(names, n, sizeof *names, by_name);
    for (unsigned i = 0; i < n; i++) {
        struct sim_machine m;
        char err[600];
        if (sim_machine_load(names[i], &m, err, sizeof err) == 0) {
            printf("%-15s %4u threads  %s\n                %s\n", names[i], m.threads, m.title, m.file);
            sim_machine_free(&m);
        } else {
            printf("%-15s (%s)\n", names[i], err);
        }
    }
    if (!n)
        printf("no machine descriptions found (andgate sim --help)\n");
    return 0;
}

/* algo=auto as the library resolves it (src/auto.c) on the modeled topology: n participants placed by
 * pin, the cache groups they occupy, and a spinning wait (the only kind the simulator models). */
static const char *auto_on(const struct sim_machine *m, unsigned n, const char *pin)
{
    unsigned hw[SIM_MAX_THREADS], groups = 0;
    char err[300];
    if (n > SIM_MAX_THREADS || sim_place(m, n, pin, hw, err, sizeof err))
        return ag_auto_algo(n, 1, 1);
    qsort(hw, n, sizeof *hw, by_unsigned); /* topology order, as the library ranks participants */
    for (unsigned i = 0, prev = 0; i < n; i++) {
        unsigned u = sim_machine_unit(m, hw[i], m->cache_level);
        groups += !i || u != prev;
        prev = u;
    }
    return ag_auto_algo(n, 1, groups);
}

/* One simulation run: what to run, on which machine, where the document goes. */
struct run {
    const struct cli *cli;
    struct sim_machine m;
    struct sim_opts base;
    struct item items[128];
    unsigned ni, counts[64], nc;
    int want_sw, want_hw, first, failures;
    char buf[4096];
    FILE *out;
};

/* --algos: software algorithms (their defaults, or specs, auto allowed) and hardware devices, every spec
 * checked before anything runs. 0, or the exit status. */
static int select_items(struct run *r)
{
    const char *algos = r->cli->algos;
    r->want_sw = !strcmp(algos, "all") || !strcmp(algos, "sw");
    r->want_hw = !strcmp(algos, "all") || !strcmp(algos, "hw");
    if (r->want_sw || r->want_hw) {
        for (unsigned i = 0; r->want_sw && i < ag_algo_table.n; i++)
            r->items[r->ni++] = (struct item){ ag_algo_table.get(i)->name, NULL };
        for (unsigned i = 0; r->want_hw && sim_hw_devices[i] && r->ni < 128; i++)
            r->items[r->ni++] = (struct item){ sim_hw_devices[i]->name, sim_hw_devices[i] };
    } else {
        if (strlen(algos) >= sizeof r->buf)
            return fail_arg("--algos", "...", "a list shorter than 4096 characters");
        snprintf(r->buf, sizeof r->buf, "%s", algos);
        char *specs[128];
        r->ni = ag_spec_split_list(r->buf, specs, 128);
        if (r->ni > 128)
            return fail_arg("--algos", "...", "at most 128 entries");
        for (unsigned i = 0; i < r->ni; i++)
            r->items[i] = (struct item){ specs[i], sim_hw_find(specs[i]) };
    }
    if (!r->ni)
        return fail_arg("--algos", algos, "all, sw, hw, or algorithm specs and hw-* devices separated by ';'");
    for (unsigned i = 0; i < r->ni; i++) {
        struct ag_spec sp;
        char msg[600];
        if (!r->items[i].hw && strcmp(r->items[i].spec, "auto") &&
            ag_spec_parse(&ag_algo_table, r->items[i].spec, &sp, msg, sizeof msg)) {
            fprintf(stderr, "andgate sim: --algos: %s; or a hardware device:", msg);
            for (unsigned d = 0; sim_hw_devices[d]; d++)
                fprintf(stderr, " %s", sim_hw_devices[d]->name);
            fprintf(stderr, "\n");
            return 2;
        }
    }
    return 0;
}

/* --threads and --pin against the machine. 0, or the exit status. */
static int check_counts(struct run *r)
{
    char err[600];
    r->nc = ag_parse_counts(r->cli->threads, SIM_MAX_THREADS, r->counts, 64, err, sizeof err);
    if (!r->nc)
        return fail_arg("--threads", r->cli->threads, "a list of at most 64 participant counts like 2,4,8 or 2-8");
    for (unsigned c = 0; c < r->nc; c++)
        if (r->counts[c] > r->m.threads) {
            fprintf(stderr, "andgate sim: --threads %u: %s has %u hardware threads\n", r->counts[c], r->m.name,
                    r->m.threads);
            return 2;
        }
    unsigned probe;
    if (sim_place(&r->m, 1, r->cli->pin, &probe, err, sizeof err)) /* the placement policy, once */
        return fail_arg("--pin", r->cli->pin, "cores, compact or scatter");
    return 0;
}

/* The document's head: the modeled machine as the host, its core-to-core line one transfer between the
 * hardware threads of participants 0 and 1. */
static void write_head(struct run *r, int argc, char **argv)
{
    char title[400], cmd[2048] = "andgate sim", err[300];
    snprintf(title, sizeof title, "sim: %s (%s), %u hardware threads", r->m.name, r->m.title, r->m.threads);
    unsigned hw2[2] = { 0, 0 };
    double c2c = 0;
    if (r->m.threads > 1 && sim_place(&r->m, 2, r->cli->pin, hw2, err, sizeof err) == 0)
        c2c = sim_machine_cost(&r->m, hw2[0], hw2[1], 0);
    for (int i = 1; i < argc; i++) {
        size_t l = strlen(cmd);
        snprintf(cmd + l, sizeof cmd - l, " %s", argv[i]);
    }
    ag_document_begin(r->out, "sim", cmd);
    fprintf(r->out, ",\"host\":{\"model\":");
    json_str(r->out, title);
    fprintf(r->out, ",\"cpus_usable\":%u,\"clock\":\"virtual\",\"c2c_oneway_ns\":{\"min\":%.1f,\"median\":%.1f}},"
                    "\"results\":[\n", r->m.threads, c2c, c2c);
    if (!r->cli->quiet)
        fprintf(stderr, "%-50s %7s %12s %12s %12s %10s%s\n", "algorithm", "threads", "median ns", "p99 ns", "cpu ns/ep",
                "sim ops/ep", r->cli->model ? "   002 model ns  sim/model" : "");
}

/* Item i at n participants: simulated, its record written (with 002's prediction where 002 models the
 * algorithm and --model asks), a line of the table on stderr. */
static void run_one(struct run *r, const struct item *it, unsigned n)
{
    const struct cli *cli = r->cli;
    struct sim_opts o = r->base;
    o.m = &r->m, o.n = n, o.hw = it->hw, o.pin = cli->pin;
    o.algo = it->hw || strcmp(it->spec, "auto") ? it->spec : auto_on(&r->m, n, cli->pin);
    struct sim_result res;
    int rc = sim_run(&o, &res);
    if (rc == EINVAL && it->hw && (r->want_hw || r->want_sw))
        return; /* "all"/"hw": a device this machine lacks, or a count it cannot serve */
    if (rc == EINVAL || rc == ENOMEM) {
        fprintf(stderr, "andgate sim: %s, %u participants: %s\n", it->spec, n, res.error);
        r->failures++;
        return;
    }
    r->failures += rc != 0;
    fputs(r->first ? "" : ",\n", r->out);
    r->first = 0;
    char impl[256], settings[160];
    snprintf(impl, sizeof impl, "%s:%s%s", it->hw ? "hw" : "andgate", res.describe[0] ? res.describe : o.algo,
             o.algo != it->spec ? " (auto)" : "");
    snprintf(settings, sizeof settings, "pin=%s,work_ns=%g,work_jitter_ns=%g%s", cli->pin, o.work_ns, o.work_jitter_ns,
             cli->alpha >= 0 ? ",alpha=what-if" : "");
    struct ag_record rec = { .impl = impl, .kind = it->hw ? "hw" : "andgate", .wait = cli->wait, .pinning = cli->pin,
                             .method = cli->method, .threads = n, .episodes = res.episodes, .median_ns = res.median_ns,
                             .min_ns = res.min_ns, .p99_ns = res.p99_ns, .mean_ns = res.mean_ns,
                             .cpu_ns_per_episode = res.cpu_ns_per_episode, .jitter_delay_ns = o.late_ns,
                             .late = "rotating", .settings = settings, .error = rc ? res.error : NULL };
    ag_record_begin(r->out, &rec);
    double e = res.run_episodes ? res.run_episodes : 1; /* traffic and operations: every episode run */
    fprintf(r->out, ",\"traffic_per_episode\":{\"reads_local\":%.1f,\"reads_remote\":%.1f,\"writes\":%.1f,"
                    "\"invalidations\":%.1f,\"rmws\":%.1f}",
            res.traffic.reads_local / e, res.traffic.reads_remote / e, res.traffic.writes / e,
            res.traffic.invalidations / e, res.traffic.rmws / e);
    double mns = 0;
    char mdetail[400] = "", merr[300], mcol[64] = "";
    int has_model = cli->model && !it->hw &&
                    sim_model_algo(&r->m, n, cli->pin, 0, o.algo, &mns, mdetail, sizeof mdetail, merr, sizeof merr) == 1;
    if (has_model) {
        fprintf(r->out, ",\"model_ns\":%.1f,\"model\":", mns);
        json_str(r->out, mdetail);
        snprintf(mcol, sizeof mcol, " %14.1f %9.2f", mns, res.median_ns / mns);
    } else if (cli->model) {
        snprintf(mcol, sizeof mcol, " %14s %9s", "-", "-");
    }
    ag_record_end(r->out, &rec);
    if (!cli->quiet)
        fprintf(stderr, "%-50s %7u %12.1f %12.1f %12.1f %10.1f%s%s%s\n", impl, n, res.median_ns, res.p99_ns,
                res.cpu_ns_per_episode, res.operations / e, mcol, rc ? "  FAILED: " : "", rc ? res.error : "");
}

/* --model: 002's models themselves, per participant count */
static void print_models(struct run *r)
{
    char err[300];
    for (unsigned c = 0; c < r->nc; c++) {
        struct sim_model_row rows[32];
        int nr = sim_model_eval(&r->m, r->counts[c], r->cli->pin, 0, rows, 32, err, sizeof err);
        if (nr < 0) {
            fprintf(stderr, "andgate sim: --model: %s\n", err);
            continue;
        }
        fprintf(stderr, "\n002's models on %s, %u participants (pin %s, contention c = 0):\n", r->m.name, r->counts[c],
                r->cli->pin);
        for (int k = 0; k < nr; k++)
            fprintf(stderr, "  %-34s %10.1f ns  %s\n", rows[k].what, rows[k].ns, rows[k].detail);
    }
}

int main(int argc, char **argv)
{
    struct cli cli = { .machine = "kunpeng920", .algos = "all", .threads = "2,4,8,16,32,64", .pin = "cores",
                       .wait = "spin", .method = "latency", .schedule = "fixed", .episodes = 200, .seed = 1,
                       .late_ns = 100000, .alpha = -1 };
    if (ag_opts_parse("andgate sim", options, &cli, argc, argv, 1)) {
        printf("usage: andgate sim [OPTIONS] [--report DIR]\n");
        ag_opts_usage(stdout, options);
        printf("docs/options.md lists every option of bench and sim; docs/sim.md explains the model.\n");
        return 0;
    }
    if (cli.machines)
        return list_machines();
    static struct run r;
    r.cli = &cli, r.first = 1;
    r.base = (struct sim_opts){ .episodes = cli.episodes, .seed = cli.seed, .late_ns = cli.late_ns,
                                .work_ns = cli.work_ns, .work_jitter_ns = cli.work_jitter_ns,
                                .random_schedule = !strcmp(cli.schedule, "random") };
    r.base.method = !strcmp(cli.method, "jitter") ? SIM_JITTER : !strcmp(cli.method, "epcc") ? SIM_EPCC : SIM_LATENCY;
    char err[600];
    if (sim_machine_load(cli.machine, &r.m, err, sizeof err)) {
        fprintf(stderr, "andgate sim: %s\n", err);
        return 2;
    }
    if (cli.alpha >= 0) /* a what-if: every layer's α replaced (the host's command line says so) */
        for (unsigned k = 0; k < r.m.nlayers; k++)
            r.m.layer[k].alpha = k == r.m.self_layer || r.m.inval_none ? 0 : cli.alpha;
    int rc = select_items(&r);
    if (rc || (rc = check_counts(&r)))
        return rc;
    const char *json = cli.json && strcmp(cli.json, "-") ? cli.json : NULL;
    r.out = json ? fopen(json, "w") : stdout;
    if (!r.out)
        return fprintf(stderr, "andgate sim: cannot write %s\n", json), 2;
    write_head(&r, argc, argv);
    for (unsigned i = 0; i < r.ni; i++)
        for (unsigned c = 0; c < r.nc; c++)
            run_one(&r, &r.items[i], r.counts[c]);
    fprintf(r.out, "]}\n");
    if (json)
        fclose(r.out);
    if (cli.model)
        print_models(&r);
    sim_machine_free(&r.m);
    return r.failures ? 1 : 0;
}
