/* andgate-sim — the simulator worker: `andgate sim` (tools/cmd_sim.c) runs it for each job, as `andgate
 * bench` runs bench/worker.c (it carries the simulator build of the algorithms, which cannot share a
 * process with libandgate's). Its options are rows of the one table in common/experiment.c:
 *
 *   andgate-sim --machines                          the machine descriptions found
 *   andgate-sim --plan --machine M --algos A --threads T --pin P [--alpha X]
 *                                                   checks them; prints the document's host object on
 *                                                   the first line, then one line per item: KIND OPTIONAL NAME
 *   andgate-sim --models --machine M --threads T --pin P   002's models, on stderr
 *   andgate-sim --impl andgate --spec SPEC | --impl hw-NAME  --threads N [OPTIONS]
 *                                                   one job: one record (DESIGN.md) on stdout; exit 0,
 *                                                   1 (a failed record), 2 (bad usage), 3 (a device this
 *                                                   machine lacks or a count it cannot serve: no record)
 * docs/sim.md. */
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
#include "shape.h"
#include "counts.h"
#include "experiment.h"
#include "json.h"
#include "machine.h"
#include "model.h"
#include "opts.h"
#include "policy.h"
#include "record.h"
#include "spec.h"

#define PROG "andgate sim"

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

/* algo=auto as the library resolves it (src/auto.c) on the modeled topology: n participants placed by
 * pin (more than the hardware threads wrap, as the engine runs them), the shape the engine's plan sees
 * of them (sim_shape), and whether the wait policy spins. The simulator binds every participant to its
 * hardware thread: its placement is known, as cfg.cpus makes it known to the library. */
static const char *auto_on(const struct sim_machine *m, unsigned n, const char *pin, int no_spin)
{
    unsigned hw[SIM_MAX_THREADS];
    struct ag_auto_in in = { .n = n, .spins = !no_spin, .cpu_groups = n, .core_groups = n };
    struct ag_shape sh = { 0 };
    char err[300];
    unsigned placed = n < m->threads ? n : m->threads;
    if (n > SIM_MAX_THREADS || sim_place(m, placed, pin, hw, err, sizeof err))
        return ag_auto_algo(&in);
    for (unsigned t = placed; t < n; t++)
        hw[t] = hw[t % placed];
    in.cpu_groups = placed; /* sim_place gives distinct hardware threads */
    if (sim_shape(m, n, hw, &sh) == 0)
        ag_auto_from_shape(&in, &sh);
    ag_shape_free(&sh);
    return ag_auto_algo(&in);
}

/* The machine of --machine, with --alpha's what-if and --atomics applied (exit 2 when it cannot be
 * loaded, or when --atomics asks for what its cores lack). */
static void load_machine(const struct ag_exp *o, struct sim_machine *m)
{
    char err[600];
    if (sim_machine_load(o->machine, m, err, sizeof err))
        ag_usage_error(PROG, "%s", err);
    if (!strcmp(o->atomics, "llsc") && !m->atomic_armv8)
        ag_usage_error(PROG, "--atomics llsc: exclusive load/store pairs are ARMv8's; %s is not an ARMv8 machine",
                       m->name);
    if (!strcmp(o->atomics, "rmw") && m->atomic_llsc)
        ag_usage_error(PROG, "--atomics rmw: %s's cores are ARMv8.0, without single-instruction atomics (LSE)",
                       m->name);
    if (strcmp(o->atomics, "machine"))
        m->atomic_llsc = !strcmp(o->atomics, "llsc");
    if (o->alpha >= 0) /* a what-if: every layer's α replaced (the host's command line says so) */
        for (unsigned k = 0; k < m->nlayers; k++)
            m->layer[k].alpha = k == m->self_layer || m->inval_none ? 0 : o->alpha;
}

