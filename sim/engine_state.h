/* engine_state.h — the state of one simulation, shared by the engine's parts (private to sim/):
 * sched.c (the ready set and coroutine resumption), coherence.c (line bookkeeping and costs),
 * flag_backend.c (the sim side of the primitive layer), hw_episode.c (hardware barrier episodes) and
 * engine.c (a run: setup, participants, checks, measurement, cleanup). Single-threaded: one coroutine
 * runs at a time, so nothing here needs atomics. */
#ifndef AG_SIM_ENGINE_STATE_H
#define AG_SIM_ENGINE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "algo.h"
#include "coro.h"
#include "engine.h"
#include "hw.h"


enum { RUNNABLE, WAITING, DONE };
/* A resource that serves one request per slot (a directory slice, a link port; slots.c): the slots taken,
 * as runs [start, end) of slot ids, in run[head, head + n); run is inl until more than fit there (one
 * cache line for the common resource, with a run or two). run may point into the record: never copied. */
struct slot_run {
    int64_t start, end;
};
#define SLOT_RUNS_INLINE 2
struct slot_res {
    struct slot_run *run;
    unsigned head, n, cap;
    struct slot_run inl[SLOT_RUNS_INLINE];
} __attribute__((aligned(64)));

struct part {
    struct coro co;
    double clock;
    double drained;       /* when this participant's last buffered store completes (is visible) */
    int state;
    unsigned hw;          /* hardware thread */
    int next_waiter;      /* waiting: the next participant waiting on the same line, -1 */
    double wait_t0;       /* waiting: when its flag_wait began (the wait policy's budgets count from it) */
    uint32_t wait_slot;   /* waiting: the flag it waits for (a sleeper wakes only for that one) */
    double lead_until;    /* a group leader's lead spin (sim_wait_lead): it keeps its hardware thread and sits in
                           * the ready set keyed at this time (its timer), 0: not in one */
    double lead_from;     /* its clock when the lead spin began */
    int spin_woken;       /* enum sim_xfer: woken by a store while it spun (SPUN, or PAUSED when it polled with
                           * pause), its next read is a hand-off's re-read; else COLD, any transfer to it is
                           * cold (coherence.c) */
    double slept;         /* time asleep so far (not CPU time) */
    int serial;           /* hardware barriers: this participant is the episode's last */
    /* the OS model (os_sched.c), with more participants than hardware threads */
    int on_cpu;           /* it holds its hardware thread now */
    int qnext;            /* next in its hardware thread's run queue, -1 */
    double off_since;     /* when it left its hardware thread (queued or blocked) */
    double enq_at;        /* when it joined the run queue (its wait for the CPU counts from here) */
    double wake_cost;     /* a wake onto an idle hardware thread costs this (os.wakeup for a futex) */
    unsigned held;        /* mutexes held (CSA: inside a critical section, 004 §VII-A) */
    int entering;         /* woken to take a mutex (CSA: about to enter one) */
    double csa_since;     /* when it gained CSA priority, -1: it has none */
    int csa_expired;      /* its CSALimit ran out in this critical section: RR until it leaves */
    struct ag_lane lane;  /* its way into the barrier (algo.h) */
};

struct copy {
    unsigned p;
    double ready;         /* a copy can supply others only from the time it arrived */
};

/* A line's first copies are kept in the line itself, and its sharer bitset is kept only once it has had
 * more: the common line (a flag with one writer and a reader or two) is then one pair of adjacent cache
 * lines of the simulator, not three scattered blocks (at 1024 participants the bitset alone is 128 bytes,
 * and the misses on it were a tenth of the run). */
