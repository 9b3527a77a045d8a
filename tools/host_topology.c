/* host_topology.c — the levels and latency layers of the usable CPUs (see host_model.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "andgate.h"
#include "host_model.h"

/* ---------------------------------------------------------------- topology model */

/* dense unit index of every CPU at a level: units numbered by their smallest CPU */
static void dense(const int *key, unsigned n, int *idx, unsigned *nunits)
{
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++) {
        idx[i] = -1;
        for (unsigned j = 0; j < i; j++)
            if (key[j] == key[i]) {
                idx[i] = idx[j];
                break;
            }
        if (idx[i] < 0)
            idx[i] = (int)u++;
    }
    *nunits = u;
}

static unsigned ngroups(const int *key, unsigned n)
{
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = 0;
        while (j < i && key[j] != key[i])
            j++;
        u += j == i;
    }
    return u;
}

/* every unit of `fine` lies inside one unit of `coarse` */
static int refines(const int *fine, const int *coarse, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++)
            if (fine[i] == fine[j] && coarse[i] != coarse[j])
                return 0;
    return 1;
}

static void add_level(struct host *h, const char *name, const char *desc, int *key)
{
    h->lv[h->nlv++] = (struct level){ name, desc, key, 0 };
}

/* The levels: socket, the NUMA and cache levels that split their parent and group several cores, core,
 * SMT thread; each with its key per usable CPU. */
static void choose_levels(struct host *h, const struct ag_topo *t)
{
    unsigned n = h->n;
    int *pkg = host_calloc(n, sizeof(int)), *numa = host_calloc(n, sizeof(int)), *cache = host_calloc(n, sizeof(int));
    int *core = host_calloc(n, sizeof(int)), *cpu = host_calloc(n, sizeof(int));
    int numa_known = 1, cache_known = t->cache_level > 0;
    for (unsigned i = 0; i < n; i++) {
        const struct ag_cpuinfo *c = ag_topo_cpu(t, h->cpu[i]);
        pkg[i] = c->package < 0 ? 0 : c->package;
        numa[i] = c->numa;
        cache[i] = c->cache;
        /* sysfs core ids are per package */
        core[i] = c->core < 0 ? -1 - c->cpu : pkg[i] * 65536 + c->core;
        cpu[i] = c->cpu;
        numa_known &= c->numa >= 0;
        cache_known &= c->cache >= 0;
    }
    add_level(h, "socket", "packages among the usable CPUs", pkg);
    /* intermediate levels, coarsest first, kept where they split their parent and group several cores */
    struct cand {
        const char *name, *desc;
        int *key;
        int known;
    } cand[2] = { { "numa", "NUMA nodes per parent unit", numa, numa_known },
                  { t->cache_level == 2 ? "l2" : "l3",
                    t->cache_level == 2 ? "groups of cores sharing an L2, per parent unit"
                                        : "groups of cores sharing an L3 (last-level cache), per parent unit",
                    cache, cache_known } };
    if (cand[1].known && (!cand[0].known || ngroups(cache, n) < ngroups(numa, n))) {
        struct cand tmp = cand[0];
        cand[0] = cand[1], cand[1] = tmp;
    }
    unsigned ncores = ngroups(core, n);
    for (int k = 0; k < 2; k++) {
        const int *last = h->lv[h->nlv - 1].key;
        if (cand[k].known && refines(cand[k].key, last, n) && refines(core, cand[k].key, n) &&
            ngroups(cand[k].key, n) > ngroups(last, n) && ngroups(cand[k].key, n) < ncores)
            add_level(h, cand[k].name, cand[k].desc, cand[k].key);
    }
    if (!refines(core, h->lv[h->nlv - 1].key, n))
        host_fail("a core spans two %ss in the %s topology; cannot describe it", h->lv[h->nlv - 1].name, t->source);
    add_level(h, "core", "cores per parent unit", core);
    add_level(h, "smt", "hardware threads per core (SMT)", cpu);
    int numa_used = 0, cache_used = 0; /* the candidates not kept */
    for (unsigned k = 0; k < h->nlv; k++)
        numa_used |= h->lv[k].key == numa, cache_used |= h->lv[k].key == cache;
    if (!numa_used)
        free(numa);
    if (!cache_used)
        free(cache);
}

/* Per level, every CPU's unit as a dense index (idx) and every unit's rank among its siblings (rank); the
 * counts: every unit of a level holds the same number of units of the next, or the host is refused. */
