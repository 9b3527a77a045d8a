/* shape.h — where participants run, as algorithms see it: a topology order (rank) and group ids per
 * participant at the core, cache and NUMA levels. Built from cfg.cpus, or from the default placement:
 * participant i on the i-th CPU of the affinity mask (wrapping when participants outnumber CPUs). */
#ifndef AG_SHAPE_H
#define AG_SHAPE_H

#include <stddef.h>

struct ag_shape {
    unsigned n;
    unsigned *rank;       /* rank[tid] */
    unsigned *order;      /* order[rank] = tid */
    unsigned *group[3];   /* AG_LVL_CORE, AG_LVL_CACHE, AG_LVL_NUMA: dense group id per tid */
    unsigned ngroups[3];
    unsigned *mem;
};

/* 0, EINVAL (a cpus[] entry is not an online CPU; msg says which) or ENOMEM. */
int ag_shape_build(struct ag_shape *sh, unsigned n, const int *cpus, char *msg, size_t msglen);
void ag_shape_free(struct ag_shape *sh);

#endif
