/* auto.c — see auto.h. The rule, first match:
 *   1 participant: central;
 *   a policy that does not spin (block, yield, or auto when participants outnumber the usable CPUs),
 *     with participants that the caller placed several to a CPU, on more than one core: hybrid with
 *     group=core — the mates of a CPU meet at a counter and only their last arriver crosses to the
 *     other CPUs, so an episode costs each CPU one switch between its participants (a flat barrier's
 *     waiters yield to mates that are waiting too: two switches and more; docs/results.md,
 *     "libandgate-mpi" and "auto against the best fixed algorithm"), and its leader spins the policy's
 *     lead_ns instead of yielding to waiting mates;
 *   any other policy that does not spin: central — one flag, so a single futex call wakes every
 *     sleeper;
 *   participants on two or more NUMA nodes, each holding at least AG_AUTO_NODE_MIN: a tree whose
 *     groups of four are neighbours in topology order, so a node's participants combine among
 *     themselves — two full levels of fan-in 4 make 16 arrivals one — and the links between nodes
 *     carry one arrival and one wake-up per subtree, where dissemination sends every participant's
 *     signal of its later rounds across them at once (002 §IV's cross-cluster traffic every round; in
 *     the simulator, once every socket holds 16, the tree is the best fixed algorithm or within 11 %
 *     of it on the ThunderX2, the Xeon 8160 x8 and the Opteron, where dissemination ranges from 1 %
 *     ahead to 1.6x behind). With fewer on some node the tree has little to combine there and adds
 *     levels: dissemination stays ahead (1.1-1.7x, threads scattered over sockets). Which tree
 *     depends on the atomics (002 §V-A: a static barrier "does not have the overhead introduced by
 *     atomic instructions"): with one-instruction atomics dtour (fan-in 4, tree wake-up), whose
 *     counters let the last arriver of a group go on at once; where a read-modify-write is an
 *     exclusive pair, whose store fails and loops while others take the line, stour with 002 §V's
 *     defaults (fan-in 4, padded flags, NUMA-aware wake-up), which has no atomics;
 *   some core holds two or more participants (SMT siblings): hybrid with group=core — 003 §4's hybrid,
 *     a counter among the siblings of a core, dissemination across cores (measured best on the Xeon
 *     Phi, whose cores run four threads each: 003 §5.3);
 *   otherwise: dissemination, ways=1, padded — the fewest steps of parallel one-to-one signals, each
 *     on a line of its own (002 §V-B.1's padding; 002's DIS, which lost to stour in its Table IV, kept
 *     a processor's flags of all rounds in one record: docs/results.md, "002's baselines as 002 built
 *     them"). */
#define _GNU_SOURCE /* shape.h: cpu_set_t */
#include "auto.h"

#include "algo.h" /* AG_LVL_* */
#include "shape.h"

const char *ag_auto_algo(const struct ag_auto_in *in)
{
    if (in->n == 1)
        return "central";
    if (!in->spins)
        return in->cpu_groups < in->n && in->core_groups > 1 ? "hybrid:group=core" : "central";
    if (in->numa_groups > 1 && in->smallest_numa_group >= AG_AUTO_NODE_MIN)
        return in->rmw_pairs ? "stour" : "dtour";
    if (in->core_groups < in->n)
        return "hybrid:group=core";
    return "dissemination";
}

void ag_auto_from_shape(struct ag_auto_in *in, const struct ag_shape *sh)
{
    in->core_groups = sh->ngroups[AG_LVL_CORE];
    in->numa_groups = sh->ngroups[AG_LVL_NUMA];
    in->smallest_numa_group = sh->n;
    const unsigned *node = sh->group[AG_LVL_NUMA];
    for (unsigned r = 0, run = 0; r < sh->n; r++) {
        run = r && node[sh->order[r]] == node[sh->order[r - 1]] ? run + 1 : 1;
        if ((r + 1 == sh->n || node[sh->order[r + 1]] != node[sh->order[r]]) && run < in->smallest_numa_group)
            in->smallest_numa_group = run; /* a node's run ends at r */
    }
}
