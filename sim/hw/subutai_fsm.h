/* subutai_fsm.h — a functional model of one Subutai-HW (004, seed 004_bffc6c40a88a61a2, §V-A and §V-B,
 * Figures 6-7, Tables III-IV): the FSM and its scratchpad (SPM) serving mutex lock/unlock, condition
 * wait/signal/broadcast, barrier wait, and the allocation/deallocation of primitives, one request at a time.
 *
 * The SPM is 1 KiB of 32-bit words (004 §V-B: "1 KiB ... 4 control structures, and 122 queue entries"):
 * control structure i = words 3i..3i+2 (Fig. 6: F|NI ID|self pointer; queue head|tail; value|max value),
 * queue entry e = two words after the 4 control structures (Fig. 7: F|prev|R|next; thread ID|core ID).
 * 4 x 96 bits + 122 x 64 bits = 1024 bytes. Free entries form a doubly linked list whose head is an FSM
 * register (004 §V-B: registers "to handle the free queue"), built at initialisation as the OS driver does.
 *
 * Each request's latency is counted, not looked up: every SPM read or write of the state is one m, every
 * FSM cycle that touches no SPM (a packet handed to the NI, a decision) one c, plus FSMentry + FSMexit
 * (004 §V-B). Which states' operation lists are the paper's and which are reconstructed: subutai_fsm.c
 * and docs/sim-hw.md ("hw-subutai: the FSM").
 */
#ifndef AG_SIM_SUBUTAI_FSM_H
#define AG_SIM_SUBUTAI_FSM_H

#include <stddef.h>
#include <stdint.h>

#define SUF_NCTRL 4     /* control structures in 1 KiB (004 §V-B) */
#define SUF_NENT 122    /* queue entries in 1 KiB (004 §V-B) */
#define SUF_WORDS (3 * SUF_NCTRL + 2 * SUF_NENT)
#define SUF_NIL 0x7fffu /* a 15-bit queue pointer that points nowhere (Fig. 7: prev, next) */
#define SUF_NONE 0xffffu /* value field: no owner (a thread ID is < 0xffff) */
#define SUF_MAXPKT (SUF_NENT + 2)

enum suf_kind { SUF_MUTEX = 1, SUF_COND, SUF_BARRIER };

enum suf_op { SUF_ALLOC, SUF_DEALLOC, SUF_LOCK, SUF_UNLOCK, SUF_BARRIER_WAIT, SUF_COND_WAIT, SUF_SIGNAL,
              SUF_BROADCAST };

enum suf_status {
    SUF_OK = 0,     /* done; the requester continues (its answer packet is in pkt[] when it gets one) */
    SUF_QUEUED,     /* the requester waits in an SPM queue; a later request's packet releases it */
    SUF_EAGAIN,     /* no free queue entry (004 §V-A: POSIX EAGAIN) */
    SUF_ENOSPC,     /* no free control structure: Subutai falls back to SW-only (004 §V-A) */
    SUF_EDEADLK,    /* mutex lock by its owner (assumed, seen by the FSM in the owner field) */
    SUF_EPERM,      /* unlock / cond wait by a thread that does not own the mutex (assumed, Subutai-SW) */
    SUF_EINVAL,     /* unknown id, wrong kind, a second mutex on a cond with waiters (assumed, Subutai-SW) */
    SUF_EBUSY       /* dealloc of a primitive in use (assumed, Subutai-SW; POSIX destroy) */
};

struct suf_params {
    double c, m, entry, exit; /* ns: FSM cycle, SPM access, FSMentry, FSMexit (004 Table IV caption) */
};

struct suf_pkt {
    unsigned thread; /* who the packet lets go on: lock granted, barrier released, cond waiter holds the mutex */
    double at;       /* injection time from the request's arrival at the FSM (FSMentry included) */
};

struct suf_req {
    enum suf_op op;
    unsigned id;     /* the primitive (a control structure index); SUF_ALLOC: ignored */
    unsigned thread; /* requester (< SUF_NONE) */
    unsigned mutex;  /* SUF_COND_WAIT, SUF_SIGNAL, SUF_BROADCAST: the associated mutex's id */
    enum suf_kind kind; /* SUF_ALLOC */
    unsigned max;    /* SUF_ALLOC of a barrier: participants */
};

struct suf_res {
    enum suf_status st;
    int fsm;          /* 1: the request went through the FSM; 0: refused before it (Subutai-SW) */
    unsigned mops, cyc; /* SPM accesses and FSM cycles charged */
    double t;         /* latency: entry + mops m + cyc c + exit when fsm, else 0 */
    unsigned id;      /* SUF_ALLOC: the new primitive */
    unsigned npkt;
    struct suf_pkt pkt[SUF_MAXPKT];
};

struct suf {
    struct suf_params p;
    uint32_t spm[SUF_WORDS];
    unsigned fh;      /* register: head of the free entry list (SUF_NIL: none) */
    unsigned nent;    /* queue entries built into the free list at init (<= SUF_NENT) */
    enum suf_kind kind[SUF_NCTRL]; /* Subutai-SW's knowledge: the C type of each allocated id */
    unsigned cv_mx[SUF_NCTRL];     /* Subutai-SW's knowledge: the mutex a cond's waiters passed */
    unsigned brk;     /* tests only: SUF_BRK_* rule deliberately broken */
    /* the request in progress */
    struct suf_res *r;
};

enum { SUF_BRK_NONE, SUF_BRK_LIFO, SUF_BRK_LEAK, SUF_BRK_BARRIER_EARLY };

struct sim_machine;
/* c, m, FSMentry, FSMexit from the machine's devices.subutai_ni (sim/machines/noc64.json, each sourced to
 * 004), refusing (-1, message in err) a machine without them or whose spm_control_structures and
 * spm_queue_entries are not this model's 4 and 122. */
int suf_params_load(const struct sim_machine *m, struct suf_params *p, char *err, size_t errlen);

/* An empty SPM with nent (<= SUF_NENT) queue entries in the free list; nent < SUF_NENT only in tests. */
void suf_init(struct suf *s, const struct suf_params *p, unsigned nent);
/* Serves one request through the FSM (or refuses it before); fills *r. */
enum suf_status suf_request(struct suf *s, const struct suf_req *q, struct suf_res *r);

/* Inspection for tests (no SPM time): owner (SUF_NONE: free) or barrier count, the queue of a primitive
 * (threads in order, returns the length, -1 if its links are inconsistent), free-list length (-1 if
 * inconsistent). */
unsigned suf_value(const struct suf *s, unsigned id);
int suf_queue(const struct suf *s, unsigned id, unsigned *threads, unsigned cap);
int suf_free_count(const struct suf *s);

#endif
