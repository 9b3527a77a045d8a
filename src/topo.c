/* topo.c — machine topology (hwloc when built with it, sysfs otherwise) and usable CPUs.
 *
 * For every online CPU: its SMT core, its cache group, its NUMA node and its package. The cache group is
 * the cache level just above the core that several cores share: L2 where L2 is shared by cores (ARM and
 * Atom-style clusters, Phytium's 4-core units in 002 §III), otherwise L3 (the LLC).
 * Usable CPUs = the CPUs the process may run on (not the calling thread's mask), capped by the cgroup
 * CPU quota (rounded up); see "the CPUs of the process" below.
 */
#define _GNU_SOURCE
#include "topo.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "andgate.h"

#ifdef AG_HAVE_HWLOC
#include <hwloc.h>
#endif

/* ---- small sysfs readers ---- */

static int read_int(const char *path, int *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%d", out) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* Parses a kernel cpu list ("0-3,8,10-11"); calls fn for every cpu; returns the first cpu or -1. */
static int parse_cpulist(const char *s, void (*fn)(int cpu, void *arg), void *arg)
{
    int first = -1;
    while (*s && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
        }
        for (long c = a; c <= b && c < 1L << 20; c++) {
            if (first < 0)
                first = (int)c;
            if (fn)
                fn((int)c, arg);
        }
        s = *end == ',' ? end + 1 : end;
    }
    return first;
}

/* The first len-1 bytes of a small file, NUL-terminated; 0 or -1. */
static int read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 0;
}

static int read_cpulist(const char *path, void (*fn)(int, void *), void *arg)
{
    char buf[4096];
    return read_text(path, buf, sizeof buf) ? -1 : parse_cpulist(buf, fn, arg);
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
        struct ag_cpuinfo *v = realloc(cv->v, cap * sizeof *v);
        if (!v)
            return;
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
        if (read_int(p, &level))
            return -1;
        if (level != level_wanted)
            continue;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
        return read_text(p, buf, len);
    }
    return -1;
}

/* The group id of cpu's cache of a level: the first CPU sharing it; -1 if there is none. */
static int sysfs_cache(int cpu, int level)
{
    char buf[4096];
    return sysfs_cache_list(cpu, level, buf, sizeof buf) ? -1 : parse_cpulist(buf, NULL, NULL);
}

static void sysfs_fill(struct ag_topo *t)
{
    char p[256];
    /* does any L2 span more than one core? then L2 is the cache group */
    int l2_shared_by_cores = 0;
    for (unsigned i = 0; i < t->ncpus; i++) {
        struct ag_cpuinfo *c = &t->cpu[i];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/core_id", c->cpu);
        read_int(p, &c->core);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c->cpu);
        read_int(p, &c->package);
        /* is this CPU's L2 shared by more than its SMT siblings? */
        char l2[4096], smt[4096];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c->cpu);
        if (sysfs_cache_list(c->cpu, 2, l2, sizeof l2) == 0 && read_text(p, smt, sizeof smt) == 0 &&
            strcmp(l2, smt) != 0)
            l2_shared_by_cores = 1;
        c->numa = 0;
        for (int node = 0; node < 1024; node++) {
            snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/node%d", c->cpu, node);
            DIR *d = opendir(p);
            if (d) {
                closedir(d);
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
    struct ag_cpuinfo *v = calloc((size_t)npu, sizeof *v);
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
    t->ncpus = (unsigned)npu;
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
    if (read_cpulist("/sys/devices/system/cpu/online", push_cpu, &cv) < 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < (n > 0 ? n : 1); c++)
            push_cpu((int)c, &cv);
    }
    if (!cv.n) /* out of memory: one CPU, nothing known about it */
        return -1;
    t->cpu = cv.v;
    t->ncpus = cv.n;
    sysfs_fill(t);
    return 0;
}

void ag_topo_free(struct ag_topo *t)
{
    free(t->cpu);
    *t = (struct ag_topo){ 0 };
}

static struct ag_topo topo;
static struct ag_cpuinfo topo_fallback_cpu = { 0, 0, 0, 0, 0 };
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