#define SIM_LINE_INLINE 4
struct line {
    int owner;            /* -1: none holds it exclusively */
    int home;             /* attach unit, -1 until assigned */
    int dir;              /* directory slice (occupancy), -1 until assigned */
    int waiters;          /* first participant waiting on this line, -1 */
    unsigned ncp, capcp;
    struct copy *cp;      /* the participants holding a shared copy, with the time each copy arrived:
                           * inl while capcp == SIM_LINE_INLINE, else an allocation */
    uint64_t *sharers;    /* the same participants as a bitset, valid only while capcp > SIM_LINE_INLINE */
    double busy_until;    /* ownership transfers are served one at a time */
    uint64_t stores;      /* stores so far: a reader that saw an older value must not sleep through one */
    struct copy inl[SIM_LINE_INLINE];
} __attribute__((aligned(64)));

/* An entry of the ready set: a participant and its clock when it entered (or was reordered), the clock
 * as the bits of the double (a clock is >= 0, and non-negative doubles order as their bits do), so that
 * the heap's comparisons are integer ones on one array rather than reads of the participants' records. */
struct ready {
    uint64_t clock;
    unsigned p;
};

struct sim {
    const struct sim_opts *o;
    const struct sim_machine *m;
    unsigned n, words, cur, line_slots;
    uint32_t xfer_layers; /* the layers a transfer between two participants can use (bit k: layer k): the
                           * machine's pairs', and the self layer when participants share hardware threads */
    struct part *part;
    struct line *lines;
    uint32_t nlines;
    struct slot_res *dirs;  /* [m->ndir]: each directory slice's request slots (directory.c) */
    struct slot_res *ports; /* per link class of m->link, per unit: its out and in ports (links.c) */
    int *on_hw;              /* [m->threads]: the participant on each hardware thread, -1 (smt.c) */
    uint64_t *slots;
    struct coro main;
    uint64_t rng;
    struct ready *ready;  /* binary heap by (clock, index) (fixed schedule) or unordered set (random) */
    unsigned nready;
    double low_water;     /* random schedule: a time no later request is issued before (sim_low_water) */
    unsigned pops;        /* random schedule: pops since low_water was last found */
    const struct ag_algo *algo;
    struct ag_run run;
    ag_frange_t self;
    struct sim_hw_ctx hwc;
    unsigned hw_count;    /* hardware barrier: arrivals registered in this episode */
    double hw_tmax;
    int hw_last;
    /* checks and measurements */
    uint64_t arrived;
    unsigned run_episodes; /* one unmeasured warm-up episode, then o->episodes measured ones */
    unsigned *serial;
    double *arr, *dep;    /* [episode][participant] */
    double *slp;          /* [episode][participant]: time asleep in the episode */
    struct sim_result *res;
    int quiet;            /* setting up: flag operations take effect, cost nothing and do not schedule */
    struct sim_os *os;    /* the OS model when participants outnumber hardware threads, else NULL */
    struct sim_wl *wl;    /* a workload's state (workload.c), else NULL */
};

extern struct sim *S; /* the simulation running now (the engine is single-threaded) */

/* sched.c */
uint64_t sim_next_rand(struct sim *s);
void sim_ready_push(struct sim *s, int p);
void sim_ready_update(struct sim *s, int p); /* p, in the ready set, got an earlier clock: reorder it */
int sim_ready_pop(struct sim *s);
void sim_yield(struct sim *s);
void sim_switch_away(struct sim *s); /* the running participant's turn ends: the next one runs */
int sim_is_next(struct sim *s); /* the running participant is still the one to run (fixed schedule) */
/* A time no request issued from now on starts before (slots.c keeps every reservation from it on) */
double sim_low_water(const struct sim *s);
int sim_schedule(struct sim *s);

/* coherence.c: the running participant's read, or plain store, of flag slot i, in virtual time; and
 * a read-modify-write as the machine's atomics do it (ARMv8.0: an exclusive load/store loop that
 * yields between the two); 0: a CAS's compare failed at the load (*seen: the value it read) */
void sim_charge_read(struct sim *s, uint32_t i);
void sim_charge_write(struct sim *s, uint32_t i);
int sim_charge_rmw(struct sim *s, uint32_t i, const uint64_t *cmp, uint64_t *seen);

