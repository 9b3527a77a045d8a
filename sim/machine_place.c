/* machine_place.c — placement: which hardware thread each participant runs on (cores, compact,
 * scatter). */
#define _GNU_SOURCE
#include "machine.h"

#include <stdio.h>
#include <string.h>

int sim_place(const struct sim_machine *m, unsigned n, const char *policy, unsigned *hw, char *err, size_t errlen)
{
    if (n > m->threads) {
        snprintf(err, errlen, "%u participants on %s, which has %u hardware threads", n, m->name, m->threads);
        return -1;
    }
    unsigned smt = m->count[m->nlevels - 1], cores = m->threads / smt, sockets = m->count[0];
    if (!strcmp(policy, "compact")) {
        for (unsigned t = 0; t < n; t++)
            hw[t] = t;
    } else if (!strcmp(policy, "cores")) {
        for (unsigned t = 0; t < n; t++)
            hw[t] = (t % cores) * smt + t / cores;
    } else if (!strcmp(policy, "scatter")) {
        unsigned per = cores / sockets; /* cores per socket */
        for (unsigned t = 0; t < n; t++) {
            unsigned core = t % cores, s = core % sockets, c = core / sockets;
            hw[t] = (s * per + c) * smt + t / cores;
        }
    } else {
        snprintf(err, errlen, "placement '%s': expected cores, compact or scatter", policy);
        return -1;
    }
    return 0;
}

