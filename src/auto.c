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
 *   some core holds two or more participants (SMT siblings): hybrid with group=core — 003 §4's hybrid,
 *     a counter among the siblings of a core, dissemination across cores (measured best on the Xeon
 *     Phi, whose cores run four threads each);
 *   participants spread over several cache groups, none holding more than AG_AUTO_GROUP_MAX, some two or
 *     more: hybrid with group=cache (centralized inside a shared cache, dissemination across). Not
 *     above that size: a counter's arrivals are serialized, one transfer each, so a group of G costs
 *     about G transfers against dissemination's log2 G rounds (002 §IV: SENSE grows linearly), and a
 *     whole socket's cache group (128 threads on the ThunderX2) made auto 5.7x slower than the best
 *     fixed algorithm in the simulator (docs/results.md, "auto");
 *   up to 16 participants: dissemination, ways=1 (fewest rounds of parallel one-to-one signals);
 *   more: stour with 002 §V's defaults (fan-in 4, padded flags, NUMA-aware wake-up), 002's measured
 *     best at 64 threads on its three ARMv8 machines. */
#include "auto.h"

const char *ag_auto_algo(const struct ag_auto_in *in)
{
    if (in->n == 1)
        return "central";
    if (!in->spins)
        return in->cpu_groups < in->n && in->core_groups > 1 ? "hybrid:group=core" : "central";
    if (in->core_groups < in->n)
        return "hybrid:group=core";
    if (in->cache_groups > 1 && in->cache_groups < in->n && in->largest_cache_group <= AG_AUTO_GROUP_MAX)
        return "hybrid:group=cache";
    if (in->n <= 16)
        return "dissemination";
    return "stour";
}
