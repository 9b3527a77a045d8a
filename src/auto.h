/* auto.h — algo=auto: the documented rule (docs/guide.md, "Automatic choice"), one function shared by
 * the library (barrier.c, on the process's topology) and the simulator (on the modeled one). */
#ifndef AG_AUTO_H
#define AG_AUTO_H

/* hybrid:group=cache only while no cache group holds more participants than this (auto.c says why) */
#define AG_AUTO_GROUP_MAX 8u

/* What the rule looks at: n participants; whether the wait policy spins before it sleeps or yields;
 * how many CPUs the participants were placed on by the caller (cfg.cpus; n when the placement is the
 * library's guess, which binds nobody); how many cores and cache groups (dense, in topology order) they
 * occupy, and the most participants any one cache group holds. */
struct ag_auto_in {
    unsigned n;
    int spins;
    unsigned cpu_groups, core_groups, cache_groups, largest_cache_group;
};

/* The spec auto stands for. */
const char *ag_auto_algo(const struct ag_auto_in *in);

#endif
