/* barwait_isa.h — the semantics of 000 §4.1's x64 barrier ISA (seed 000_15c0f7e7309a66d9, §4.1 "ISA and
 * kernel integration", with the P/S encoding of §4.2): create_barrier (the kernel's vetting, a group MSR
 * holding P and the timeout t), the privileged barinit, the unprivileged barwait, per-group timeouts and
 * context switches, as a step-driven model in virtual time (cycles). No real threads.
 *
 * The latency of an episode is hw-barwait's (sim/hw/barwait.c); here every transition is immediate and
 * the point is which thread is released, refused or failed, and when. The rules, their sources in 000 and
 * what is assumed: docs/sim-hw.md, "hw-barwait: the ISA's semantics".
 */
#ifndef AG_SIM_BARWAIT_ISA_H
#define AG_SIM_BARWAIT_ISA_H

#include <stdint.h>

/* One 64-bit MSR of n bits per group (000 §4.1; footnote 1's clustering of wider masks is not modeled). */
#define BWI_MAX_THREADS 64
/* m when the caller has no figure: 000 §4.2's example, "support for 128 simultaneous subset barriers" on a
 * 4-socket, 28-core, SMT-2 system; 000 §4.1 says m is implementation-specific. */
#define BWI_M_EXAMPLE 128

enum bwi_status {
    BWI_OK = 0,        /* done: barwait completed the episode (the caller is the last arriver);
                        * create/barinit/destroy/deschedule/resume accepted */
    BWI_BLOCKED,       /* barwait: arrival recorded in S, the hardware thread waits */
    /* barwait faults, all #GP(0) (assumed: 000 names no fault; #GP is what x64 raises for an invalid
     * operand of a system instruction, e.g. wrmsr to an unimplemented MSR) */
    BWI_E_NOGROUP,     /* index >= m, or no group allocated at it for the caller's process */
    BWI_E_NOTMEMBER,   /* the executing hardware thread's bit is not in P */
    BWI_E_BROKEN,      /* the group timed out and not every member has executed barinit since */
    BWI_E_PRIV,        /* barinit at CPL 3: it is privileged (000 §4.1) */
    BWI_E_BUSY,        /* the thread cannot issue this now: it is blocked in barwait, descheduled,
                        * or (destroy) a member is still inside a barwait on the group */
    /* create_barrier refusals (the kernel's vetting, 000 §4.1) */
    BWI_E_TIMEOUT,     /* timeout 0 or above the kernel's maximum (EINVAL) */
    BWI_E_MASK,        /* empty, a bit >= n, or a thread outside the caller's process (EPERM) */
    BWI_E_NOSPACE,     /* all m group MSRs in use (ENOSPC) */
};

enum bwi_event_kind {
    BWI_EV_RELEASE,    /* the thread's barwait returned success for this episode */
    BWI_EV_FAIL,       /* the episode timed out: the thread's barwait failed (waiting = 1), or the
                        * kernel signalled a member that was not in barwait (waiting = 0) */
};

struct bwi_event {
    enum bwi_event_kind kind;
    unsigned thread, group;
    uint64_t episode;  /* of the group, counted from 0 at create_barrier (an observer's count) */
    uint64_t time;     /* virtual time, cycles */
    int last;          /* RELEASE: this thread's arrival completed the episode */
    int waiting;       /* FAIL: the thread was inside barwait (possibly descheduled) */
};

typedef void (*bwi_emit_fn)(void *arg, const struct bwi_event *ev);

enum bwi_run { BWI_RUNNING, BWI_WAITING, BWI_OFF };

struct bwi_thread {
    unsigned proc;          /* process the kernel allots this hardware thread to */
    enum bwi_run run;       /* OFF: its context is switched out */
    unsigned g;             /* WAITING, or OFF with wait_saved: the group of its barwait */
    int wait_saved;         /* OFF: the context was switched out inside barwait */
    int saved;              /* OFF inside barwait: 0 pending, 1 completed, -1 timed out meanwhile */
    uint64_t saved_ep;      /* the episode it arrived in */
};

struct bwi_group {
    int used;
    unsigned owner;         /* process that created it */
    uint64_t p, s;          /* 000 §4.2: P has 0 at participants, 1 elsewhere; S starts as P, an arrival
                             * sets the bit, the AND of S (S == all ones) completes */
    uint64_t t;             /* timeout, cycles */
    uint64_t need_init;     /* broken: members that have not executed barinit since the timeout */
    int armed;              /* some member arrived in this episode: deadline is live */
    uint64_t deadline;      /* first arrival of the episode + t */
    uint64_t episode;
};

struct bwi {
    unsigned n, m;
    uint64_t tmax, now, ones;  /* ones: the n low bits */
    struct bwi_group *grp;     /* m */
    struct bwi_thread th[BWI_MAX_THREADS];
    bwi_emit_fn emit;
    void *arg;
};

/* n hardware threads (1..64), m groups (>= 1), the kernel's largest timeout tmax (> 0). All threads
 * running in process 0. -1 on bad arguments or no memory. */
int bwi_init(struct bwi *b, unsigned n, unsigned m, uint64_t tmax, bwi_emit_fn emit, void *arg);
void bwi_free(struct bwi *b);
/* The kernel allots hardware thread hw to process proc (its allowed set); only while no group names hw. */
int bwi_set_process(struct bwi *b, unsigned hw, unsigned proc);

/* Every call takes the current virtual time (nondecreasing); timeouts due at or before it fire first. */
void bwi_advance(struct bwi *b, uint64_t now);
/* create_barrier(thread_list, timeout) by process proc: vetting, then the lowest free MSR; *id on OK. */
enum bwi_status bwi_create(struct bwi *b, uint64_t now, unsigned proc, uint64_t mask, uint64_t t, unsigned *id);
/* Frees a group (assumed syscall: 000 implies MSRs become unused but names no call). */
enum bwi_status bwi_destroy(struct bwi *b, uint64_t now, unsigned proc, unsigned id);
/* barinit id on hardware thread hw; privileged: 0 for user mode (refused). */
enum bwi_status bwi_barinit(struct bwi *b, uint64_t now, unsigned hw, unsigned id, int privileged);
/* barwait id on hardware thread hw. */
enum bwi_status bwi_barwait(struct bwi *b, uint64_t now, unsigned hw, unsigned id);
/* The kernel switches hw's context out, and later back in on the same hardware thread. */
enum bwi_status bwi_deschedule(struct bwi *b, uint64_t now, unsigned hw);
enum bwi_status bwi_resume(struct bwi *b, uint64_t now, unsigned hw);

/* Members of group id as a plain mask (1 = participant), 0 if unused. */
uint64_t bwi_members(const struct bwi *b, unsigned id);
/* Members whose arrival is recorded in S now. */
uint64_t bwi_arrived(const struct bwi *b, unsigned id);
int bwi_broken(const struct bwi *b, unsigned id);
const char *bwi_status_name(enum bwi_status s);

#endif
