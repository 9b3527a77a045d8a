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


/* ---- sysfs: each file read once per group of CPUs it describes ----
 * A CPU's core, package and caches are each described by a list of the CPUs that share it
 * (thread_siblings_list, package_cpus_list, shared_cpu_list), so the first CPU of a group is read and
 * the whole group filled. On a VM an open and read cost 5-10 us: reading every file of every CPU took
 * 8-10 ms for a tree of 2 packages x 32 cores x 2 threads here (bind-mounted over /sys/devices/system),
 * 1.4-1.7 ms so; 2 CPUs: 185 -> 145 us. A CPU a list leaves out is read on its own. */

static const char *sys_root = "/sys/devices/system";

void ag_topo_sysfs_root(const char *root)
{
    sys_root = root ? root : "/sys/devices/system";
}

/* One field of the online CPUs a list names, set where still unknown (-1). */
struct fill {
    struct ag_topo *t;
    size_t off;
    int value;
    int core, package, cores; /* shared_cpu_list: the first CPU's core; cores set when another is met */
};

static int *field(struct ag_cpuinfo *c, size_t off)
{
    return (int *)(void *)((char *)c + off);
}

static void fill_one(int cpu, void *arg)
{
    struct fill *f = arg;
    struct ag_cpuinfo *c = (struct ag_cpuinfo *)ag_topo_cpu(f->t, cpu);
    if (!c)
        return; /* offline */
    if (*field(c, f->off) < 0)
        *field(c, f->off) = f->value;
    if (c->core != f->core || c->package != f->package)
        f->cores = 1;
}

/* Sets field off of c and of every CPU in the list file `list` (a path under c's cpu directory) to the
 * integer in file `value` of c's directory, or to the list's first CPU when `value` is NULL. 0; 1 when
 * the list is missing (only c filled); -1 when nothing could be read. f->cores: see struct fill. */
static int fill_group(struct ag_topo *t, struct ag_cpuinfo *c, const char *value, const char *list, size_t off,
                      struct fill *f)
{
    char p[256], q[256]; /* the list is read twice (its first CPU, then each): no 4 KiB buffer on the stack */
    int v = -1, lfirst;
    snprintf(p, sizeof p, "%s/cpu/cpu%d/%s", sys_root, c->cpu, list);
    lfirst = ag_sysfs_cpulist(p, NULL, NULL);
    int have_list = lfirst >= 0;
    if (value) {
        snprintf(q, sizeof q, "%s/cpu/cpu%d/%s", sys_root, c->cpu, value);
        if (ag_sysfs_int(q, &v))
            return -1;
    } else if (have_list) {
        v = lfirst;
    } else {
        return -1;
    }
    *f = (struct fill){ t, off, v, c->core, c->package, 0 };
    if (have_list)
        ag_sysfs_cpulist(p, fill_one, f);
    if (*field(c, off) < 0) /* a list that leaves its own CPU out */
        *field(c, off) = v;
    return have_list ? 0 : 1;
}

/* The level of cpu's cache/indexN; -1 when there is no such index. */
static int cache_level_of(int cpu, int idx)
{
    char p[256];
    int lv;
    snprintf(p, sizeof p, "%s/cpu/cpu%d/cache/index%d/level", sys_root, cpu, idx);
    return ag_sysfs_int(p, &lv) ? -1 : lv;
}

/* The index of cpu's cache of a level (cache/indexN/level), trying `hint` first (CPUs alike number
 * their caches alike); -1 if it has none. */
static int cache_index(int cpu, int level, int hint)
{
    if (hint >= 0 && cache_level_of(cpu, hint) == level)
        return hint;
    for (int idx = 0; idx < 8; idx++) {
        if (idx == hint) /* read above: not this level */
            continue;
        int lv = cache_level_of(cpu, idx);
        if (lv < 0)
            return -1;
        if (lv == level)
            return idx;
    }
    return -1;
}

