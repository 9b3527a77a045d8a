/* hw.h — the papers' hardware barriers as devices of andgate sim (DESIGN.md "Simulator": sim/hw/).
 *
 * A device is an algorithm that exists only in the simulator. The engine runs its episodes: each
 * participant arrives at its own virtual time; the device says when it has registered the arrival
 * (arrive), and once every participant is registered, when each one sees the release (release).
 * The last participant to be registered gets AG_SERIAL. Parameters come from the machine description
 * (its "devices" block, its interconnect, its latency layers) or from the device's paper, each cited
 * where it is used; never from a published barrier timing.
 */
#ifndef AG_SIM_HW_H
#define AG_SIM_HW_H

#include <stddef.h>

#include "machine.h"

struct sim_hw_ctx {
    const struct sim_machine *m;
    unsigned n;          /* participants */
    const unsigned *hw;  /* hardware thread of participant tid */
    void *state;         /* the device's own, from setup */
};

struct sim_hw {
    const char *name;    /* the algorithm name in `andgate sim --algos`, e.g. "hw-harp" */
    const char *summary; /* one line: what it is, paper file and section */
    /* Builds c->state from the machine; refuses (-1, message in err) a machine that lacks the device
     * or its parameters, or a participant count the device cannot serve. */
    int (*setup)(struct sim_hw_ctx *c, char *err, size_t errlen);
    /* Participant tid begins its arrival at virtual time t (ns): returns the time at which the device
     * has registered it (t plus the cost of reaching the device, plus queueing where the device
     * serializes arrivals). Calls of one episode come in the order the engine runs them, which is
     * nondecreasing in t under the fixed schedule. */
    double (*arrive)(struct sim_hw_ctx *c, unsigned tid, double t);
    /* Every participant is registered, the last at t_all (the largest arrive() result of the episode): the
     * time at which tid leaves the barrier, never before t_all. The engine calls it for every tid right
     * after the n-th arrive(); devices compute the whole episode's releases there (sim/hw/hw_util.h). */
    double (*release)(struct sim_hw_ctx *c, unsigned tid, double t_all);
    /* Frees c->state (may be NULL). */
    void (*teardown)(struct sim_hw_ctx *c);
};

/* Every device, NULL-terminated (sim/hw/devices.c); docs/sim-hw.md describes each. */
extern const struct sim_hw *const sim_hw_devices[];
/* The device with this name, or NULL. */
const struct sim_hw *sim_hw_find(const char *name);
/* Whether machine m models some device: one sets up for two participants placed one per core (one
 * participant on a 1-thread machine). */
int sim_hw_any(const struct sim_machine *m);
/* The machines on the search path that model some device, ", "-separated into buf. Returns how many. */
unsigned sim_hw_machines(char *buf, size_t len);

#endif
