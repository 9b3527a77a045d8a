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
 *     sleeper; tune's timing would measure the OS's wake-ups, not the algorithms;
 *   two spinning participants: hybrid with group=core when they are SMT siblings of one core (003 §4),
 *     else dissemination, ways=1, padded — for two, every candidate is one exchange of flags between
 *     them, and measuring them would cost more than it could win;
 *   more: tune (src/algo/tune.c) — it runs the candidates on this machine and keeps the fastest. A
 *     rule from topology alone was tried first (a tree across NUMA nodes of 16 or more, hybrid for SMT
 *     siblings, dissemination otherwise; docs/results.md keeps its regret table): in the simulator it
 *     stayed 1.28-1.46x behind the best fixed algorithm on the KNL, the Opteron and the Phytium 2000+,
 *     where which algorithm wins turns on costs the topology does not show (the per-core chain of a
 *     hybrid against a mesh's transfers, a die's links, the stagger of arrivals). Below AG_AUTO_TUNE_MIN
 *     nothing is tuned. */
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
    if (in->n >= AG_AUTO_TUNE_MIN)
        return "tune";
    return in->core_groups < in->n ? "hybrid:group=core" : "dissemination";
}

void ag_auto_from_shape(struct ag_auto_in *in, const struct ag_shape *sh)
{
    in->core_groups = sh->ngroups[AG_LVL_CORE];
}
