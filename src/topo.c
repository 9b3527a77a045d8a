/* topo.c — machine topology (hwloc when built with it, sysfs otherwise; sysfs first in the preload
 * library, see topo.h); the CPUs the process may use are in cpus.c.
 *
 * For every online CPU: its SMT core, its cache group, its NUMA node and its package. The cache group is
 * the cache level just above the core that several cores share: L2 where L2 is shared by cores (ARM and
 * Atom-style clusters, Phytium's 4-core units in 002 §III), otherwise L3 (the LLC).
 */
#define _GNU_SOURCE
#include "topo.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "andgate.h"
#include "sysfs.h"

#ifdef AG_HAVE_HWLOC
#include <hwloc.h>
#endif

/* A topology's cpu[] lives in a mapping of its own, outside the malloc heap: the preload library reads
 * the topology when it is loaded and keeps it, and the program's heap must look as it would without the
 * library (docs/preload.md; sysfs.c's readers allocate nothing either). Zeroed; NULL on ENOMEM. */
static struct ag_cpuinfo *cpus_map(size_t n)
{
    void *p = mmap(NULL, n * sizeof(struct ag_cpuinfo), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

struct cpuvec {
    struct ag_cpuinfo *v;
    unsigned n, cap;
};

static void push_cpu(int cpu, void *arg)
{
    struct cpuvec *cv = arg;
    if (cv->n == cv->cap) {
        unsigned cap = cv->cap ? cv->cap * 2 : 64;
        struct ag_cpuinfo *v = cpus_map(cap);
        if (!v)
            return;
        if (cv->v) {
            memcpy(v, cv->v, cv->n * sizeof *v);
            munmap(cv->v, cv->cap * sizeof *v);
        }
        cv->v = v;
        cv->cap = cap;
    }
    cv->v[cv->n++] = (struct ag_cpuinfo){ cpu, -1, -1, -1, -1 };
}


/* The shared_cpu_list of cpu's cache of the given level into buf; 0 or -1 if there is none. */
static int sysfs_cache_list(int cpu, int level_wanted, char *buf, size_t len)
{
    char p[256];
    for (int idx = 0; idx < 8; idx++) {
        int level;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
        if (ag_sysfs_int(p, &level))
            return -1;
        if (level != level_wanted)
            continue;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
        return ag_sysfs_text(p, buf, len);
    }
    return -1;
}

/* The group id of cpu's cache of a level: the first CPU sharing it; -1 if there is none. */
static int sysfs_cache(int cpu, int level)
{
    char buf[4096];
    return sysfs_cache_list(cpu, level, buf, sizeof buf) ? -1 : ag_sysfs_cpulist_parse(buf, NULL, NULL);
}

static void sysfs_fill(struct ag_topo *t)
{
    char p[256];
    /* does any L2 span more than one core? then L2 is the cache group */
    int l2_shared_by_cores = 0;
    for (unsigned i = 0; i < t->ncpus; i++) {
        struct ag_cpuinfo *c = &t->cpu[i];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/core_id", c->cpu);
        ag_sysfs_int(p, &c->core);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c->cpu);
        ag_sysfs_int(p, &c->package);
        /* is this CPU's L2 shared by more than its SMT siblings? */
        char l2[4096], smt[4096];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c->cpu);
        if (sysfs_cache_list(c->cpu, 2, l2, sizeof l2) == 0 && ag_sysfs_text(p, smt, sizeof smt) == 0 &&
            strcmp(l2, smt) != 0)
            l2_shared_by_cores = 1;
        c->numa = 0;
        for (int node = 0; node < 1024; node++) {
            snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/node%d", c->cpu, node);
            if (access(p, F_OK) == 0) {
                c->numa = node;
                break;
            }
        }
    }
    t->cache_level = l2_shared_by_cores ? 2 : 3;
    for (unsigned i = 0; i < t->ncpus; i++) {
        struct ag_cpuinfo *c = &t->cpu[i];
        c->cache = sysfs_cache(c->cpu, t->cache_level);
        if (c->cache < 0 && t->cache_level == 3)
            c->cache = sysfs_cache(c->cpu, 2);
        if (c->cache < 0 || c->core < 0 || c->package < 0)
            t->guessed++;
        if (c->cache < 0)
            c->cache = c->package;
    }
    t->source = "sysfs";
}

