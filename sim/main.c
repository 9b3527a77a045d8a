/* andgate-sim — `andgate sim` runs this (it carries the simulator build of the algorithms, which cannot
 * share a process with libandgate's). Output: the result JSON of DESIGN.md, mode "sim", with traffic
 * counts per episode; a table on stderr. docs/sim.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "hw.h"
#include "counts.h"
#include "json.h"
#include "machine.h"
#include "model.h"
#include "spec.h"

static int usage(void)
{
    fprintf(stderr,
            "usage: andgate sim [--machine NAME|FILE] [--algos all|sw|hw|LIST] [--threads LIST]\n"
            "                   [--wait spin] [--method latency|epcc|jitter] [--late-ns X] [--work-ns X]\n"
            "                   [--work-jitter-ns X]\n"
            "                   [--episodes N] [--seed S] [--schedule fixed|random] [--pin cores|compact|scatter]\n"
            "                   [--alpha X] [--model] [--json FILE|-] [--report DIR] [--quiet]\n"
            "       andgate sim --machines          (the machine descriptions found)\n"
            "--threads: 2,4,8 or 2-8; LIST: algorithm specs and hw-* devices separated by ';' (andgate list; andgate sim --algos hw).\n");
    return 2;
}

static int fail_arg(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "andgate sim: %s '%s': expected %s\n", opt, v, want);
    return 2;
}

static int parse_u(const char *v, unsigned long long *out)
{
    char *end;
    if (!*v || *v == '-')
        return -1;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return *end || errno ? -1 : 0;
}

/* A time or weight: finite, not negative, at most 1 s of virtual time. */
static int parse_d(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return *v && !*end && isfinite(*out) && *out >= 0 && *out <= 1e9 ? 0 : -1;
}

struct item {
    const char *spec;
    const struct sim_hw *hw;
};

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

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

