/* shape.c — participant placement, topology order and groups (see shape.h). */
#define _GNU_SOURCE
#include "shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo.h"
#include "topo.h"

struct place {
    unsigned tid;
    struct ag_cpuinfo c;
};

static int cmp_place(const void *a, const void *b)
{
    const struct place *x = a, *y = b;
    const int kx[] = { x->c.package, x->c.numa, x->c.cache, x->c.core, x->c.cpu, (int)x->tid };
    const int ky[] = { y->c.package, y->c.numa, y->c.cache, y->c.core, y->c.cpu, (int)y->tid };
    for (unsigned i = 0; i < sizeof kx / sizeof kx[0]; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* Dense ids in rank order: participants with equal key (and equal coarser keys) share a group. */
static unsigned densify(const struct place *pl, unsigned n, int level, unsigned *out)
{
    unsigned g = 0;
    for (unsigned r = 0; r < n; r++) {
        const struct ag_cpuinfo *a = &pl[r].c, *b = r ? &pl[r - 1].c : NULL;
        int same = 0;
        if (b) {
            switch (level) {
            case AG_LVL_CORE: same = a->core == b->core && a->package == b->package; break;
            case AG_LVL_CACHE: same = a->cache == b->cache && a->package == b->package; break;
            default: same = a->numa == b->numa; break;
            }
        }
        if (r && !same)
            g++;
        out[pl[r].tid] = g;
    }
    return n ? g + 1 : 0;
}

/* The CPUs of set in increasing order, at most max. */
static unsigned set_list(const cpu_set_t *set, int *cpus, unsigned max)
{
    unsigned k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < max; c++)
        if (CPU_ISSET(c, set))
            cpus[k++] = c;
    return k;
}

int ag_shape_build(struct ag_shape *sh, unsigned n, const int *cpus, const cpu_set_t *process, char *msg,
                   size_t msglen)
{
    const struct ag_topo *t = ag_topo_get();
    struct place *pl = calloc(n, sizeof *pl);
    unsigned *mem = calloc((size_t)n * 5, sizeof *mem);
    int *aff = cpus ? NULL : calloc(t->ncpus ? t->ncpus : 1, sizeof *aff);
    if (!pl || !mem || (!cpus && !aff)) {
        free(pl), free(mem), free(aff);
        return ENOMEM;
    }
    unsigned max = t->ncpus ? t->ncpus : 1;
    unsigned naff = cpus ? 0 : process ? set_list(process, aff, max) : ag_process_cpus(aff, max);
    for (unsigned i = 0; i < n; i++) {
        int cpu = cpus ? cpus[i] : (naff ? aff[i % naff] : -1);
        const struct ag_cpuinfo *ci = cpu >= 0 ? ag_topo_cpu(t, cpu) : NULL;
        if (cpus && !ci) {
            if (msg && msglen)
                snprintf(msg, msglen, "cpus[%u] = %d is not an online CPU (this machine has %u)", i, cpu,
                         t->ncpus);
            free(pl), free(mem), free(aff);
            return EINVAL;
        }
        pl[i].tid = i;
        if (ci)
            pl[i].c = *ci;
        else
            pl[i].c = (struct ag_cpuinfo){ -1, -1, -1, -1, -1 };
    }
    qsort(pl, n, sizeof *pl, cmp_place);
    sh->n = n;
    sh->mem = mem;
    sh->rank = mem;
    sh->order = mem + n;
    for (unsigned r = 0; r < n; r++) {
        sh->order[r] = pl[r].tid;
        sh->rank[pl[r].tid] = r;
    }
    for (int lvl = 0; lvl < 3; lvl++) {
        sh->group[lvl] = mem + (size_t)(2 + lvl) * n;
        sh->ngroups[lvl] = densify(pl, n, lvl, sh->group[lvl]);
    }
    free(pl);
    free(aff);
    return 0;
}

void ag_shape_free(struct ag_shape *sh)
{
    free(sh->mem);
    sh->mem = NULL;
}
