/* policy.h — the wait policy of --wait as the simulator runs it (policy.c). */
#ifndef AG_SIM_POLICY_H
#define AG_SIM_POLICY_H

#include <stddef.h>

#include "engine.h"

/* Sets so's wait policy (sleeps, spin_ns, yield_ns) from a wait spec for n participants on machine m.
 * 0, or -1 with the message in err (a bad spec, backoff, or a machine without the OS costs needed). */
int sim_wait_policy(const char *wait, const struct sim_machine *m, unsigned n, struct sim_opts *so, char *err,
                    size_t len);

#endif