/* slots.c: a resource serving one request per slot of w ns; sim_slots_take reserves need slots from t on
 * and returns when the first one starts. low: a time no request placed from now on starts before (the
 * caller's sim_low_water; low <= t). Every reservation at or after low is kept, however many
 * (tests/sim/test_slots.c); free releases what the runs outgrew the record with. */
void sim_slots_init(struct slot_res *r);
void sim_slots_free(struct slot_res *r);
/* n resources, each initialized, in one cache-aligned array (NULL: no memory); and their release */
struct slot_res *sim_slots_array(unsigned n);
void sim_slots_array_free(struct slot_res *r, unsigned n);
double sim_slots_take(struct slot_res *r, double t, double w, unsigned need, double low);
/* How many requests so far may have missed a reservation: they came with a low-water time after their
 * own, or a reservation was dropped for want of memory (none while sim_low_water is a bound and memory
 * lasts; test_sim checks it over random schedules) */
unsigned long sim_slots_early(void);

/* directory.c: a miss queues at its line's directory slice; returns when the slice takes it. Init and
 * free also set up and release the link ports. */
int sim_dir_init(struct sim *s);
void sim_dir_free(struct sim *s);
double sim_dir_take(struct sim *s, struct line *l, double t, double extra);
uint64_t sim_line_hash(const struct sim *s, const struct line *l);

/* links.c: a line transfer from hardware thread `from` to `to` issued at t queues at the ports of every
 * link class it crosses; returns when it can start */
int sim_links_init(struct sim *s);
void sim_links_free(struct sim *s);
double sim_link_take(struct sim *s, unsigned from, unsigned to, double t);

/* smt.c: SMT siblings share their core's issue: the factor by which the running participant's
 * core-bound steps (a hit, an atomic's extra) stretch now */
int sim_smt_init(struct sim *s);
void sim_smt_free(struct sim *s);
double sim_issue_share(const struct sim *s);

/* poll_delay.c: pause:delay_ns (sim_opts.delay_ns > 0): the share of its core's issue a delayed poller
 * takes, and the instant at which waiter w, polling from w->wait_t0, notices a store made at t */
double sim_poll_duty(const struct sim *s);
double sim_next_poll(const struct sim *s, const struct part *w, double t);

/* flag_backend.c: a store to slot i's line became visible */
void sim_wake_line(struct sim *s, uint32_t i);

/* hw_episode.c: one episode of participant tid on the hardware barrier device */
int sim_hw_episode(struct sim *s, unsigned tid);

/* os_sched.c: the OS model (more participants than hardware threads; NULL s->os: none of this applies).
 * A participant leaves its hardware thread at t (it waits or sleeps); one woken at t with idle_cost (what
 * an idle hardware thread charges to resume it) becomes runnable; compute of ns, cut at time slices. */
int sim_os_init(struct sim *s, char *err, size_t len);
void sim_os_free(struct sim *s);
int sim_os_starts(struct sim *s, unsigned p);
void sim_os_resumed(struct sim *s);
int sim_os_tick(struct sim *s);
void sim_os_leave(struct sim *s, double t);
void sim_os_wake(struct sim *s, unsigned q, double t, double idle_cost);
void sim_compute(struct sim *s, double ns);
void sim_os_cs_changed(struct sim *s, unsigned p);

/* workload.c: a workload's run (NULL s->wl: barrier episodes); slots: its flag slots past base */
uint32_t sim_wl_slots(struct sim *s, uint32_t base);
int sim_wl_setup(struct sim *s, char *err, size_t len);
void sim_wl_participant(struct sim *s);
void sim_wl_finish(struct sim *s);
void sim_wl_free(struct sim *s);

/* engine.c: a participant's end (it never returns) */
void sim_done(struct sim *s);

/* engine.c: the first failure of a run, kept in its result */
void sim_fail(struct sim *s, const char *msg);

#endif
