/* test_workload.c — issue 14 items 2-3 in the engine: the OS scheduler beyond the hardware threads
 * (sim/os_sched.c) and the workloads with software and hw-subutai primitives (sim/workload.c).
 *
 *   sched    invariants from the trace of every stretch a participant ran: each participant runs; no two
 *            at once on one hardware thread; a stretch begun with others waiting ends within a time slice
 *            (plus one operation); RR: no ready participant waits longer than the others' slices; CSA:
 *            no participant with priority is passed over, and nobody runs beyond CSALimit (004 Eq. 2);
 *            CSA's critical sections no longer than RR's when slices end inside them (004 Fig. 11)
 *   lead     hybrid's lead_ns (sim_wait_lead): group leaders that spin on their hardware thread through
 *            the exchange with the other leaders, instead of yielding it, notice the exchange's stores at
 *            once: a shorter episode than without, with 2 and 3 participants per hardware thread; random
 *            schedules with lead spins that catch the exchange or run out (1 ns) complete
 *   random   mutual exclusion, condition semantics and conservation under the engine's random schedule,
 *            software and hw-subutai, with and without oversubscription; a broken mutex and a condition
 *            that loses wake-ups must be caught; barrier episodes beyond the hardware threads
 *   counts   prodcons's calls add up (locks = unlocks, a broadcast per round, a barrier per participant
 *            and round, every item consumed once)
 * No timing thresholds: the bounds are the scheduler's own rules, in virtual time. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine.h"
#include "engine_state.h"
#include "hw.h"
#include "machine.h"

#define OP_NS 3000.0 /* more than one flag operation or system call costs here: a slice's overshoot */

static void with_os(struct sim_machine *m)
{
    static const double os[SIM_OS_N] = { [SIM_OS_FUTEX_WAIT] = 300, [SIM_OS_FUTEX_WAKE] = 200, [SIM_OS_WAKEUP] = 2000,
                                         [SIM_OS_CONTEXT_SWITCH] = 1500, [SIM_OS_YIELD] = 500 };
    memcpy(m->os_ns, os, sizeof os);
}