static void count_units(struct host *h, int **idx, int **rank)
{
    unsigned n = h->n;
    unsigned nunits[MAXLV] = { 0 };
    for (unsigned k = 0; k < h->nlv; k++) {
        idx[k] = host_calloc(n, sizeof(int));
        dense(h->lv[k].key, n, idx[k], &nunits[k]);
    }
    h->lv[0].count = nunits[0];
    for (unsigned k = 1; k < h->nlv; k++) {
        unsigned np = nunits[k - 1], nu = nunits[k];
        unsigned *children = host_calloc(np, sizeof(unsigned));
        int *parent = host_calloc(nu, sizeof(int));
        rank[k] = host_calloc(nu, sizeof(int));
        for (unsigned i = 0; i < n; i++)
            parent[idx[k][i]] = idx[k - 1][i];
        for (unsigned u = 0; u < nu; u++) /* units in order of their smallest CPU: rank among siblings */
            rank[k][u] = (int)children[parent[u]]++;
        unsigned lo = children[0], hi = children[0];
        for (unsigned p = 1; p < np; p++) {
            lo = children[p] < lo ? children[p] : lo;
            hi = children[p] > hi ? children[p] : hi;
        }
        free(children), free(parent);
        if (lo != hi)
            host_fail("the %u usable CPUs do not form a regular hierarchy: a %s holds %u %s units here and %u there "
                 "(andgate-machine/1 has one count per level). Measure a regular subset instead, e.g. one "
                 "kind of core with `taskset -c LIST andgate info --measure`.",
                 n, h->lv[k - 1].name, hi, h->lv[k].name, lo);
        h->lv[k].count = lo;
    }
    rank[0] = host_calloc(nunits[0], sizeof(int));
    for (unsigned u = 0; u < nunits[0]; u++)
        rank[0][u] = (int)u;
}

/* The model thread of each CPU: the mixed radix of its units' ranks, outermost first (README "Thread
 * numbering"). */
static void number_threads(struct host *h, int *const *idx, int *const *rank)
{
    unsigned n = h->n;
    h->thread_cpu = host_calloc(n, sizeof(int));
    for (unsigned t2 = 0; t2 < n; t2++)
        h->thread_cpu[t2] = -1;
    for (unsigned i = 0; i < n; i++) {
        unsigned id = 0;
        for (unsigned k = 0; k < h->nlv; k++)
            id = id * h->lv[k].count + (unsigned)rank[k][idx[k][i]];
        if (id >= n || h->thread_cpu[id] >= 0)
            host_fail("internal error: thread numbering of CPU %d", h->cpu[i]);
        h->thread_cpu[id] = h->cpu[i];
    }
}

/* The levels, their counts (regular or refused) and the model thread numbering. */
void host_build_topology(struct host *h, const struct ag_topo *t)
{
    int *idx[MAXLV], *rank[MAXLV];
    choose_levels(h, t);
    count_units(h, idx, rank);
    number_threads(h, idx, rank);
    for (unsigned k = 0; k < h->nlv; k++)
        free(idx[k]), free(rank[k]);
}

static const char *noun(const char *level)
{
    return !strcmp(level, "numa") ? "NUMA node" : !strcmp(level, "l3") ? "L3 group" : !strcmp(level, "l2") ? "L2 group"
                                                                                                          : level;
}

/* Which sharing levels pairs have, and one or two representative pairs of each. */
void host_plan_layers(struct host *h)
{
    unsigned n = h->n;
    for (unsigned d = h->nlv; d-- > 0;) { /* innermost first: SMT siblings, ..., across sockets */
        if (h->lv[d].count <= 1)
            continue;
        unsigned stride = 1;
        for (unsigned k = d + 1; k < h->nlv; k++)
            stride *= h->lv[k].count;
        struct layer *ly = &h->layer[h->nlayers++];
        const char *shared = d == 0 ? "machine" : h->lv[d - 1].name;
        snprintf(ly->shared, sizeof ly->shared, "%s", shared);
        if (!strcmp(shared, "core")) {
            snprintf(ly->id, sizeof ly->id, "smt");
            snprintf(ly->desc, sizeof ly->desc, "SMT siblings: two hardware threads of one core");
        } else if (!strcmp(shared, "machine")) {
            snprintf(ly->id, sizeof ly->id, "cross_socket");
            snprintf(ly->desc, sizeof ly->desc, "two cores in different sockets");
        } else {
            snprintf(ly->id, sizeof ly->id, "same_%s", shared);
            if (d + 1 < h->nlv - 1)
                snprintf(ly->desc, sizeof ly->desc, "two cores of one %s, in different %ss", noun(shared),
                         noun(h->lv[d].name));
            else
                snprintf(ly->desc, sizeof ly->desc, "two cores of one %s", noun(shared));
        }
        /* the pair starting at thread 0 and one in the last unit: its last two threads for SMT siblings,
         * else the first thread of the last core and the one a unit of level d before it */
        unsigned smt = h->lv[h->nlv - 1].count, last = d == h->nlv - 1 ? n - 1 : n - smt;
        unsigned a[2] = { 0, last - stride }, b[2] = { stride, last };
        for (unsigned p = 0; p < MAXPAIRS; p++) {
            if (p && a[p] == a[0])
                break;
            ly->pa[ly->npairs] = h->thread_cpu[a[p]];
            ly->pb[ly->npairs++] = h->thread_cpu[b[p]];
        }
    }
}

