/* engine.h — andgate sim: the algorithm sources of src/algo/ on a modeled machine, in virtual time.
 *
 * Each simulated participant is a coroutine (coro.h) placed on a hardware thread of the machine
 * (machine.h). Every flag operation of an algorithm (src/sim_flags.h) is carried out by the engine at
 * once and costs virtual time by the coherence model of sim/machines/README.md:
 *
 *   per cache line an owner, a set of sharers and a home unit;
 *   hit                 the self layer (ε);
 *   read miss by r      L(r, owner), else the nearest sharer's min L(r, s), else (first touch) the
 *                       machine's largest cost to the home; r then shares the line (the owner keeps a
 *                       shared copy);
 *   ownership by w      (w holds a copy ? 0 : read miss) + Σ over other holders s of α(w, s) · L(w, s);
 *   atomic RMW          ownership + the atomic's extra cost;
 *   "none" machines     (TILE64 home tiles) no copies: every access away from the home costs L(w, home);
 *
 * and one ownership transfer at a time per line: a request at t on a line busy until t_b starts at
 * max(t, t_b); reads wait for a transfer in flight. Contention is this queueing, not a coefficient.
 *
 * A flag_wait that does not hold blocks the participant until a store to its line (any flag of it: a
 * spinning reader loses its copy to every write of the line), then charges the re-read. The engine
 * resumes the participant with the smallest clock (fixed schedule: deterministic), or a random
 * runnable one (random schedule: an interleaving explorer; clocks are then not a timing).
 */
#ifndef AG_SIM_ENGINE_H
#define AG_SIM_ENGINE_H

#include <stdint.h>

#include "machine.h"

struct sim_hw;

enum sim_method { SIM_LATENCY, SIM_JITTER, SIM_EPCC };

struct sim_opts {
    const struct sim_machine *m;
    const char *algo;          /* spec string of a software algorithm (unused when hw is set) */
    const struct sim_hw *hw;   /* a hardware barrier device (sim/hw) instead, or NULL */
    const char *pin;           /* placement (sim_place): cores, compact, scatter; NULL = cores */
    unsigned n, episodes;
    uint64_t seed;
    int random_schedule;
    uint64_t epoch0;           /* start the episode counters here (wrap-around tests) */
    enum sim_method method;
    double work_ns;            /* compute charged to every participant before each arrival */
    double work_jitter_ns;     /* plus a uniform random [0, this) per participant and episode (seeded) */
    double late_ns;            /* jitter: participant k % n arrives this much later in episode k */
    int late_fixed;            /* jitter: ... or always the last participant (bench's --late fixed) */
};

struct sim_traffic {
    uint64_t reads_local, reads_remote, writes, invalidations, rmws;
};

struct sim_result {
    int ok;
    char error[400];
    char describe[200];
    double median_ns, min_ns, p99_ns, mean_ns; /* virtual: last arrival -> last departure per episode;
                                                * epcc: the episode's period (last departure to last
                                                * departure) minus the compute charged, as EPCC's
                                                * overhead per barrier */
    double cpu_ns_per_episode;                 /* Σ over participants of the time inside the barrier */
    unsigned episodes;                         /* measured */
    unsigned run_episodes;                     /* run: one unmeasured warm-up episode more (first touches) */
    struct sim_traffic traffic;                /* per run (divide by run_episodes) */
    uint64_t operations;                       /* simulated flag operations */
};

/* Runs o->episodes episodes with o->n simulated participants, checking on the way that no participant
 * leaves an episode before all arrived and that exactly one gets AG_SERIAL. 0, EINVAL (bad spec,
 * placement; message in r->error) or -1 (a semantic check failed, a deadlock). */
int sim_run(const struct sim_opts *o, struct sim_result *r);

#endif
