/* test_sim.c — the simulator as an interleaving explorer: every algorithm (and parameter variants)
 * passes the barrier checks (no participant leaves an episode before all arrived, exactly one
 * AG_SERIAL, no deadlock) under many random schedules, for 1..9 participants and a few larger counts;
 * and a fixed schedule is deterministic (same numbers twice). Usage: test_sim [SCHEDULES] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_state.h"
#include "spec.h"
#include "hw.h"

static const char *const variants[] = {
    "central", "counting", "ticket", "linear", "combining", "combining:arity=2,wake=global", "combining:arity=3",
    "mcs", "tournament", "tournament:wake=global", "tournament:pad=record", "stour", "stour:fanin=2,pad=packed,wake=global",
    "stour:fanin=3,wake=tree", "dtour", "dtour:fanin=2,wake=global", "dtour:fanin=3", "dissemination",
    "dissemination:ways=2", "dissemination:pad=record", "hybrid", "hybrid:group=cache", "hybrid:group=2",
    "tune", "tune:block=1,rounds=1", "tune:block=2,rounds=2", "gate", "gate:order=master", NULL,
};

/* the machines take turns: fixed layers with a unit matrix and link ports, a mesh with hashed homes,
 * TILE64's home tiles without sharer copies, home nodes with three-leg paths */
static const char *const machines[] = { "kunpeng920", "knl7210", "tile64", "phytium2000", "opteron6272x4" };
#define NM (sizeof machines / sizeof *machines)

static int passed, failed;

/* every algorithm of the library is explored: a new one must be listed in variants */
static void check_listed(void)
{
    for (unsigned i = 0; i < ag_algo_table.n; i++) {
        const char *name = ag_algo_table.get(i)->name;
        unsigned v = 0;
        while (variants[v] && strcmp(variants[v], name))
            v++;
        if (!variants[v]) {
            printf("FAIL algorithm %s is not in test_sim's variants\n", name);
            failed++;
        }
    }
}

/* Each random schedule also varies how participants wait and store (issue 12 items 2-3): mode 0 spins,
 * 1 sleeps (a hybrid wait that spins briefly, yields, then sleeps in a futex, with the test's OS costs
 * below: sleepers are woken only by a store to their own flag), 2 runs split phase (arrive, work,
 * depart), 3 writes whole lines with streaming stores. */
static void set_mode(struct sim_opts *o, unsigned mode)
{
    o->sleeps = mode == 1;
    o->spin_ns = mode == 1 ? 40 : 0;
    o->yield_ns = mode == 1 ? 30 : 0;
    o->split_ns = mode == 2 ? 25 : 0;
    o->streaming = mode == 3;
}

/* variant v at n participants on m: random schedules (near the 2^32 wrap-around every other one, and
 * in the four modes above in turn), then the fixed schedule twice in every mode (it must be
 * deterministic) */
static void explore(const char *variant, unsigned n, const struct sim_machine *m, unsigned runs)
{
    unsigned bad = 0;
    char err[500] = "";
    /* tune switches candidates at every episode of its block=1 variant and reads its decision from the
     * seventh episode on: its runs go past that */
    unsigned episodes = strncmp(variant, "tune", 4) ? 4 : 9;
    for (unsigned seed = 1; seed <= runs; seed++) {
        struct sim_opts o = { .m = m, .algo = variant, .n = n, .episodes = episodes, .seed = seed,
                              .random_schedule = 1, .epoch0 = seed % 2 ? 0 : 0xfffffffeull };
        set_mode(&o, seed / 2 % 4);
        struct sim_result r;
        if (sim_run(&o, &r) != 0 && !bad++)
            snprintf(err, sizeof err, "seed %u (mode %u): %s", seed, seed / 2 % 4, r.error);
    }
    int det = 1;
    for (unsigned mode = 0; mode < 4; mode++) {
        struct sim_opts o = { .m = m, .algo = variant, .n = n, .episodes = 50, .seed = 7 };
        set_mode(&o, mode);
        struct sim_result a, b;
        det &= sim_run(&o, &a) == 0 && sim_run(&o, &b) == 0 && a.median_ns == b.median_ns &&
               a.traffic.reads_remote == b.traffic.reads_remote && a.traffic.writes == b.traffic.writes &&
               a.operations == b.operations;
    }
    if (bad || !det) {
        failed++;
        printf("FAIL %s n=%u on %s: %u of %u random schedules failed (%s)%s\n", variant, n, m->name, bad, runs, err,
               det ? "" : "; the fixed schedule is not deterministic");
    } else {
        passed++;
    }
}

