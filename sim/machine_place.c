/* machine_place.c — placement: which hardware thread each participant runs on (cores, compact,
 * scatter), and the shape the library's algorithms see of it. */
#define _GNU_SOURCE
#include "machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"

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

int sim_shape(const struct sim_machine *m, unsigned n, const unsigned *hw, struct ag_shape *sh)
{
    const unsigned lvl[3] = { m->nlevels - 2, m->cache_level, 0 }; /* core, the cache level, the socket */
    struct ag_place *pl = calloc(n ? n : 1, sizeof *pl);
    if (!pl)
        return ENOMEM;
    for (unsigned t = 0; t < n; t++) {
        pl[t] = (struct ag_place){ .tid = t, .key = { (int)hw[t] } };
        for (int g = 0; g < 3; g++) {
            int u = (int)sim_machine_unit(m, hw[t], lvl[g]);
            pl[t].group[g][0] = pl[t].group[g][1] = u;
        }
    }
    int rc = ag_shape_from_places(sh, n, pl);
    free(pl);
    return rc;
}
