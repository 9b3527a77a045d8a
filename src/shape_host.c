/* shape_host.c — the library's shape on this host (shape.h): each participant's place from the CPU it
 * runs on (cfg.cpus, or the process's CPUs in turn) and the topology of src/topo.c. */
#define _GNU_SOURCE
#include "shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo.h"
#include "topo.h"

/* The CPUs of set in increasing order, at most max. */
static unsigned set_list(const cpu_set_t *set, int *cpus, unsigned max)
{
    unsigned k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < max; c++)
        if (CPU_ISSET(c, set))
            cpus[k++] = c;
    return k;
}

/* Sorted by package, NUMA node, cache group, core, CPU; a core (and a cache group) is one within its
 * package, a NUMA node one machine-wide. An unknown CPU is -1 everywhere. */
static void place_of(struct ag_place *p, unsigned tid, const struct ag_cpuinfo *c)
{
    *p = (struct ag_place){ .tid = tid,
                            .key = { c->package, c->numa, c->cache, c->core, c->cpu },
                            .group = { [AG_LVL_CORE] = { c->core, c->package },
                                       [AG_LVL_CACHE] = { c->cache, c->package },
                                       [AG_LVL_NUMA] = { c->numa, c->numa } } };
}

int ag_shape_build(struct ag_shape *sh, unsigned n, const int *cpus, const cpu_set_t *process, char *msg,
                   size_t msglen)
{
    const struct ag_topo *t = ag_topo_get();
    struct ag_place *pl = calloc(n ? n : 1, sizeof *pl);
    int *aff = cpus ? NULL : calloc(t->ncpus ? t->ncpus : 1, sizeof *aff);
    if (!pl || (!cpus && !aff)) {
        free(pl), free(aff);
        return ENOMEM;
    }
    unsigned max = t->ncpus ? t->ncpus : 1;
    unsigned naff = cpus ? 0 : process ? set_list(process, aff, max) : ag_process_cpus(aff, max);
    static const struct ag_cpuinfo unknown = { -1, -1, -1, -1, -1 };
    for (unsigned i = 0; i < n; i++) {
        int cpu = cpus ? cpus[i] : (naff ? aff[i % naff] : -1);
        const struct ag_cpuinfo *ci = cpu >= 0 ? ag_topo_cpu(t, cpu) : NULL;
        if (cpus && !ci) {
            if (msg && msglen)
                snprintf(msg, msglen, "cpus[%u] = %d is not an online CPU (this machine has %u)", i, cpu,
                         t->ncpus);
            free(pl), free(aff);
            return EINVAL;
        }
        place_of(&pl[i], i, ci ? ci : &unknown);
    }
    int rc = ag_shape_from_places(sh, n, pl);
    free(pl);
    free(aff);
    return rc;
}