/* large counts with SMT siblings placed last (pin cores: participant t and t + 64 share a core), so
 * groups are not contiguous in participant order: the shape must rank by topology */
static void large_counts(const struct sim_machine *m)
{
    for (unsigned v = 0; variants[v]; v++) {
        struct sim_opts o = { .m = m, .algo = variants[v], .n = 128, .episodes = 20, .seed = 3 };
        struct sim_result r;
        if (sim_run(&o, &r) != 0) {
            failed++;
            printf("FAIL %s n=128 on %s: %s\n", variants[v], m->name, r.error);
        } else {
            passed++;
        }
    }
}

/* device d on machine hm under random schedules (arrivals then reach a device out of time order); a
 * machine without the device is skipped */
static void explore_device(const struct sim_hw *dev, const struct sim_machine *hm, unsigned schedules)
{
    unsigned bad = 0, runs = 0;
    char why[500] = "";
    for (unsigned n = 1; n <= 9; n++)
        for (unsigned seed = 1; seed <= schedules / 10 + 1; seed++) {
            struct sim_opts o = { .m = hm, .hw = dev, .n = n, .episodes = 4, .seed = seed, .random_schedule = 1 };
            struct sim_result r;
            int rc = sim_run(&o, &r);
            if (rc == EINVAL)
                return; /* a machine without this device */
            runs++;
            if (rc != 0 && !bad++)
                snprintf(why, sizeof why, "n=%u seed %u: %s", n, seed, r.error);
        }
    if (bad) {
        failed++;
        printf("FAIL %s on %s: %u of %u random schedules failed (%s)\n", dev->name, hm->name, bad, runs, why);
    } else {
        passed++;
    }
}

int main(int argc, char **argv)
{
    unsigned schedules = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    struct sim_machine ms[NM];
    char err[600];
    for (unsigned i = 0; i < NM; i++)
        if (sim_machine_load(machines[i], &ms[i], err, sizeof err))
            return printf("FAIL loading %s: %s\n", machines[i], err), 1;
    for (unsigned i = 0; i < NM; i++) { /* OS costs for the sleeping mode (the paper machines have none) */
        static const double os[SIM_OS_N] = { [SIM_OS_FUTEX_WAIT] = 300, [SIM_OS_FUTEX_WAKE] = 200, [SIM_OS_WAKEUP] = 2000,
                                             [SIM_OS_CONTEXT_SWITCH] = 3000, [SIM_OS_YIELD] = 500 };
        memcpy(ms[i].os_ns, os, sizeof os);
    }
    check_listed();
    static const unsigned counts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16 };
    for (unsigned v = 0; variants[v]; v++)
        for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++)
            explore(variants[v], counts[c], &ms[(v + c) % NM], counts[c] <= 9 ? schedules : schedules / 10 + 1);
    large_counts(&ms[1]);
    static const char *const hw_machines[] = { "harp-broadwell", "knl7210", "xeon8160x8", "opteron6272x4", "tile64",
                                               "noc64" };
    for (unsigned h = 0; h < sizeof hw_machines / sizeof *hw_machines; h++) {
        struct sim_machine hm;
        if (sim_machine_load(hw_machines[h], &hm, err, sizeof err))
            return printf("FAIL loading %s: %s\n", hw_machines[h], err), 1;
        for (unsigned d = 0; sim_hw_devices[d]; d++)
            explore_device(sim_hw_devices[d], &hm, schedules);
        sim_machine_free(&hm);
    }
    for (unsigned i = 0; i < NM; i++)
        sim_machine_free(&ms[i]);
    /* every directory and link request of all these runs started at or after the low-water time its
     * ring was given (sim_low_water is a bound, so no ring dropped a reservation a later one could find) */
    if (sim_slots_early()) {
        failed++;
        printf("FAIL %lu requests started before their ring's low-water time\n", sim_slots_early());
    } else {
        passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