static int by_cpu_start(const void *a, const void *b)
{
    const struct sim_os_span *x = a, *y = b;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* The trace's invariants; per_cpu: participants per hardware thread at most. */
static void check_trace(const char *what, struct sim_opts *o, const struct sim_result *r, struct sim_os_trace *tr,
                        unsigned per_cpu)
{
    CHECK(r->ok, "%s: %s", what, r->error);
    CHECK(tr->n <= tr->cap, "%s: %u spans, trace holds %u", what, tr->n, tr->cap);
    unsigned *ran = calloc(o->n, sizeof *ran), unran = 0, overlap = 0, long_q = 0, passed_over = 0, beyond = 0;
    double ts = o->timeslice_ns, limit = (per_cpu - 1) * 2 * ts;
    qsort(tr->span, tr->n, sizeof *tr->span, by_cpu_start);
    for (unsigned i = 0; i < tr->n; i++) {
        const struct sim_os_span *sp = &tr->span[i];
        ran[sp->p]++;
        if (i && tr->span[i - 1].cpu == sp->cpu && tr->span[i - 1].end > sp->start)
            overlap++;
        /* RR: a stretch begun with others waiting ends at its slice; CSA: a participant that holds or gains
         * priority may go on up to CSALimit, never more */
        if (sp->queued && o->sched == SIM_SCHED_RR && sp->end - sp->start > ts + OP_NS)
            long_q++;
        if (sp->queued && sp->end - sp->start > limit + ts + OP_NS)
            beyond++;
        passed_over += sp->passed_over;
    }
    for (unsigned p = 0; p < o->n; p++)
        unran += !ran[p];
    CHECK(!unran, "%s: %u participants never ran", what, unran);
    CHECK(!overlap, "%s: %u times two participants ran at once on one hardware thread", what, overlap);
    CHECK(!long_q, "%s: %u stretches with others waiting outlasted the time slice", what, long_q);
    CHECK(!beyond, "%s: %u stretches beyond CSALimit and the slice", what, beyond);
    if (o->sched == SIM_SCHED_CSA)
        CHECK(!passed_over, "%s: a participant with CSA priority was passed over %u times", what, passed_over);
    else /* RR: a ready participant waits at most for the others' slices (each ends within one operation) */
        CHECK(r->os.max_ready_wait_ns <= (per_cpu - 1) * (ts + OP_NS + 1500), "%s: waited %.0f ns for the CPU", what,
              r->os.max_ready_wait_ns);
    free(ran);
}

static void run_traced(const char *what, struct sim_opts *o, unsigned per_cpu)
{
    struct sim_os_trace tr = { .cap = 1u << 20 };
    tr.span = malloc(tr.cap * sizeof *tr.span);
    o->trace = &tr;
    struct sim_result r;
    sim_run(o, &r);
    check_trace(what, o, &r, &tr, per_cpu);
    if (o->workload)
        CHECK(r.wl.checksum_ok || !strcmp(o->workload, "phases"), "%s: items lost", what);
    CHECK(r.oversubscribed, "%s: not oversubscribed", what);
    CHECK(r.os.preemptions > 0, "%s: no time slice ever ended with others waiting", what);
    if (o->sched == SIM_SCHED_CSA && o->workload)
        CHECK(r.os.csa_grants > 0, "%s: nobody gained CSA priority", what);
    free(tr.span);
    o->trace = NULL;
}

static void sched(const struct sim_machine *m)
{
    unsigned T = m->threads;
    /* barrier episodes, 3 participants per hardware thread, compute over several slices: sleeping and
     * yielding waits */
    for (int y = 0; y < 2; y++) {
        struct sim_opts o = { .m = m, .algo = "dissemination", .n = 3 * T, .episodes = 4, .seed = 1, .sleeps = 1,
                              .yield_ns = y ? 1e300 : 0, .work_ns = 35000, .work_jitter_ns = 20000, .timeslice_ns = 10000 };
        run_traced(y ? "barrier, yield" : "barrier, block", &o, 3);
    }
    /* the phase loop, RR and CSA, compute spanning slices and critical sections long enough to be cut */
    for (int csa = 0; csa < 2; csa++) {
        struct sim_opts o = { .m = m, .algo = "central", .n = 2 * T + T / 2, .seed = 3, .sleeps = 1, .workload = "phases",
                              .items = 6, .work_ns = 30000, .work_jitter_ns = 30000, .cs_ns = 4000, .timeslice_ns = 10000,
                              .sched = csa ? SIM_SCHED_CSA : SIM_SCHED_RR };
        run_traced(csa ? "phases, csa" : "phases, rr", &o, 3);
    }
}

/* 004 Fig. 11's effect as a property of the model: with three participants per hardware thread and
 * slices that end inside critical sections under RR, CSA's critical sections are never longer on
 * average, and its lock holders are not preempted by participants outside one. */
static void csa_effect(const struct sim_machine *m)
{
    struct sim_result r[2];
    for (int csa = 0; csa < 2; csa++) {
        struct sim_opts o = { .m = m, .algo = "central", .n = 3 * m->threads, .seed = 5, .sleeps = 1,
                              .workload = "phases", .items = 6, .work_ns = 1e6, .work_jitter_ns = 1e6, .cs_ns = 3000,
                              .sched = csa ? SIM_SCHED_CSA : SIM_SCHED_RR };
        sim_run(&o, &r[csa]);
        CHECK(r[csa].ok, "phases x3, %s: %s", csa ? "csa" : "rr", r[csa].error);
    }
    double sections = 2.0 * 3 * m->threads * 6, rr = r[0].wl.cs_ns / sections, csa = r[1].wl.cs_ns / sections;
    CHECK(rr > 3000 && csa <= rr, "critical sections %.0f ns under RR, %.0f under CSA", rr, csa);
    CHECK(r[1].os.csa_grants == (uint64_t)sections, "%llu CSA grants for %.0f sections",
          (unsigned long long)r[1].os.csa_grants, sections);
}

static double lead_median(const struct sim_machine *m, unsigned n, double lead_ns, int random, uint64_t seed)
{
    struct sim_opts o = { .m = m, .algo = "hybrid:group=core", .n = n, .episodes = random ? 5 : 50, .seed = seed,
                          .sleeps = 1, .yield_ns = 5000, .lead_ns = lead_ns, .random_schedule = random };
    struct sim_result r;
    sim_run(&o, &r);
    CHECK(r.ok, "hybrid, %u participants, lead_ns %g%s: %s", n, lead_ns, random ? ", random schedule" : "", r.error);
    return r.median_ns;
}

static void lead(const struct sim_machine *m)
{
    unsigned T = m->threads;
    for (unsigned n = 2 * T; n <= 3 * T; n += T) { /* groups of 2, then 3, on each hardware thread */
        double none = lead_median(m, n, 0, 0, 1), spin = lead_median(m, n, 20000, 0, 1);
        CHECK(spin < none, "%u participants: %.1f ns with a 20 us lead spin, %.1f ns without", n, spin, none);
    }
    for (uint64_t seed = 1; seed <= 20; seed++)
        lead_median(m, 2 * T, 20000, 1, seed), lead_median(m, 2 * T, 1, 1, seed);
}

/* One workload run; 1 if its checks held. */
static int one(const struct sim_machine *m, const struct sim_hw *hw, const char *wl, unsigned n, uint64_t seed,
               int random, int broken, struct sim_result *r)
{
    struct sim_opts o = { .m = m, .algo = "central", .hw = hw, .n = n, .seed = seed, .random_schedule = random,
                          .sleeps = 1, .workload = wl, .items = 12, .work_ns = 3000, .work_jitter_ns = 3000,
                          .cs_ns = 500, .timeslice_ns = 4000, .sched = seed & 1 ? SIM_SCHED_CSA : SIM_SCHED_RR,
                          .broken_sync = broken };
    return sim_run(&o, r) == 0 && r->ok;
}

static void random_schedules(const struct sim_machine *k, const struct sim_machine *noc, unsigned runs)
{
    static const char *const wls[] = { "prodcons", "phases" };
    const struct sim_hw *su = sim_hw_find("hw-subutai");
    const struct { const struct sim_machine *m; const struct sim_hw *hw; unsigned n; } cases[] = {
        { k, NULL, 6 }, { k, NULL, 150 }, { noc, su, 6 }, { noc, su, 100 }, { noc, NULL, 130 },
    };
    for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++)
        for (unsigned w = 0; w < 2; w++) {
            unsigned bad = 0;
            struct sim_result r;
            char why[500] = "";
            unsigned n = cases[c].n > 40 ? runs / 20 + 1 : runs;
            for (uint64_t seed = 0; seed < n; seed++)
                if (!one(cases[c].m, cases[c].hw, wls[w], cases[c].n, seed, 1, 0, &r) && !bad++)
                    snprintf(why, sizeof why, "seed %llu: %s", (unsigned long long)seed, r.error);
            CHECK(!bad, "%s with %s, %u participants on %s: %u of %u random schedules failed (%s)", wls[w],
                  cases[c].hw ? "hw-subutai" : "futex", cases[c].n, cases[c].m->name, bad, n, why);
        }
    /* the checks can fail: a mutex that lets every locker in, a condition that loses its wake-ups */
    unsigned caught = 0, lost = 0;
    struct sim_result r;
    for (uint64_t seed = 0; seed < 20; seed++) {
        caught += !one(k, NULL, "phases", 6, seed, 1, 1, &r) && strstr(r.error, "mutex");
        lost += !one(k, NULL, "prodcons", 6, seed, 1, 2, &r) && strstr(r.error, "deadlock");
    }
    CHECK(caught > 0, "a broken mutex went unnoticed in 20 random schedules");
    CHECK(lost > 0, "a condition that wakes nobody went unnoticed in 20 random schedules");
    /* barrier episodes with 2-3 participants per hardware thread, sleeping and yielding, random schedules */
    static const char *const algos[] = { "central", "dissemination", "stour", "tournament" };
    for (unsigned a = 0; a < sizeof algos / sizeof *algos; a++) {
        unsigned bad = 0;
        for (uint64_t seed = 0; seed < runs / 10 + 1; seed++) {
            struct sim_opts o = { .m = k, .algo = algos[a], .n = 150, .episodes = 3, .seed = seed, .random_schedule = 1,
                                  .sleeps = 1, .yield_ns = seed & 1 ? 1e300 : 0, .work_jitter_ns = 5000,
                                  .timeslice_ns = 3000, .sched = SIM_SCHED_RR };
            bad += sim_run(&o, &r) != 0 || !r.ok || !r.oversubscribed;
        }
        CHECK(!bad, "%s, 150 participants on 64 hardware threads: %u random schedules failed (%s)", algos[a], bad, r.error);
    }
}

