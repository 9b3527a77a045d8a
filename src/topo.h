/* topo.h — topology: for each CPU its SMT core, cache group, NUMA node and package; usable CPUs.
 * hwloc when the build found it, sysfs otherwise (DESIGN.md, src/topo.c). */
#ifndef AG_TOPO_H
#define AG_TOPO_H

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
};

enum { AG_TOPO_HWLOC = 0, AG_TOPO_SYSFS = 1 };

/* Read the topology from one source into *t (free with ag_topo_free); 0, or -1 when that source is
 * unavailable (hwloc not built in, or failing). */
int ag_topo_read(struct ag_topo *t, int source);
void ag_topo_free(struct ag_topo *t);

/* The machine topology used by libandgate: hwloc when built with it (ANDGATE_TOPOLOGY=sysfs forces
 * sysfs), else sysfs; read once (thread-safe) and kept for the life of the process; never NULL. */
const struct ag_topo *ag_topo_get(void);
/* Information about one CPU; NULL if it is not online. */
const struct ag_cpuinfo *ag_topo_cpu(const struct ag_topo *t, int cpu);
/* The CPUs in this thread's affinity mask, in increasing order; returns how many (<= max). */
unsigned ag_affinity_cpus(int *cpus, unsigned max);
/* The cgroup v2 (or v1) CPU quota as a CPU count rounded up, 0 when unlimited or unknown. */
unsigned ag_cgroup_cpu_limit(void);

#endif
