/* test_sim.c — the simulator as an interleaving explorer: every algorithm (and parameter variants)
 * passes the barrier checks (no participant leaves an episode before all arrived, exactly one
 * AG_SERIAL, no deadlock) under many random schedules, for 1..9 participants and a few larger counts;
 * and a fixed schedule is deterministic (same numbers twice). Usage: test_sim [SCHEDULES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static const char *const variants[] = {
    "central", "counting", "ticket", "linear", "combining", "combining:arity=2,wake=global", "combining:arity=3",
    "mcs", "tournament", "tournament:wake=global", "stour", "stour:fanin=2,pad=packed,wake=global",
    "stour:fanin=3,wake=tree", "dtour", "dtour:fanin=2,wake=global", "dtour:fanin=3", "dissemination",
    "dissemination:ways=2", "hybrid", "hybrid:group=cache", "hybrid:group=2", NULL,
};

int main(int argc, char **argv)
{
    unsigned schedules = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    const struct sim_machine m = { "test", 4, 1, 40, 120, 10, 20 };
    static const unsigned counts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16 };
    int passed = 0, failed = 0;
    for (unsigned v = 0; variants[v]; v++)
        for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            unsigned n = counts[c], runs = n <= 9 ? schedules : schedules / 10 + 1, bad = 0;
            char err[300] = "";
            for (unsigned seed = 1; seed <= runs; seed++) {
                /* near the 2^32 wrap-around every other schedule */
                struct sim_opts o = { &m, variants[v], n, 4, seed, 1, seed % 2 ? 0 : 0xfffffffeull };
                struct sim_result r;
                if (sim_run(&o, &r) != 0 && !bad++)
                    snprintf(err, sizeof err, "seed %u: %s", seed, r.error);
            }
            /* determinism of the fixed schedule */
            struct sim_opts o = { &m, variants[v], n, 50, 7, 0, 0 };
            struct sim_result a, b;
            int det = sim_run(&o, &a) == 0 && sim_run(&o, &b) == 0 && a.median_ns == b.median_ns &&
                      a.reads_remote == b.reads_remote && a.writes == b.writes;
            if (bad || !det) {
                failed++;
                printf("FAIL %s n=%u: %u of %u random schedules failed (%s)%s\n", variants[v], n, bad, runs, err,
                       det ? "" : "; the fixed schedule is not deterministic");
            } else {
                passed++;
            }
        }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
