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
 *   ownership by w      an upgrade: the other copies invalidated in parallel (the farthest α·L plus a
 *                       per-sharer cost); a line held Modified: one transfer L(w, owner); otherwise the
 *                       data from the nearest copy while the others are invalidated;
 *   plain store         through a store buffer: the writer goes on after a hit, the ownership completes
 *                       in the background, in program order (an atomic drains the buffer first);
 *   atomic RMW          ownership + the atomic's extra cost;
 *   "none" machines     (TILE64 home tiles) no copies: every access away from the home costs L(w, home);
 *
 * one ownership transfer at a time per line (a request at t on a line busy until t_b starts at
 * max(t, t_b); reads wait for a transfer in flight), every miss queued at its line's directory slice
 * (the machine's coherence.occupancy), every line transfer queued at the ports of the links it crosses
 * (interconnect.links), and on multi-socket machines a transfer between two nodes other than the line's
 * home node priced requester -> home -> owner -> requester (coherence.three_leg), and a participant's
 * hits and atomic extras stretched by its SMT siblings spinning without a pause (coherence.smt_issue).
 * Contention is this queueing and sharing, not a coefficient.
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

/* The OS scheduler of participants beyond the hardware threads (os_sched.c, docs/sim.md): 004 §VII's
 * baseline round robin, or its critical-section-aware policy (CSA, 004 §VII-A). */
enum sim_sched { SIM_SCHED_RR, SIM_SCHED_CSA };

/* One stretch a participant ran on its hardware thread (tests: sim_opts.trace). queued: another
 * participant waited in that hardware thread's run queue when it began; prio: it had CSA priority then;
 * passed_over: a participant with CSA priority was left waiting in the queue while one without ran. */
struct sim_os_span {
    unsigned p, cpu;
    double start, end;
    int queued, prio, passed_over;
};
struct sim_os_trace {
    struct sim_os_span *span;
    unsigned n, cap;     /* spans beyond cap are counted in n, not kept */
};

/* The synchronization calls a workload makes (004 Table XI's rows, and signal), workload.c */
enum sim_sync_op { SY_LOCK_EMPTY, SY_LOCK_QUEUED, SY_UNLOCK, SY_BARRIER, SY_BROADCAST, SY_SIGNAL, SY_COND_WAIT,
                   SY_NOPS };
extern const char *const sim_sync_op_names[SY_NOPS];

/* (episodes + 1) x participants at most: the per-episode samples (arrival, departure, sleep) of a run */
#define SIM_MAX_SAMPLES (UINT64_C(1) << 27)

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
    /* The wait policy (issue 12 item 2). sleeps = 0: spin (a waiter notices a store at once). Otherwise
     * a waiter spins for spin_ns of virtual time, then polls with sched_yield for yield_ns (noticing a
     * store within one sched_yield), then sleeps in a futex: it pays futex_wait to fall asleep, the
     * store that concerns it costs the storer a futex_wake, and it resumes a wake-up latency later (the
     * machine's os block, sim_machine.os_ns). A sleeper is woken only by a store to its own flag. */
    int sleeps;
    double spin_ns, yield_ns;  /* yield_ns may be INFINITY: yield forever (the yield policy) */
    double lead_ns;            /* hybrid's lead_ns: a group leader (flag_wait_lead) spins this long, keeping its
                                * hardware thread, before the policy above (flag_backend.c, sim_wait_lead) */
    int shared_first;          /* --layout shared-first: the lines' homes and directory slices hash from addresses
                                * with the algorithm's lines before the participants' own (directory.c,
                                * sim_line_hash), so they keep one address for every count as 003's barriers
                                * did (003 §5.3, Fig. 6); the layout itself is andgate's either way */
    int streaming;             /* plain stores write whole lines without reading them (003 §2) */
    int paused;                /* spinning waiters pause (--wait pause, and a hybrid's spin phase): they leave
                                * their core's issue to their SMT siblings (003 §2's delay instruction halts
                                * fetch and issue), and a hand-off's re-read costs coherence.paused_transfer */
    double delay_ns;           /* > 0 (--wait pause:delay_ns=N, paused = 0): a spinning waiter polls every
                                * self-layer hit + delay_ns of its own clock (poll_delay.c): it notices a
                                * store at its next poll and takes that hit's share of its core's issue */
    double delay_max_ns;       /* > delay_ns (--wait backoff:max_ns=N): the delay doubles after each poll,
                                * from delay_ns up to this; otherwise the delay stays delay_ns */
    double split_ns;           /* > 0: split phase, arrive, this much independent work, then depart; the
                                * latency is then last departure - (last arrival + split_ns) */
    /* more participants than hardware threads (os_sched.c): the policy and its time slice */
    enum sim_sched sched;
    double timeslice_ns;       /* 0: 004 §VII's 1 ms */
    int broken_sync;           /* tests only, the checks must fail: 1 the software mutex lets every locker in,
                                * 2 its condition's signal and broadcast wake nobody (a lost wake-up) */
    struct sim_os_trace *trace; /* tests: the stretches each participant ran, or NULL */
    /* a workload instead of barrier episodes (workload.c): prodcons or phases, NULL: barrier episodes */
    const char *workload;
    unsigned items;            /* prodcons: items produced; phases: phases (episodes is then unused) */
    double cs_ns;              /* compute inside each critical section */
};

struct sim_os_stats {
    uint64_t switches, preemptions, csa_grants, csa_expiries;
    double max_ready_wait_ns;  /* the longest a ready participant waited for its hardware thread */
};

struct sim_op_stat {
    uint64_t n;
    double sum_ns;
};

struct sim_wl_result {
    double makespan_ns;        /* first start to last participant's end */
    double cs_ns;              /* Σ time from a lock call's return to its unlock (004 Fig. 11's measure) */
    uint64_t produced, consumed, checksum_ok;
    struct sim_op_stat op[SY_NOPS];
};

struct sim_traffic {
    uint64_t reads_local, reads_remote, writes, invalidations, rmws;
    uint64_t sc_fails;         /* store-exclusives that failed (exclusive-pair atomics, sim_charge_rmw) */
};

struct sim_result {
    int ok;
    char error[400];
    char describe[200];
    char chosen[200];                          /* an adaptive algorithm's choice after the run (tune), or "" */
    double median_ns, min_ns, p99_ns, mean_ns; /* virtual: last arrival -> last departure per episode;
                                                * epcc: the episode's period (last departure to last
                                                * departure) minus the compute charged, as EPCC's
                                                * overhead per barrier */
    double cpu_ns_per_episode;                 /* Σ over participants of the time inside the barrier,
                                                * less the time asleep */
    unsigned episodes;                         /* measured */
    unsigned run_episodes;                     /* run: one unmeasured warm-up episode more (first touches) */
    struct sim_traffic traffic;                /* per run (divide by run_episodes) */
    uint64_t operations;                       /* simulated flag operations */
    int oversubscribed;                        /* participants outnumbered hardware threads */
    struct sim_os_stats os;
    struct sim_wl_result wl;                   /* workloads only */
};

/* Runs o->episodes episodes with o->n simulated participants, checking on the way that no participant
 * leaves an episode before all arrived and that exactly one gets AG_SERIAL. 0, EINVAL (bad spec,
 * placement; message in r->error) or -1 (a semantic check failed, a deadlock). */
int sim_run(const struct sim_opts *o, struct sim_result *r);

#endif
