/* auto.h — algo=auto: the documented rule (docs/guide.md, "Automatic choice"), one function shared by
 * the library (barrier.c, on the process's topology) and the simulator (on the modeled one). */
#ifndef AG_AUTO_H
#define AG_AUTO_H

/* What the rule looks at: n participants; whether the wait policy spins before it sleeps or yields;
 * how many CPUs the participants were placed on by the caller (cfg.cpus; n when the placement is the
 * library's guess, which binds nobody); how many cores and NUMA nodes (dense, in topology order) they
 * occupy, and the fewest participants any of those nodes holds; and whether a read-modify-write is a
 * load-exclusive/store-exclusive pair that fails and retries under contention (ARMv8.0, or a build
 * without LSE atomics) rather than one instruction. */
struct ag_auto_in {
    unsigned n;
    int spins;
    unsigned cpu_groups, core_groups, numa_groups, smallest_numa_group;
    int rmw_pairs;
};

/* A tree across NUMA nodes only when every node holds two full levels of its fan-in 4 (auto.c) */
#define AG_AUTO_NODE_MIN 16u

/* The spec auto stands for. */
const char *ag_auto_algo(const struct ag_auto_in *in);

/* in's core_groups, numa_groups and smallest_numa_group from a shape (shape.h): its dense group ids run
 * in rank order, so a node's participants are one run. The library and the simulator both fill them so. */
struct ag_shape;
void ag_auto_from_shape(struct ag_auto_in *in, const struct ag_shape *sh);

#endif