enum { CACHE_FOUND = 1, CACHE_OF_CORES = 2 }; /* what cache_groups found */

/* Every CPU still without a cache group (-1) gets the group of its cache of this level: the first CPU
 * of the cache's shared_cpu_list. Returns CACHE_FOUND when there was such a cache, with CACHE_OF_CORES
 * when one of them holds more than one core. */
static int cache_groups(struct ag_topo *t, int level)
{
    int hint = -1, found = 0;
    for (unsigned i = 0; i < t->ncpus; i++) {
        struct ag_cpuinfo *c = &t->cpu[i];
        int idx = c->cache < 0 ? cache_index(c->cpu, level, hint) : -1;
        if (idx < 0)
            continue;
        char list[64];
        struct fill f;
        snprintf(list, sizeof list, "cache/index%d/shared_cpu_list", idx);
        if (fill_group(t, c, NULL, list, offsetof(struct ag_cpuinfo, cache), &f) == 0)
            found |= CACHE_FOUND | (f.cores ? CACHE_OF_CORES : 0);
        hint = idx;
    }
    return found;
}

static void numa_node(const char *name, void *arg)
{
    char *end, p[256];
    if (strncmp(name, "node", 4) != 0 || name[4] < '0' || name[4] > '9')
        return;
    long node = strtol(name + 4, &end, 10);
    snprintf(p, sizeof p, "%s/node/%s/cpulist", sys_root, name);
    if (*end || node > 1 << 20)
        return;
    struct fill f = { arg, offsetof(struct ag_cpuinfo, numa), (int)node, 0, 0, 0 };
    ag_sysfs_cpulist(p, fill_one, &f);
}

static void sysfs_fill(struct ag_topo *t)
{
    struct fill f;
    for (unsigned i = 0; i < t->ncpus; i++) {
        struct ag_cpuinfo *c = &t->cpu[i];
        if (c->core < 0)
            fill_group(t, c, "topology/core_id", "topology/thread_siblings_list",
                       offsetof(struct ag_cpuinfo, core), &f);
        if (c->package < 0 &&
            fill_group(t, c, "topology/physical_package_id", "topology/package_cpus_list",
                       offsetof(struct ag_cpuinfo, package), &f) > 0) /* before Linux 5.8: the old name */
            fill_group(t, c, "topology/physical_package_id", "topology/core_siblings_list",
                       offsetof(struct ag_cpuinfo, package), &f);
    }
    char nodes[256];
    snprintf(nodes, sizeof nodes, "%s/node", sys_root);
    ag_sysfs_dir(nodes, numa_node, t);
    /* the cache group: L2 when some L2 holds more than one core, else L3 (L2 where a CPU has no L3;
     * the level says L2 when none has one, as topo_hwloc.c's does) */
    t->cache_level = 2;
    if (!(cache_groups(t, 2) & CACHE_OF_CORES)) {
        for (unsigned i = 0; i < t->ncpus; i++)
            t->cpu[i].cache = -1;
        if (cache_groups(t, 3))
            t->cache_level = 3;
        cache_groups(t, 2);
    }
    for (unsigned i = 0; i < t->ncpus; i++) {
        struct ag_cpuinfo *c = &t->cpu[i];
        if (c->numa < 0)
            c->numa = 0;
        if (c->cache < 0 || c->core < 0 || c->package < 0)
            t->guessed++;
        if (c->cache < 0)
            c->cache = c->package;
    }
    t->source = "sysfs";
}

int ag_topo_read(struct ag_topo *t, int source)
{
    *t = (struct ag_topo){ 0 };
    if (source == AG_TOPO_HWLOC) {
#ifdef AG_HAVE_HWLOC
        return ag_topo_hwloc_read(t, cpus_map);
#else
        return -1;
#endif
    }
    struct cpuvec cv = { 0 };
    char online[256];
    snprintf(online, sizeof online, "%s/cpu/online", sys_root);
    if (ag_sysfs_cpulist(online, push_cpu, &cv) < 0) {
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
