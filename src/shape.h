/* shape.h — where participants run, as algorithms see it: a topology order (rank) and group ids per
 * participant at the core, cache and NUMA levels. One builder (shape.c, ag_shape_from_places) for the
 * library and the simulator; the library's places come from cfg.cpus, or from the default placement:
 * participant i on the i-th CPU the process may run on (wrapping when participants outnumber CPUs). */
#ifndef AG_SHAPE_H
#define AG_SHAPE_H

#include <sched.h> /* cpu_set_t: includers define _GNU_SOURCE */
#include <stddef.h>

struct ag_shape {
    unsigned n;
    unsigned *rank;       /* rank[tid] */
    unsigned *order;      /* order[rank] = tid */
    unsigned *group[3];   /* AG_LVL_CORE, AG_LVL_CACHE, AG_LVL_NUMA: dense group id per tid */
    unsigned ngroups[3];
    unsigned *mem;
};

enum { AG_PLACE_KEYS = 5 };

/* Where one participant runs. key: its place, outermost first (ranks follow key order, then tid);
 * group[lvl]: AG_LVL_CORE, AG_LVL_CACHE, AG_LVL_NUMA: participants adjacent in rank order with equal
 * pairs share that level's group. */
struct ag_place {
    unsigned tid;
    int key[AG_PLACE_KEYS];
    int group[3][2];
};

/* The shape of n participants at places pl (sorted into rank order in place). 0 or ENOMEM. */
int ag_shape_from_places(struct ag_shape *sh, unsigned n, struct ag_place *pl);

/* 0, EINVAL (a cpus[] entry is not an online CPU; msg says which) or ENOMEM. Without cpus, participant i
 * is placed on the i-th CPU of `process` (wrapping): the CPUs the process may run on (ag_cpu_budget), or
 * NULL to read them now. */
int ag_shape_build(struct ag_shape *sh, unsigned n, const int *cpus, const cpu_set_t *process, char *msg,
                   size_t msglen);
void ag_shape_free(struct ag_shape *sh);

#endif