/* hwloc when built with it, unless ANDGATE_TOPOLOGY=sysfs; sysfs otherwise; never an empty topology */
static void topo_load(void)
{
    const char *want = getenv("ANDGATE_TOPOLOGY");
    int sysfs_only = want && strcmp(want, "sysfs") == 0;
    if ((!sysfs_only && ag_topo_read(&topo, AG_TOPO_HWLOC) == 0) || ag_topo_read(&topo, AG_TOPO_SYSFS) == 0)
        return;
    topo = (struct ag_topo){ "none", 1, &topo_fallback_cpu, 0 };
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

unsigned ag_affinity_cpus(int *cpus, unsigned max)
{
    cpu_set_t set;
    unsigned n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

/* This process's cgroup path (v2: the "0::" line; v1: the cpu controller's), into rel; v1 or not. */
static int cgroup_rel(char *rel, size_t len, const char *v1_controller)
{
    char line[512];
    FILE *f = fopen("/proc/self/cgroup", "r");
    rel[0] = '\0';
    if (!f)
        return 0;
    int v1 = 0;
    while (fgets(line, sizeof line, f)) {
        /* "ID:CONTROLLERS:PATH"; v2's single hierarchy has no controllers ("0::/path") */
        char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        char list[256], want[64];
        snprintf(list, sizeof list, ",%s,", ctl + 1);
        snprintf(want, sizeof want, ",%s,", v1_controller);
        if (ctl[1] == '\0' && !v1) {
            snprintf(rel, len, "%s", path);
        } else if (strstr(list, want)) {
            snprintf(rel, len, "%s", path);
            v1 = 1;
        }
    }
    fclose(f);
    rel[strcspn(rel, "\n")] = '\0';
    return v1;
}

/* cgroup v2: the smallest cpu.max quota on the path from our cgroup to the root; v1: cfs quota. */
unsigned ag_cgroup_cpu_limit(void)
{
    char rel[512], path[768];
    unsigned best = 0;
    int v1 = cgroup_rel(rel, sizeof rel, "cpu");
    for (;;) {
        long long quota = -1, period = 0;
        if (!v1) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", rel);
            FILE *q = fopen(path, "r");
            if (q) {
                char qs[32];
                if (fscanf(q, "%31s %lld", qs, &period) == 2 && strcmp(qs, "max") != 0)
                    quota = atoll(qs);
                fclose(q);
            }
        } else {
            int qi, pi;
            snprintf(path, sizeof path, "/sys/fs/cgroup/cpu,cpuacct%s/cpu.cfs_quota_us", rel);
            if (read_int(path, &qi) == 0) {
                quota = qi;
                snprintf(path, sizeof path, "/sys/fs/cgroup/cpu,cpuacct%s/cpu.cfs_period_us", rel);
                if (read_int(path, &pi) == 0)
                    period = pi;
            }
        }
        if (quota > 0 && period > 0) {
            unsigned n = (unsigned)((quota + period - 1) / period);
            if (!best || n < best)
                best = n;
        }
        if (rel[0] == '\0' || strcmp(rel, "/") == 0)
            break;
        char *slash = strrchr(rel, '/');
        if (!slash)
            break;
        *slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
    }
    return best;
}

static void set_cpu(int cpu, void *arg)
{
    if (cpu >= 0 && cpu < CPU_SETSIZE)
        CPU_SET(cpu, (cpu_set_t *)arg);
}

/* The cgroup's cpuset (v2 cpuset.cpus.effective, v1 cpuset.effective_cpus); 0 when there is none. */
static int cgroup_cpuset(cpu_set_t *set)
{
    char rel[512], path[768];
    int v1 = cgroup_rel(rel, sizeof rel, "cpuset");
    CPU_ZERO(set);
    if (v1)
        snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", rel);
    else
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective", rel);
    return read_cpulist(path, set_cpu, set) >= 0;
}

/* ---- the CPUs of the process ----
 * A thread's affinity mask is not the process's: OpenMP runtimes and programs pin their threads, each
 * to one CPU (libgomp pins the initial thread in its constructor, before any other library's runs),
 * and a team of two pinned threads on two CPUs is not oversubscribed. What the process may run on is
 * the union of the mask it was started with (read when this library is loaded) and the masks of all
 * its threads now, within its cgroup's cpuset; the cgroup's CPU quota caps how many of those it can
 * keep busy. Re-read at every call (a barrier's init), so threads pinned since count. */

static cpu_set_t at_load;
static int at_load_ok;

__attribute__((constructor)) static void affinity_at_load(void)
{
    at_load_ok = sched_getaffinity(0, sizeof at_load, &at_load) == 0;
}

/* The union of the affinity masks of every thread of this process. */
static int threads_affinity(cpu_set_t *set)
{
    CPU_ZERO(set);
    DIR *d = opendir("/proc/self/task");
    int any = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            cpu_set_t one;
            int tid = atoi(e->d_name);
            if (tid > 0 && sched_getaffinity(tid, sizeof one, &one) == 0) {
                CPU_OR(set, set, &one);
                any = 1;
            }
        }
        closedir(d);
    }
    if (!any && sched_getaffinity(0, sizeof *set, set) == 0)
        any = 1;
    return any;
}

void ag_cpu_budget(struct ag_cpu_budget *b, cpu_set_t *process)
{
    cpu_set_t threads, cpuset;
    *b = (struct ag_cpu_budget){ 0 };
    CPU_ZERO(process);
    if (threads_affinity(&threads)) {
        b->threads = (unsigned)CPU_COUNT(&threads);
        CPU_OR(process, process, &threads);
    }
    if (at_load_ok) {
        b->at_load = (unsigned)CPU_COUNT(&at_load);
        CPU_OR(process, process, &at_load);
    }
    if (cgroup_cpuset(&cpuset) && CPU_COUNT(&cpuset) > 0) {
        b->cpuset = (unsigned)CPU_COUNT(&cpuset);
        cpu_set_t both;
        CPU_AND(&both, process, &cpuset);
        if (CPU_COUNT(&both) > 0)
            *process = both;
    }
    b->process = (unsigned)CPU_COUNT(process);
    b->quota = ag_cgroup_cpu_limit();
    b->usable = b->quota && b->quota < b->process ? b->quota : b->process;
    if (!b->usable)
        b->usable = 1;
}

unsigned ag_process_cpus(int *cpus, unsigned max)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    unsigned n = 0;
    ag_cpu_budget(&b, &set);
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

unsigned ag_usable_cpus(void)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    ag_cpu_budget(&b, &set);
    return b.usable;
}
