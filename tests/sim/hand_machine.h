/* hand_machine.h — the skeleton of a hand-made machine for the simulator's tests (test_model.c,
 * test_contention.c): named levels with their counts, 64-byte lines, a 1 GHz clock, fixed layers only
 * (no interconnect coordinates) and no directory occupancy. The caller adds its layers and pair table. */
#ifndef AG_TEST_HAND_MACHINE_H
#define AG_TEST_HAND_MACHINE_H

#include <stdio.h>
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
    return m;
}

#endif
