/* pin.c — where each benchmark thread runs: cores, compact, scatter or none over the usable CPUs in
 * topology order (bench_pin_map, engine.h); the simulator's placements have the same names. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "andgate.h"
#include "engine.h"
#include "topo.h"

const char *const bench_pin_names[] = { "cores", "compact", "scatter", "none" };

struct cpu_key {
    int cpu, k[5];
};

static int cmp_key(const void *a, const void *b)
{
    const struct cpu_key *x = a, *y = b;
    for (int i = 0; i < 5; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] < y->k[i] ? -1 : 1;
    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

void bench_pin_map(int pin, unsigned n, int *cpu)
{
    int aff[1024];
    unsigned na = pin == PIN_NONE ? 0 : ag_affinity_cpus(aff, 1024), u = ag_usable_cpus();
    if (u < na)
        na = u; /* a cgroup quota: use as many CPUs as it grants */
    struct cpu_key *keys = na ? calloc(na, sizeof *keys) : NULL;
    if (!keys) {
        for (unsigned i = 0; i < n; i++)
            cpu[i] = -1;
        return;
    }
    /* compact: topology order (package, NUMA node, cache group, core) */
    const struct ag_topo *t = ag_topo_get();
    for (unsigned i = 0; i < na; i++) {
        const struct ag_cpuinfo *c = ag_topo_cpu(t, aff[i]);
        keys[i].cpu = aff[i];
        keys[i].k[0] = c ? c->package : 0;
        keys[i].k[1] = c ? c->numa : 0;
        keys[i].k[2] = c ? c->cache : 0;
        keys[i].k[3] = c ? c->core : aff[i];
    }
    qsort(keys, na, sizeof *keys, cmp_key);
    if (pin == PIN_SCATTER) {
        /* scatter: the CPU's index within its core (SMT sibling), the core's index within its cache
         * group, the cache group's index within its package, then the package — so consecutive tids
         * land on different packages, then cache groups, then cores, and share a core last */
        int smt = 0, core_r = 0, cache_r = 0, prev[5] = { 0 };
        for (unsigned i = 0; i < na; i++) {
            int c[5];
            memcpy(c, keys[i].k, sizeof c);
            const int *p = i ? prev : NULL;
            if (!p || p[0] != c[0])
                cache_r = core_r = smt = 0;
            else if (p[2] != c[2])
                cache_r++, core_r = smt = 0;
            else if (p[3] != c[3])
                core_r++, smt = 0;
            else
                smt++;
            memcpy(prev, c, sizeof prev);
            keys[i].k[4] = c[0];
            keys[i].k[0] = smt, keys[i].k[1] = core_r, keys[i].k[2] = cache_r, keys[i].k[3] = 0;
        }
        qsort(keys, na, sizeof *keys, cmp_key);
    } else if (pin == PIN_CORES) {
        /* cores: every core's first hardware thread in topology order, then every core's second, ...
         * (the SMT sibling index first, the compact order after it; the simulator's --pin cores) */
        int smt = 0, pkg = -1, core = -1;
        for (unsigned i = 0; i < na; i++) {
            smt = keys[i].k[0] == pkg && keys[i].k[3] == core ? smt + 1 : 0;
            pkg = keys[i].k[0], core = keys[i].k[3];
            keys[i].k[0] = smt, keys[i].k[1] = (int)i, keys[i].k[2] = keys[i].k[3] = keys[i].k[4] = 0;
        }
        qsort(keys, na, sizeof *keys, cmp_key);
    }
    for (unsigned i = 0; i < n; i++)
        cpu[i] = keys[i % na].cpu;
    free(keys);
}

