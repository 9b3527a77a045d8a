/* topo.h — topology: for each CPU its SMT core, cache group, NUMA node and package; usable CPUs.
 * hwloc when the build found it, sysfs otherwise (DESIGN.md, src/topo.c). */
#ifndef AG_TOPO_H
#define AG_TOPO_H

#include <sched.h>
#include <stddef.h>

/* Ids are OS-level and comparable only within one field; -1 means unknown. */
struct ag_cpuinfo {
    int cpu;
    int core;      /* SMT siblings share it */
    int cache;     /* CPUs sharing the cache level above the core (L2 cluster or L3/LLC slice) */
    int numa;
    int package;
};

struct ag_topo {
    const char *source;      /* "hwloc" or "sysfs" */
    unsigned ncpus;          /* CPUs described (online) */
    struct ag_cpuinfo *cpu;  /* ncpus entries, by increasing cpu number */
    int cache_level;         /* the level `cache` groups by (2 or 3), 0 if unknown */
    unsigned guessed;        /* sysfs: CPUs whose core, package or cache group sysfs did not give */
    unsigned cap;            /* entries in cpu[]'s mapping (topo.c), 0 when cpu[] is not one */
};

enum { AG_TOPO_HWLOC = 0, AG_TOPO_SYSFS = 1 };

/* Read the topology from one source into *t (free with ag_topo_free); 0, or -1 when that source is
 * unavailable (hwloc not built in, or failing). */
int ag_topo_read(struct ag_topo *t, int source);
void ag_topo_free(struct ag_topo *t);
/* hwloc's view (topo_hwloc.c), cpu[] allocated with map(n) (NULL on ENOMEM): 0, or -1 when hwloc fails.
 * In libandgate-preload.so a loader of the same name opens libandgate-hwloc.so first (-1 when it cannot:
 * preload/hwloc_module.c). Built only with hwloc (AG_HAVE_HWLOC). */
int ag_topo_hwloc_read(struct ag_topo *t, struct ag_cpuinfo *(*map)(size_t n));

/* The machine topology used by libandgate, read once (thread-safe) and kept for the life of the process;
 * never NULL. ANDGATE_TOPOLOGY=hwloc|sysfs picks the source; without it, hwloc when built with it (sysfs
 * when hwloc fails), or — after ag_topo_prefer_sysfs() — sysfs when it describes every CPU, else hwloc. */
const struct ag_topo *ag_topo_get(void);
/* Before the first ag_topo_get: read sysfs first. libandgate-preload.so calls it: hwloc's initialization
 * dlopens its plugins (libxml2, ICU, OpenCL, X11 client libraries) into the host program, 3-8 ms at its
 * first barrier, for what sysfs says in 0.15 ms (topo.c: 2 CPUs; 1.4-1.7 ms for 128); and the shim does
 * not even load hwloc unless sysfs falls short (ag_topo_hwloc_read). */
void ag_topo_prefer_sysfs(void);
/* Tests only: read sysfs under root instead of /sys/devices/system (NULL: the real one again). */
void ag_topo_sysfs_root(const char *root);
/* ANDGATE_TOPOLOGY's value: 0 when unset, empty, "hwloc" or "sysfs"; else EINVAL and msg says why. */
int ag_topo_env_check(char *msg, size_t msglen);
/* Information about one CPU; NULL if it is not online. */
const struct ag_cpuinfo *ag_topo_cpu(const struct ag_topo *t, int cpu);
/* The CPUs in this thread's affinity mask, in increasing order; returns how many (<= max). */
unsigned ag_affinity_cpus(int *cpus, unsigned max);
/* The CPU limits of the process's cgroups (cgroup.c): the quota in whole CPUs (0: unlimited or unknown),
 * the effective cpuset, and the online CPUs. fresh: read now; else a copy at most AG_CGROUP_TTL_NS old
 * (cgroup.c says why). */
#define AG_CGROUP_TTL_NS 100000000u
struct ag_cgroup {
    unsigned quota;
    int have_cpuset, have_online;
    cpu_set_t cpuset, online;
};
void ag_cgroup_get(struct ag_cgroup *g, int fresh);
/* The cgroup v2 (or v1) CPU quota as a CPU count rounded up, 0 when unlimited or unknown; read now. */
unsigned ag_cgroup_cpu_limit(void);

/* How many CPUs the process has, and why (cpus.c, "the CPUs of the process"): the mask at load, the
 * union of its threads' masks now, the cgroup cpuset, the quota; 0 where unknown. */
struct ag_cpu_budget {
    unsigned at_load;  /* the affinity mask when libandgate was loaded */
    unsigned threads;  /* the union of every thread's affinity mask now (0: not read) */
    unsigned cpuset;   /* the cgroup's effective cpuset (0: none found) */
    unsigned process;  /* (at_load | threads) & cpuset: what the process may run on */
    unsigned quota;    /* the cgroup CPU quota, rounded up (0: unlimited) */
    unsigned usable;   /* process, capped by quota; >= 1 */
};
/* fresh: read everything now, every thread's mask included (andgate info); else as a barrier's init
 * does: the cgroup's limits from ag_cgroup_get's copy, and the threads' masks only where they could add a
 * CPU (cpus.c; `threads` is 0 when they were not read). */
void ag_cpu_budget(struct ag_cpu_budget *b, cpu_set_t *process, int fresh);
/* How many CPUs the process may run on (>= 1), before the quota: what wait=auto compares nthreads with. */
unsigned ag_process_cpu_count(void);
/* The CPUs the process may run on, in increasing order; returns how many (<= max). */
unsigned ag_process_cpus(int *cpus, unsigned max);

#endif