#ifdef AG_HAVE_HWLOC
static int cmp_cpu(const void *a, const void *b)
{
    const struct ag_cpuinfo *x = a, *y = b;
    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int hwloc_fill(struct ag_topo *t)
{
    hwloc_topology_t h;
    if (hwloc_topology_init(&h))
        return -1;
    if (hwloc_topology_load(h)) {
        hwloc_topology_destroy(h);
        return -1;
    }
    int npu = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    if (npu <= 0) {
        hwloc_topology_destroy(h);
        return -1;
    }
    /* cache level: L2 when some L2 holds more than one core */
    int level = 3;
    for (int i = 0; i < hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_L2CACHE); i++) {
        hwloc_obj_t l2 = hwloc_get_obj_by_type(h, HWLOC_OBJ_L2CACHE, i);
        if (hwloc_get_nbobjs_inside_cpuset_by_type(h, l2->cpuset, HWLOC_OBJ_CORE) > 1)
            level = 2;
    }
    if (level == 3 && hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_L3CACHE) == 0)
        level = 2;
    hwloc_obj_type_t ctype = level == 2 ? HWLOC_OBJ_L2CACHE : HWLOC_OBJ_L3CACHE;
    struct ag_cpuinfo *v = cpus_map((size_t)npu);
    if (!v) {
        hwloc_topology_destroy(h);
        return -1;
    }
    int nnuma = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < npu; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, i);
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
        hwloc_obj_t cache = hwloc_get_ancestor_obj_by_type(h, ctype, pu);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, pu);
        v[i].cpu = (int)pu->os_index;
        v[i].core = core ? (int)core->logical_index : (int)pu->logical_index;
        v[i].package = pkg ? (int)pkg->logical_index : 0;
        v[i].cache = cache ? (int)cache->logical_index : v[i].package;
        v[i].numa = 0;
        for (int n = 0; n < nnuma; n++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, n);
            if (hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
                v[i].numa = (int)node->os_index;
                break;
            }
        }
    }
    hwloc_topology_destroy(h);
    qsort(v, (size_t)npu, sizeof *v, cmp_cpu);
    t->cpu = v;
    t->ncpus = t->cap = (unsigned)npu;
    t->cache_level = level;
    t->source = "hwloc";
    return 0;
}
#endif

int ag_topo_read(struct ag_topo *t, int source)
{
    *t = (struct ag_topo){ 0 };
    if (source == AG_TOPO_HWLOC) {
#ifdef AG_HAVE_HWLOC
        return hwloc_fill(t);
#else
        return -1;
#endif
    }
    struct cpuvec cv = { 0 };
    if (ag_sysfs_cpulist("/sys/devices/system/cpu/online", push_cpu, &cv) < 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < (n > 0 ? n : 1); c++)
            push_cpu((int)c, &cv);
    }
    if (!cv.n) /* out of memory: one CPU, nothing known about it */
        return -1;
    t->cpu = cv.v;
    t->ncpus = cv.n;
    t->cap = cv.cap;
    sysfs_fill(t);
    return 0;
}

void ag_topo_free(struct ag_topo *t)
{
    if (t->cpu && t->cap)
        munmap(t->cpu, t->cap * sizeof *t->cpu);
    *t = (struct ag_topo){ 0 };
}

static struct ag_topo topo;
static struct ag_cpuinfo topo_fallback_cpu = { 0, 0, 0, 0, 0 };
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static atomic_int topo_sysfs_first;

void ag_topo_prefer_sysfs(void)
{
    atomic_store_explicit(&topo_sysfs_first, 1, memory_order_relaxed);
}

/* ANDGATE_TOPOLOGY as AG_TOPO_HWLOC or AG_TOPO_SYSFS; -1 when unset or empty, -2 when neither */
static int topo_env(void)
{
    const char *v = getenv("ANDGATE_TOPOLOGY");
    if (!v || !*v)
        return -1;
    return !strcmp(v, "hwloc") ? AG_TOPO_HWLOC : !strcmp(v, "sysfs") ? AG_TOPO_SYSFS : -2;
}

int ag_topo_env_check(char *msg, size_t msglen)
{
    if (topo_env() != -2)
        return 0;
    snprintf(msg, msglen, "ANDGATE_TOPOLOGY='%s': expected hwloc or sysfs", getenv("ANDGATE_TOPOLOGY"));
    return EINVAL;
}

/* The source ANDGATE_TOPOLOGY names (a bad value: ag_barrier_init refuses it before any read), the
 * other as the fallback; without it, hwloc first, or sysfs first when preferred and complete (a sysfs
 * read that had to guess a CPU's core, package or cache group gives way to hwloc). Never empty. */
static void topo_load(void)
{
    int want = topo_env();
    if (want == AG_TOPO_HWLOC || (want < 0 && !atomic_load_explicit(&topo_sysfs_first, memory_order_relaxed))) {
        if (ag_topo_read(&topo, AG_TOPO_HWLOC) == 0 || ag_topo_read(&topo, AG_TOPO_SYSFS) == 0)
            return;
    } else {
        struct ag_topo sys;
        int have = ag_topo_read(&sys, AG_TOPO_SYSFS) == 0;
        if (have && (want == AG_TOPO_SYSFS || sys.guessed == 0)) {
            topo = sys;
            return;
        }
        if (ag_topo_read(&topo, AG_TOPO_HWLOC) == 0) {
            if (have)
                ag_topo_free(&sys);
            return;
        }
        if (have) {
            topo = sys;
            return;
        }
    }
    topo = (struct ag_topo){ "none", 1, &topo_fallback_cpu, 0, 0, 0 };
}

const struct ag_topo *ag_topo_get(void)
{
    pthread_once(&topo_once, topo_load);
    return &topo;
}

const struct ag_cpuinfo *ag_topo_cpu(const struct ag_topo *t, int cpu)
{
    unsigned lo = 0, hi = t->ncpus;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (t->cpu[mid].cpu == cpu)
            return &t->cpu[mid];
        if (t->cpu[mid].cpu < cpu)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
