/* workload.h — multi-threaded workloads of andgate sim (issue 14 item 3; private to sim/): a workload's
 * participants compute, take mutexes, wait on conditions and meet at a barrier, with one of two
 * implementations of those primitives:
 *   software  (sync_futex.c) glibc's futex mutex and a futex condition variable whose atomics are flag
 *             operations of the coherence model and whose system calls, sleeps and wake-ups cost the
 *             machine's os block; the barrier is the library's algorithm of --algos under --wait;
 *   hw-subutai (sync_subutai.c) every call a request to Subutai-HW's FSM (sim/hw/subutai_fsm.h, 004 §V).
 * workload.c wraps each call: it times it (004 Table XI's rows), checks mutual exclusion and the
 * ownership rules, and tells the OS model (os_sched.c) who is inside a critical section (CSA). */
#ifndef AG_SIM_WORKLOAD_H
#define AG_SIM_WORKLOAD_H

#include "engine_state.h"

/* An implementation of the primitives. lock returns 1 when the caller had to wait (Table XI's "lock
 * queued"), 0 when it took a free mutex; barrier returns AG_SERIAL for one participant per episode. */
struct sim_sync {
    const char *name;
    int (*setup)(struct sim *s, unsigned nmutex, unsigned ncond, char *err, size_t len);
    int (*lock)(struct sim *s, unsigned m);
    void (*unlock)(struct sim *s, unsigned m);
    void (*cond_wait)(struct sim *s, unsigned c, unsigned m);
    void (*signal)(struct sim *s, unsigned c, unsigned m);
    void (*broadcast)(struct sim *s, unsigned c, unsigned m);
    int (*barrier)(struct sim *s);
    void (*teardown)(struct sim *s);
};
extern const struct sim_sync sim_sync_futex, sim_sync_subutai;

/* A workload: its primitives, its state, one participant's life, the checks at the end. */
struct sim_workload {
    const char *name;
    unsigned nmutex, ncond, nslots; /* nslots: flag slots of its own data (each on its own line) */
    int (*setup)(struct sim *s, char *err, size_t len);
    void (*body)(struct sim *s, unsigned tid);
    void (*check)(struct sim *s);    /* sim_fail on a broken invariant */
    void (*teardown)(struct sim *s);
};
extern const struct sim_workload sim_wl_prodcons, sim_wl_phases;

struct sim_wl {
    const struct sim_workload *w;
    const struct sim_sync *sy;
    uint32_t base;       /* first flag slot past the barrier's: the primitives' words, then the workload's */
    int *owner;          /* [mutex]: the participant holding it, -1 */
    double *cs_from;     /* [participant]: when its current critical section began */
    double t_end;
    double *iter_end;    /* [iteration]: when its last participant left it (the record's latencies) */
    unsigned niter;
    void *sync;          /* the implementation's state */
    void *state;         /* the workload's */
};

/* The flag slot of the workload's own data item k (each on its own line), and of the primitives' word k. */
uint32_t sim_wl_slot(const struct sim *s, unsigned k);
uint32_t sim_sync_slot(const struct sim *s, unsigned k);

/* The calls a workload makes (timed and checked here, served by s->wl->sy). */
void wl_lock(struct sim *s, unsigned m);
void wl_unlock(struct sim *s, unsigned m);
void wl_cond_wait(struct sim *s, unsigned c, unsigned m);
void wl_signal(struct sim *s, unsigned c, unsigned m);
void wl_broadcast(struct sim *s, unsigned c, unsigned m);
int wl_barrier(struct sim *s);
/* The workload runs niter iterations (a round, a phase): the record's latencies are their durations,
 * the first's from 0. wl_iteration_end: the running participant finished iteration k. -1: no memory. */
int wl_iterations(struct sim *s, unsigned niter);
void wl_iteration_end(struct sim *s, unsigned k);

/* A participant woken to take mutex or after a condition (CSA's "about to enter", os_sched.c). */
void wl_entering(struct sim *s, unsigned p);

#endif