/* --pin against the machine (the placement policy, once) and every --wait: what the model has. */
static void check_pin_wait(const struct ag_exp *o, const struct sim_machine *m)
{
    unsigned probe;
    char err[300];
    if (!strcmp(o->pin, "none"))
        ag_usage_error(PROG, "--pin none: the simulator places every participant; expected cores, compact or scatter");
    if (sim_place(m, 1, o->pin, &probe, err, sizeof err))
        ag_usage_error(PROG, "--pin %s: expected cores, compact or scatter", o->pin);
    char waits[256];
    if (ag_spec_list_empty(o->wait, ";"))
        ag_usage_error(PROG, "--wait: an empty item in '%s'; expected wait policies separated by ';'", o->wait);
    snprintf(waits, sizeof waits, "%s", o->wait);
    struct sim_opts so;
    for (char *save, *w = strtok_r(waits, ";", &save); w; w = strtok_r(NULL, ";", &save))
        if (sim_wait_policy(w, m, 2, &so, err, sizeof err))
            ag_usage_error(PROG, "%s", err);
}

/* One item line of --plan: "KIND OPTIONAL NAME", once per name (all;hw names the devices twice, as
 * central;central names central twice: one job each, as bench's baselines) */
static void item(const char *kind, int optional, const char *name)
{
    static const char *seen[256];
    static unsigned nseen;
    for (unsigned k = 0; k < nseen; k++)
        if (!strcmp(seen[k], name))
            return;
    if (nseen < sizeof seen / sizeof *seen)
        seen[nseen++] = name;
    printf("%s %d %s\n", kind, optional, name);
}

/* --algos: software algorithms (their defaults, or specs, auto allowed) and hardware devices; all, sw and
 * hw alone or inside a list. Every spec checked before anything runs; the items on stdout. */