static void counts(const struct sim_machine *k, const struct sim_machine *noc)
{
    const struct sim_hw *su = sim_hw_find("hw-subutai");
    for (int h = 0; h < 2; h++) {
        struct sim_result r;
        const char *who = h ? "hw-subutai" : "futex";
        CHECK(one(h ? noc : k, h ? su : NULL, "prodcons", 6, 2, 0, 0, &r), "%s prodcons: %s", who, r.error);
        const struct sim_op_stat *op = r.wl.op;
        uint64_t rounds = (12 + 4) / 5, items = rounds * 5;
        CHECK(r.wl.produced == items && r.wl.consumed == items && r.wl.checksum_ok, "%s: %llu produced, %llu consumed",
              who, (unsigned long long)r.wl.produced, (unsigned long long)r.wl.consumed);
        CHECK(op[SY_LOCK_EMPTY].n + op[SY_LOCK_QUEUED].n == op[SY_UNLOCK].n, "%s: locks and unlocks differ", who);
        CHECK(op[SY_BROADCAST].n == rounds && op[SY_BARRIER].n == rounds * 6 && r.episodes == rounds,
              "%s: %llu broadcasts, %llu barrier waits for %llu rounds", who, (unsigned long long)op[SY_BROADCAST].n,
              (unsigned long long)op[SY_BARRIER].n, (unsigned long long)rounds);
        CHECK(r.wl.makespan_ns > 0 && r.wl.cs_ns > 0 && !r.oversubscribed, "%s: makespan %.0f, cs %.0f", who,
              r.wl.makespan_ns, r.wl.cs_ns);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    unsigned runs = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
    struct sim_machine k, noc;
    char err[600];
    if (sim_machine_load("kunpeng920", &k, err, sizeof err) || sim_machine_load("noc64", &noc, err, sizeof err))
        return printf("FAIL loading: %s\n", err), 1;
    with_os(&k);
    with_os(&noc);
    if (!strcmp(what, "sched") || !strcmp(what, "all"))
        sched(&k), csa_effect(&k), lead(&k);
    if (!strcmp(what, "random") || !strcmp(what, "all"))
        random_schedules(&k, &noc, runs);
    if (!strcmp(what, "counts") || !strcmp(what, "all"))
        counts(&k, &noc);
    sim_machine_free(&k);
    sim_machine_free(&noc);
    /* the OS model's runs too: every slot request at or after its ring's low-water time (slots.c) */
    CHECK(sim_slots_early() == 0, "%lu requests started before their ring's low-water time\n", sim_slots_early());
    return check_done();
}
