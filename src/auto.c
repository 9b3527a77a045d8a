/* auto.c — see auto.h.
 *   1 participant, or a policy that does not spin (block, yield, or auto when participants outnumber
 *     the usable CPUs): central — one flag, so a single futex call wakes every sleeper;
 *   participants spread over several cache groups with some group holding two or more: hybrid with
 *     group=cache (003 §4: centralized inside, dissemination across);
 *   up to 16 participants: dissemination, ways=1 (fewest rounds of parallel one-to-one signals);
 *   more: stour with 002 §V's defaults (fan-in 4, padded flags, NUMA-aware wake-up). */
#include "auto.h"

const char *ag_auto_algo(unsigned n, int spins, unsigned cache_groups)
{
    if (n == 1 || !spins)
        return "central";
    if (cache_groups > 1 && cache_groups < n)
        return "hybrid:group=cache";
    if (n <= 16)
        return "dissemination";
    return "stour";
}