int main(int argc, char **argv)
{
    const char *machine = "kunpeng920", *algos = "all", *threads = "2,4,8,16,32,64", *json = NULL, *pin = "cores";
    struct sim_opts base = { .episodes = 200, .seed = 1, .late_ns = 100000 };
    int quiet = 0, model = 0;
    double alpha = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--machines"))
            return list_machines();
        if (!strcmp(a, "--quiet") || !strcmp(a, "--model")) {
            *(a[2] == 'q' ? &quiet : &model) = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || i + 1 >= argc)
            return usage();
        const char *v = argv[++i];
        unsigned long long u;
        if (!strcmp(a, "--machine")) machine = v;
        else if (!strcmp(a, "--algos")) algos = v;
        else if (!strcmp(a, "--threads")) threads = v;
        else if (!strcmp(a, "--json")) json = v;
        else if (!strcmp(a, "--pin")) pin = v;
        else if (!strcmp(a, "--episodes")) {
            if (parse_u(v, &u) || !u || u > 10000000)
                return fail_arg(a, v, "a count from 1 to 10000000");
            base.episodes = (unsigned)u;
        } else if (!strcmp(a, "--seed")) {
            if (parse_u(v, &u))
                return fail_arg(a, v, "a whole number");
            base.seed = u;
        } else if (!strcmp(a, "--schedule")) {
            if (strcmp(v, "fixed") && strcmp(v, "random"))
                return fail_arg(a, v, "fixed or random");
            base.random_schedule = !strcmp(v, "random");
        } else if (!strcmp(a, "--method")) {
            if (strcmp(v, "latency") && strcmp(v, "jitter") && strcmp(v, "epcc"))
                return fail_arg(a, v, "latency, epcc or jitter");
            base.method = !strcmp(v, "jitter") ? SIM_JITTER : !strcmp(v, "epcc") ? SIM_EPCC : SIM_LATENCY;
        } else if (!strcmp(a, "--late-ns")) {
            if (parse_d(v, &base.late_ns))
                return fail_arg(a, v, "a time in ns, not negative");
        } else if (!strcmp(a, "--work-ns")) {
            if (parse_d(v, &base.work_ns))
                return fail_arg(a, v, "a time in ns, not negative");
        } else if (!strcmp(a, "--work-jitter-ns")) {
            if (parse_d(v, &base.work_jitter_ns))
                return fail_arg(a, v, "a time in ns, not negative");
        } else if (!strcmp(a, "--alpha")) {
            if (parse_d(v, &alpha) || alpha > 1)
                return fail_arg(a, v, "an invalidation weight in [0, 1]");
        } else if (!strcmp(a, "--wait")) {
            /* the engine models a waiter that spins on its cached copy and re-reads when the line is
             * written; sleeping (block, hybrid, auto) has no cost model in the machine files */
            if (strcmp(v, "spin") && strcmp(v, "pause"))
                return fail_arg(a, v, "spin or pause (the simulator models spinning waiters only; docs/sim.md)");
        } else return usage();
    }
    struct sim_machine m;
    char err[600];
    if (sim_machine_load(machine, &m, err, sizeof err)) {
        fprintf(stderr, "andgate sim: %s\n", err);
        return 2;
    }
    if (alpha >= 0) /* a what-if: every layer's α replaced (the host's command line says so) */
        for (unsigned k = 0; k < m.nlayers; k++)
            m.layer[k].alpha = k == m.self_layer || m.inval_none ? 0 : alpha;
    /* what to run: software algorithms (their defaults, or specs) and hardware devices */
    struct item items[128];
    unsigned ni = 0;
    int want_sw = !strcmp(algos, "all") || !strcmp(algos, "sw"), want_hw = !strcmp(algos, "all") || !strcmp(algos, "hw");
    char buf[4096];
    if (want_sw || want_hw) {
        for (unsigned i = 0; want_sw && i < ag_algo_table.n; i++)
            items[ni++] = (struct item){ ag_algo_table.get(i)->name, NULL };
        for (unsigned i = 0; want_hw && sim_hw_devices[i] && ni < 128; i++)
            items[ni++] = (struct item){ sim_hw_devices[i]->name, sim_hw_devices[i] };
    } else {
        if (strlen(algos) >= sizeof buf)
            return fail_arg("--algos", "...", "a list shorter than 4096 characters");
        snprintf(buf, sizeof buf, "%s", algos);
        for (char *save, *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
            if (ni == 128)
                return fail_arg("--algos", "...", "at most 128 entries");
            items[ni++] = (struct item){ t, sim_hw_find(t) };
        }
    }
    if (!ni)
        return fail_arg("--algos", algos, "all, sw, hw, or algorithm specs and hw-* devices separated by ';'");
    for (unsigned i = 0; i < ni; i++) { /* every spec checked before anything runs */
        struct ag_spec sp;
        char msg[600];
        if (!items[i].hw && ag_spec_parse(&ag_algo_table, items[i].spec, &sp, msg, sizeof msg)) {
            fprintf(stderr, "andgate sim: --algos: %s; or a hardware device:", msg);
            for (unsigned d = 0; sim_hw_devices[d]; d++)
                fprintf(stderr, " %s", sim_hw_devices[d]->name);
            fprintf(stderr, "\n");
            return 2;
        }
    }
    /* thread counts */
    unsigned counts[64], nc = ag_parse_counts(threads, SIM_MAX_THREADS, counts, 64, err, sizeof err);
    if (!nc)
        return fail_arg("--threads", threads, "a list of at most 64 participant counts like 2,4,8 or 2-8");
    for (unsigned c = 0; c < nc; c++)
        if (counts[c] > m.threads) {
            fprintf(stderr, "andgate sim: --threads %u: %s has %u hardware threads\n", counts[c], m.name, m.threads);
            return 2;
        }
    unsigned probe;
    if (sim_place(&m, 1, pin, &probe, err, sizeof err)) /* the placement policy, once */
        return fail_arg("--pin", pin, "cores, compact or scatter");
    if (json && !strcmp(json, "-"))
        json = NULL;
    FILE *out = json ? fopen(json, "w") : stdout;
    if (!out)
        return fprintf(stderr, "andgate sim: cannot write %s\n", json), 2;
    char title[400], date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(title, sizeof title, "sim: %s (%s), %u hardware threads", m.name, m.title, m.threads);
    /* the report's core-to-core line: one transfer between the hardware threads of participants 0 and 1 */
    unsigned hw2[2] = { 0, 0 };
    double c2c = 0;
    if (m.threads > 1 && sim_place(&m, 2, pin, hw2, err, sizeof err) == 0)
        c2c = sim_machine_cost(&m, hw2[0], hw2[1], 0);
    fprintf(out, "{\"tool\":\"andgate\",\"version\":\"0.1.0\",\"mode\":\"sim\",\"date\":\"%s\",\"command\":", date);
    char cmd[2048] = "andgate sim";
    for (int i = 1; i < argc; i++) {
        size_t l = strlen(cmd);
        snprintf(cmd + l, sizeof cmd - l, " %s", argv[i]);
    }
    json_str(out, cmd);
    fprintf(out, ",\"host\":{\"model\":");
    json_str(out, title);
    fprintf(out, ",\"cpus_usable\":%u,\"clock\":\"virtual\",\"c2c_oneway_ns\":{\"min\":%.1f,\"median\":%.1f}},"
                 "\"results\":[\n", m.threads, c2c, c2c);
    if (!quiet)
        fprintf(stderr, "%-50s %7s %12s %12s %12s %10s%s\n", "algorithm", "threads", "median ns", "p99 ns", "cpu ns/ep",
                "sim ops/ep", model ? "   002 model ns  sim/model" : "");
    int first = 1, failures = 0;
    for (unsigned i = 0; i < ni; i++)
        for (unsigned c = 0; c < nc; c++) {
            struct sim_opts o = base;
            o.m = &m;
            o.algo = items[i].spec;
            o.hw = items[i].hw;
            o.pin = pin;
            o.n = counts[c];
            struct sim_result r;
            int rc = sim_run(&o, &r);
            if (rc == EINVAL && items[i].hw && (want_hw || want_sw))
                continue; /* "all"/"hw": a device this machine lacks, or a count it cannot serve */
            if (rc == EINVAL || rc == ENOMEM) {
                fprintf(stderr, "andgate sim: %s, %u participants: %s\n", items[i].spec, o.n, r.error);
                failures++;
                continue;
            }
            failures += rc != 0;
            fprintf(out, "%s{\"impl\":", first ? "" : ",\n");
            first = 0;
            char impl[256];
            snprintf(impl, sizeof impl, "%s:%s", items[i].hw ? "hw" : "andgate", r.describe[0] ? r.describe : o.algo);
            json_str(out, impl);
            fprintf(out, ",\"kind\":\"%s\",\"threads\":%u,\"wait\":\"spin\",\"pinning\":\"%s\",\"method\":\"%s\"",
                    items[i].hw ? "hw" : "andgate", o.n, pin,
                    o.method == SIM_JITTER ? "jitter" : o.method == SIM_EPCC ? "epcc" : "latency");
            char settings[160];
            snprintf(settings, sizeof settings, "pin=%s,work_ns=%g,work_jitter_ns=%g%s", pin, o.work_ns,
                     o.work_jitter_ns, alpha >= 0 ? ",alpha=what-if" : "");
            fprintf(out, ",\"median_ns\":%.1f,\"min_ns\":%.1f,\"p99_ns\":%.1f,\"mean_ns\":%.1f,"
                         "\"cpu_ns_per_episode\":%.1f,\"episodes\":%u,\"status\":\"%s\",\"settings\":",
                    r.median_ns, r.min_ns, r.p99_ns, r.mean_ns, r.cpu_ns_per_episode, r.episodes,
                    rc ? "failed" : "ok");
            json_str(out, settings);
            if (o.method == SIM_JITTER)
                fprintf(out, ",\"jitter_delay_ns\":%.0f,\"late\":\"rotating\"", o.late_ns);
            double e = r.run_episodes ? r.run_episodes : 1; /* traffic and operations: every episode run */
            fprintf(out, ",\"traffic_per_episode\":{\"reads_local\":%.1f,\"reads_remote\":%.1f,\"writes\":%.1f,"
                         "\"invalidations\":%.1f,\"rmws\":%.1f}",
                    r.traffic.reads_local / e, r.traffic.reads_remote / e, r.traffic.writes / e,
                    r.traffic.invalidations / e, r.traffic.rmws / e);
            if (rc) {
                fprintf(out, ",\"error\":");
                json_str(out, r.error);
            }
            /* 002's analytical prediction, where 002 models the algorithm (sim/model.h) */
            double mns = 0;
            char mdetail[400] = "", merr[300];
            int has_model = model && !items[i].hw &&
                            sim_model_algo(&m, o.n, pin, 0, o.algo, &mns, mdetail, sizeof mdetail, merr, sizeof merr) == 1;
            if (has_model) {
                fprintf(out, ",\"model_ns\":%.1f,\"model\":", mns);
                json_str(out, mdetail);
            }
            fputc('}', out);
            char mcol[64] = "";
            if (has_model)
                snprintf(mcol, sizeof mcol, " %14.1f %9.2f", mns, r.median_ns / mns);
            else if (model)
                snprintf(mcol, sizeof mcol, " %14s %9s", "-", "-");
            if (!quiet)
                fprintf(stderr, "%-50s %7u %12.1f %12.1f %12.1f %10.1f%s%s%s\n", impl, o.n, r.median_ns, r.p99_ns,
                        r.cpu_ns_per_episode, r.operations / e, mcol, rc ? "  FAILED: " : "", rc ? r.error : "");
        }
    fprintf(out, "]}\n");
    if (json)
        fclose(out);
    for (unsigned c = 0; model && c < nc; c++) { /* 002's models themselves, per participant count */
        struct sim_model_row rows[32];
        int nr = sim_model_eval(&m, counts[c], pin, 0, rows, 32, err, sizeof err);
        if (nr < 0) {
            fprintf(stderr, "andgate sim: --model: %s\n", err);
            continue;
        }
        fprintf(stderr, "\n002's models on %s, %u participants (pin %s, contention c = 0):\n", m.name, counts[c], pin);
        for (int k = 0; k < nr; k++)
            fprintf(stderr, "  %-34s %10.1f ns  %s\n", rows[k].what, rows[k].ns, rows[k].detail);
    }
    sim_machine_free(&m);
    return failures ? 1 : 0;
}
