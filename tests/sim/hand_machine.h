/* hand_machine.h — the skeleton of a hand-made machine for the simulator's tests (test_model.c,
 * test_contention.c, test_delay.c): named levels with their counts, 64-byte lines, a 1 GHz clock, fixed layers only
 * (no interconnect coordinates) and no directory occupancy. The caller adds its layers and, in by_diff, which
 * layer two threads use by the level at which they first differ (machine.h). */
#ifndef AG_TEST_HAND_MACHINE_H
#define AG_TEST_HAND_MACHINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

static inline struct sim_machine hand_machine(unsigned nlevels, const char *const *names, const unsigned *counts)
{
    struct sim_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "hand");
    m.nlevels = nlevels;
    m.threads = 1;
    for (unsigned i = 0; i < nlevels; i++) {
        snprintf(m.level[i], sizeof m.level[i], "%s", names[i]);
        m.count[i] = counts[i];
        m.threads *= counts[i];
    }
    m.line_bytes = 64;
    m.ghz = 1;
    m.attach = -1;
    m.dir_level = -1;
    m.um_level = -1;
    if (sim_machine_number_units(&m)) {
        fprintf(stderr, "hand_machine: out of memory\n");
        exit(1);
    }
    return m;
}

/* Two cores of two SMT threads (threads 0-1 and 2-3 are siblings): a hit 2 ns, a transfer between
 * siblings 2 ns and between the cores 20 ns (α 0.5), atomics 4 ns more; `share` is coherence.smt_issue's. */
static inline struct sim_machine hand_smt_machine(double share)
{
    static const char *const lv[] = { "socket", "cluster", "core", "smt" };
    static const unsigned cnt[] = { 1, 1, 2, 2 };
    struct sim_machine m = hand_machine(4, lv, cnt);
    m.nlayers = 3;
    m.layer[0] = (struct sim_layer){ "eps", SIM_PATH_FIXED, 2.0, 0, 0, 0 };
    m.layer[1] = (struct sim_layer){ "smt", SIM_PATH_FIXED, 2.0, 0.5, 0, 0 };
    m.layer[2] = (struct sim_layer){ "core", SIM_PATH_FIXED, 20.0, 0.5, 0, 0 };
    m.by_diff[3] = 1; /* siblings: they first differ at the smt level */
    m.by_diff[2] = 2; /* two cores */
    m.atomic_extra_ns = 4;
    m.smt_share = share;
    return m;
}

#endif
