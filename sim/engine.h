/* engine.h — andgate sim: the algorithm sources of src/algo/ on a modeled machine, in virtual time.
 *
 * Each simulated participant is a coroutine (ucontext). Every flag operation of the algorithm
 * (sim_flags.h) is done by the engine at once, costs virtual time by the coherence model below, and
 * returns to the scheduler, which resumes the participant with the smallest clock (fixed schedule) or
 * a random runnable one (random schedule: an interleaving explorer). A flag_wait that does not hold
 * blocks the participant until a store to that flag.
 *
 * Coherence model, per cache line (8 flags of a padded or packed arena share a 64-byte line): an owner
 * (the last writer) and a set of sharers. A read by an owner or sharer costs hit_ns; otherwise one
 * transfer from the owner (near_ns inside a cluster, far_ns across), after which the reader shares
 * the line. A write or read-modify-write takes ownership: the transfer from the current owner, plus
 * inval_ns per other sharer invalidated, plus rmw_ns for an atomic; and a line serves one ownership
 * transfer at a time (writers queue behind each other: contention is queueing, not a factor).
 *
 * This first model is parametric (struct sim_machine); machine descriptions (sim/machines, JSON)
 * are the next step (docs/sim.md).
 */
#ifndef AG_SIM_ENGINE_H
#define AG_SIM_ENGINE_H

#include <stdint.h>

struct sim_machine {
    const char *name;
    unsigned cluster;               /* cores per cluster (sharing a cache) */
    double hit_ns, near_ns, far_ns; /* read hit; one line transfer within / across clusters */
    double inval_ns, rmw_ns;        /* per invalidated sharer; extra cost of an atomic */
};

struct sim_opts {
    const struct sim_machine *m;
    const char *algo;      /* spec string */
    unsigned n, episodes;
    uint64_t seed;
    int random_schedule;
    uint64_t epoch0;
};

struct sim_result {
    int ok;
    char error[256];
    char describe[200];
    double median_ns, min_ns, p99_ns; /* virtual: last arrival -> last departure per episode */
    unsigned episodes;
    uint64_t reads_local, reads_remote, writes, invalidations, rmws; /* per run */
};

/* Runs o->episodes episodes of the algorithm with n simulated participants, checking on the way that
 * no participant leaves an episode before all arrived and that exactly one gets AG_SERIAL. */
int sim_run(const struct sim_opts *o, struct sim_result *r);

#endif