static void plan_items(const char *algos)
{
    static char buf[4096];
    char *specs[128];
    if (strlen(algos) >= sizeof buf)
        ag_usage_error(PROG, "--algos: expected a list shorter than 4096 characters");
    snprintf(buf, sizeof buf, "%s", algos);
    unsigned n = ag_spec_split_list(buf, specs, 128);
    if (!n)
        ag_usage_error(PROG, "--algos: an empty item in '%s'; expected specs and hw-* devices separated by ';'",
                       algos);
    if (n > 128)
        ag_usage_error(PROG, "--algos '%s': expected all, sw, hw, or 1..128 specs and hw-* devices separated by ';'", algos);
    for (unsigned i = 0; i < n; i++) {
        struct ag_spec sp;
        char msg[600];
        const char *it = specs[i];
        if (sim_hw_find(it) || !strcmp(it, "auto") || !strcmp(it, "all") || !strcmp(it, "sw") || !strcmp(it, "hw"))
            continue;
        if (ag_spec_parse(&ag_algo_table, it, &sp, msg, sizeof msg)) {
            fprintf(stderr, PROG ": --algos: %s; or all, sw, hw, or a hardware device:", msg);
            for (unsigned d = 0; sim_hw_devices[d]; d++)
                fprintf(stderr, " %s", sim_hw_devices[d]->name);
            fprintf(stderr, "\n");
            exit(2);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        int all = !strcmp(specs[i], "all"), sw = all || !strcmp(specs[i], "sw"), hw = all || !strcmp(specs[i], "hw");
        for (unsigned a = 0; sw && a < ag_algo_table.n; a++)
            if (ag_algo_fixed(a))
                item("andgate", 0, ag_algo_table.get(a)->name);
        for (unsigned d = 0; hw && sim_hw_devices[d]; d++)
            item("hw", 1, sim_hw_devices[d]->name); /* a device the machine lacks is left out */
        if (!sw && !hw)
            item(sim_hw_find(specs[i]) ? "hw" : "andgate", 0, specs[i]);
    }
}

/* n participants on fewer hardware threads (os_sched.c): the machine must have the OS costs of a context
 * switch, and every --wait (when waits: a software barrier runs) must give the CPU away (exit 2). */
static void check_oversubscribed(const struct ag_exp *o, const struct sim_machine *m, unsigned n, int waits)
{
    char list[256], err[400];
    struct sim_opts so;
    if (m->os_ns[SIM_OS_CONTEXT_SWITCH] < 0)
        ag_usage_error(PROG, "--threads %u: %s has %u hardware threads, and more participants need its os.context_switch "
                       "(andgate info --measure writes the os block for this host; the papers give none for theirs)",
                       n, m->name, m->threads);
    snprintf(list, sizeof list, "%s", o->wait);
    for (char *save, *w = strtok_r(list, ";", &save); w && waits; w = strtok_r(NULL, ";", &save))
        if (sim_wait_policy(w, m, n, &so, err, sizeof err))
            ag_usage_error(PROG, "%s", err);
}

/* --workload against --algos and --threads: its primitives are software (a barrier algorithm's spec) or
 * hw-subutai's; prodcons needs a producer and a consumer. */
static void check_workload(const struct ag_exp *o, const struct sim_machine *m, const char *algos,
                           const unsigned *counts, unsigned nc)
{
    if (!o->workload)
        return;
    if (strcmp(o->method, "latency"))
        ag_usage_error(PROG, "--workload %s: --method %s: a workload's record has its iterations' durations "
                       "(latency only)", o->workload, o->method);
    char buf[4096], *specs[128];
    snprintf(buf, sizeof buf, "%s", algos);
    unsigned n = ag_spec_split_list(buf, specs, 128);
    for (unsigned i = 0; i < n && i < 128; i++) {
        const struct sim_hw *hw = sim_hw_find(specs[i]);
        if ((hw && strcmp(specs[i], "hw-subutai")) || !strcmp(specs[i], "all") || !strcmp(specs[i], "hw"))
            ag_usage_error(PROG, "--workload %s: --algos '%s': expected barrier algorithms (software mutex and "
                           "condition) or hw-subutai (its FSM serves all three)", o->workload, specs[i]);
        if (!hw && strcmp(specs[i], "andgate") && m->os_ns[SIM_OS_WAKEUP] < 0) /* the futex model (sync_futex.c) */
            ag_usage_error(PROG, "--workload %s: the software mutex and condition need %s's os block (andgate info "
                           "--measure writes it for this host; the papers give none for theirs)", o->workload, m->name);
    }
    for (unsigned c = 0; c < nc; c++)
        if (!strcmp(o->workload, "prodcons") && counts[c] < 2)
            ag_usage_error(PROG, "--workload prodcons: one producer and at least one consumer, got --threads %u",
                           counts[c]);
}

/* --threads against the machine; the counts in out (exit 2 for a bad list). */
static unsigned plan_counts(const struct ag_exp *o, const struct sim_machine *m, unsigned *out)
{
    char err[600];
    unsigned nc = ag_parse_counts(o->threads, SIM_MAX_THREADS, out, 64, err, sizeof err);
    if (!nc)
        ag_usage_error(PROG, "--threads '%s': %s", o->threads, err);
    for (unsigned c = 0; c < nc; c++) {
        if (out[c] > m->threads)
            check_oversubscribed(o, m, out[c], !o->workload || strcmp(o->algos, "hw-subutai"));
        if ((o->episodes + 1ull) * out[c] > SIM_MAX_SAMPLES) /* sim_run refuses it: say so before any job */
            ag_usage_error(PROG, "--episodes %u: at %u participants the simulator keeps at most %llu episodes "
                           "((episodes + 1) x participants <= 2^27 samples)", o->episodes, out[c],
                           (unsigned long long)(SIM_MAX_SAMPLES / out[c] - 1));
    }
    return nc;
}

/* --algos hw alone asks for the devices the machine has: a machine with none is a bad command line
 * (every job would be left out, an empty result with exit 0) */
static void check_hw_only(const struct ag_exp *o, const struct sim_machine *m)
{
    char buf[4096], *items[128], others[1024];
    snprintf(buf, sizeof buf, "%s", o->algos);
    unsigned n = ag_spec_split_list(buf, items, 128);
    for (unsigned i = 0; i < n && i < 128; i++)
        if (strcmp(items[i], "hw"))
            return;
    if (!n || sim_hw_any(m))
        return;
    sim_hw_machines(others, sizeof others);
    ag_usage_error(PROG, "--algos hw: machine %s models no hardware barrier; these do: %s (docs/sim-hw.md)",
                   m->name, others);
}

/* --plan: the document's host (the modeled machine; its core-to-core line is one transfer between the
 * hardware threads of participants 0 and 1), then the items. */
static int plan(const struct ag_exp *o)
{
    struct sim_machine m;
    unsigned counts[64];
    load_machine(o, &m);
    check_pin_wait(o, &m);
    check_hw_only(o, &m);
    check_workload(o, &m, o->algos, counts, plan_counts(o, &m, counts));
    char title[400], err[300];
    snprintf(title, sizeof title, "sim: %s (%s), %u hardware threads", m.name, m.title, m.threads);
    unsigned hw2[2] = { 0, 0 };
    double c2c = 0;
    if (m.threads > 1 && sim_place(&m, 2, o->pin, hw2, err, sizeof err) == 0)
        c2c = sim_machine_cost(&m, hw2[0], hw2[1], 0);
    printf("{\"model\":");
    json_str(stdout, title);
    printf(",\"cpus_usable\":%u,\"clock\":\"virtual\",\"c2c_oneway_ns\":{\"min\":%.1f,\"median\":%.1f}}\n", m.threads,
           c2c, c2c);
    plan_items(o->algos);
    sim_machine_free(&m);
    return 0;
}

/* The record's OS-model and workload fields (docs/sim.md): "oversubscribed", "os" (the scheduler's
 * counts) and "workload" (004 Table XI's rows: calls and mean ns per call; makespan; critical sections). */
static void record_os_workload(const struct sim_opts *so, const struct sim_result *res)
{
    const struct sim_os_stats *os = &res->os;
    printf(",\"oversubscribed\":%s", res->oversubscribed ? "true" : "false");
    printf(",\"os\":{\"sched\":\"%s\",\"switches\":%llu,\"preemptions\":%llu,\"csa_grants\":%llu,"
           "\"csa_expiries\":%llu,\"max_ready_wait_ns\":%.1f}", so->sched == SIM_SCHED_CSA ? "csa" : "rr",
           (unsigned long long)os->switches, (unsigned long long)os->preemptions, (unsigned long long)os->csa_grants,
           (unsigned long long)os->csa_expiries, os->max_ready_wait_ns);
    if (!so->workload)
        return;
    const struct sim_wl_result *w = &res->wl;
    printf(",\"workload\":{\"name\":\"%s\",\"makespan_ns\":%.1f,\"cs_ns\":%.1f,\"produced\":%llu,\"consumed\":%llu,"
           "\"calls\":{", so->workload, w->makespan_ns, w->cs_ns, (unsigned long long)w->produced,
           (unsigned long long)w->consumed);
    for (unsigned k = 0; k < SY_NOPS; k++)
        printf("%s\"%s\":{\"n\":%llu,\"mean_ns\":%.1f}", k ? "," : "", sim_sync_op_names[k],
               (unsigned long long)w->op[k].n, w->op[k].n ? w->op[k].sum_ns / (double)w->op[k].n : 0);
    printf("}}");
}

/* The record of a job: the schema's fields, the traffic and operations per episode, and 002's
 * prediction where 002 models the algorithm and --model asks. */
static void record(const struct ag_exp *o, const struct sim_opts *so, const struct sim_result *res, int rc,
                   const char *asked)
{
    char impl[256], settings[400], mdetail[400] = "", merr[300];
    snprintf(impl, sizeof impl, "%s:%s%s", so->hw ? "hw" : "andgate", res->describe[0] ? res->describe : so->algo,
             so->hw || !strcmp(asked, so->algo) ? "" : " (auto)");
    char extra[160] = "", wl[100] = ""; /* the scheduler when it had to run; the workload's parameters */
    if (so->workload)
        snprintf(wl, sizeof wl, ",workload=%s,items=%u,cs_ns=%g", so->workload, so->items, so->cs_ns);
    if (so->workload || res->oversubscribed)
        snprintf(extra, sizeof extra, ",sched=%s,timeslice_ns=%g%s", so->sched == SIM_SCHED_CSA ? "csa" : "rr",
                 so->timeslice_ns > 0 ? so->timeslice_ns : 1e6, wl);
    char atomics[32] = ""; /* what --atomics changed */
    if (strcmp(o->atomics, "machine"))
        snprintf(atomics, sizeof atomics, ",atomics=%s", o->atomics);
    /* the seed places the lines' homes and directory slices (coherence.c, directory.c), so it is part of
     * what a record measured (003 §5.3's allocations, Fig. 6: scripts/sim_experiment.sh 003-placement) */
    snprintf(settings, sizeof settings, "pin=%s,work_ns=%g,work_jitter_ns=%g,seed=%llu%s%s%s%s%s%s", o->pin,
             so->work_ns, so->work_jitter_ns, (unsigned long long)o->seed, o->alpha >= 0 ? ",alpha=what-if" : "",
             so->streaming ? ",stores=streaming" : "", atomics, so->shared_first ? ",layout=shared-first" : "",
             so->split_ns > 0 ? ",split" : "", extra);
    char desc[420] = ""; /* what an adaptive algorithm chose, as ag_barrier_describe says it natively */
    if (res->chosen[0])
        snprintf(desc, sizeof desc, "%s wait=%s chose=%s", res->describe, o->wait, res->chosen);
    struct ag_record rec = { .impl = impl, .kind = so->hw ? "hw" : "andgate", .wait = o->wait, .pinning = o->pin,
                             .method = o->method, .threads = so->n, .episodes = res->episodes, .median_ns = res->median_ns,
                             .min_ns = res->min_ns, .p99_ns = res->p99_ns, .mean_ns = res->mean_ns,
                             .cpu_ns_per_episode = res->cpu_ns_per_episode, .jitter_delay_ns = so->late_ns,
                             .late = o->late, .settings = settings, .describe = desc[0] ? desc : NULL,
                             .error = rc ? res->error : NULL };
    ag_record_begin(stdout, &rec);
    if (res->oversubscribed || so->workload)
        record_os_workload(so, res);
    double e = res->run_episodes ? res->run_episodes : 1; /* traffic and operations: every episode run */
    printf(",\"traffic_per_episode\":{\"reads_local\":%.1f,\"reads_remote\":%.1f,\"writes\":%.1f,"
           "\"invalidations\":%.1f,\"rmws\":%.1f,\"sc_fails\":%.1f},\"operations_per_episode\":%.1f",
           res->traffic.reads_local / e, res->traffic.reads_remote / e, res->traffic.writes / e,
           res->traffic.invalidations / e, res->traffic.rmws / e, res->traffic.sc_fails / e, res->operations / e);
    double mns = 0;
    if (o->model && !so->hw &&
        sim_model_algo(so->m, so->n, o->pin, 0, so->algo, &mns, mdetail, sizeof mdetail, merr, sizeof merr) == 1) {
        printf(",\"model_ns\":%.1f,\"model\":", mns);
        json_str(stdout, mdetail);
    }
    ag_record_end(stdout, &rec);
    printf("\n");
}

/* One job: --impl andgate --spec SPEC (auto resolved as the library would), or --impl hw-NAME. */
static int job(const struct ag_exp *o)
{
    struct sim_machine m;
    unsigned n;
    char err[400];
    load_machine(o, &m);
    check_pin_wait(o, &m);
    if (ag_parse_counts(o->threads ? o->threads : "", SIM_MAX_THREADS, &n, 1, err, sizeof err) != 1)
        ag_usage_error(PROG, "--threads: one participant count per job, got '%s'", o->threads ? o->threads : "");
    const struct sim_hw *hw = sim_hw_find(o->impl);
    int hw_workload = o->workload && hw; /* its FSM serves the barrier: --wait does not apply */
    if (n > m.threads)
        check_oversubscribed(o, &m, n, !hw_workload);
    check_workload(o, &m, o->impl, &n, 1);
    if (!strcmp(o->method, "all"))
        ag_usage_error(PROG, "--method: one method per job, got 'all'");
    if (!hw && strcmp(o->impl, "andgate"))
        ag_usage_error(PROG, "--impl %s: expected andgate (with --spec) or a hw-* device", o->impl);
    const char *asked = hw ? o->impl : o->spec ? o->spec : "auto";
    struct sim_opts so = { .m = &m, .n = n, .hw = hw, .pin = o->pin, .episodes = o->episodes, .seed = o->seed,
                           .random_schedule = !strcmp(o->schedule, "random"), .work_ns = o->work_ns,
                           .work_jitter_ns = o->work_jitter_ns, .late_ns = o->jitter_us * 1000,
                           .late_fixed = !strcmp(o->late, "fixed"), .streaming = !strcmp(o->stores, "streaming"),
                           .shared_first = !strcmp(o->layout, "shared-first"),
                           .split_ns = o->split_ns, .workload = o->workload, .cs_ns = o->cs_ns,
                           .sched = o->sched && !strcmp(o->sched, "csa") ? SIM_SCHED_CSA : SIM_SCHED_RR,
                           .timeslice_ns = o->timeslice_us > 0 ? o->timeslice_us * 1000 : 0,
                           .items = o->items ? o->items : o->workload && !strcmp(o->workload, "phases") ? 20 : 100 };
    if (sim_wait_policy(o->wait, &m, hw_workload && n > m.threads ? m.threads : n, &so, err, sizeof err))
        ag_usage_error(PROG, "%s", err);
    so.method = !strcmp(o->method, "jitter") ? SIM_JITTER : !strcmp(o->method, "epcc") ? SIM_EPCC : SIM_LATENCY;
    so.algo = hw || strcmp(asked, "auto") ? asked : auto_on(&m, n, o->pin, so.sleeps && so.spin_ns == 0);
    struct sim_result res;
    int rc = sim_run(&so, &res);
    if (rc == EINVAL || rc == ENOMEM) { /* a device this machine lacks, a count it cannot serve */
        fprintf(stderr, PROG ": %s, %u participants: %s\n", asked, n, res.error);
        sim_machine_free(&m);
        return 3;
    }
    record(o, &so, &res, rc, asked);
    sim_machine_free(&m);
    return rc ? 1 : 0;
}

/* --models: 002's models themselves, per participant count, on stderr */
static int print_models(const struct ag_exp *o)
{
    struct sim_machine m;
    unsigned counts[64];
    char err[300];
    load_machine(o, &m);
    unsigned nc = plan_counts(o, &m, counts);
    for (unsigned c = 0; c < nc; c++) {
        struct sim_model_row rows[32];
        int nr = sim_model_eval(&m, counts[c], o->pin, 0, rows, 32, err, sizeof err);
        if (nr < 0) {
            fprintf(stderr, PROG ": --model: %s\n", err);
            continue;
        }
        fprintf(stderr, "\n002's models on %s, %u participants (pin %s, contention c = 0):\n", m.name, counts[c], o->pin);
        for (int k = 0; k < nr; k++)
            fprintf(stderr, "  %-34s %10.1f ns  %s\n", rows[k].what, rows[k].ns, rows[k].detail);
    }
    sim_machine_free(&m);
    return 0;
}

int main(int argc, char **argv)
{
    struct ag_exp o = ag_exp_sim_defaults;
    o.sched = "rr";
    if (ag_exp_parse(PROG, AG_EXP_SIM_JOB, &o, argc, argv, 1)) {
        printf("andgate-sim: the simulator worker of `andgate sim` (see the top of sim/main.c)\n");
        ag_exp_usage(stdout, AG_EXP_SIM_JOB);
        return 0;
    }
    if (o.machines)
        return list_machines();
    if (o.plan)
        return plan(&o);
    if (o.models)
        return print_models(&o);
    if (!o.impl)
        ag_usage_error(PROG, "the simulator worker needs --plan, --models, --machines or a job (--impl)");
    return job(&o);
}
