/* sync_subutai.c — a workload's primitives on Subutai-HW (workload.h; 004 §III-D, §IV, §V): every mutex
 * lock / unlock, condition wait / signal / broadcast and barrier wait is a request packet to the FSM and
 * SPM of sim/hw/subutai_fsm.c, which counts its latency access by access (004 Tables III-IV).
 *
 * Where the primitives live: all of a workload's primitives (at most 4: the SPM's control structures,
 * 004 §V-B) in NI_0's Subutai-HW. 004 §III-D places each new primitive on the next NI (an incremental
 * counter), but the FSM model serves a condition's signal by reading its mutex's value word in the same
 * SPM, and 004 does not say how a condition and a mutex on two NIs would cooperate; keeping them together
 * is this model's assumption (docs/sim-hw.md).
 *
 * Timing of one request by participant p at t (ns):
 *   the request's head reaches NI_0 at t + to_p (to_p = router hops x hop, 0 on NI_0's own core), the
 *   FSM serves requests one at a time in the engine's order: s = max(arrival, FSM free); it is busy
 *   until s + the request's latency (FSMentry + accesses x m + cycles x c + FSMexit);
 *   an answer packet injected at s + its offset (subutai_fsm.h: suf_pkt.at) reaches participant q at
 *   + to_q + (flits - 1) c (its tail; 0 on NI_0's core);
 *   a call with no answer (unlock, signal, broadcast; 004 §VIII-E: "no response packet ... can return to
 *   the application immediately after the request packet is sent") costs the caller the injection of
 *   its request, flits x c (one 32-bit flit per NI cycle: assumed, as the barrier device's tail);
 *   a caller whose request was queued gives its hardware thread away (os_sched.c) until the packet that
 *   names it arrives.
 * Not modeled: the system call, driver and interrupt around the NI (004 §IV, Fig. 4): 004 gives no cost
 * for them, so a queued caller on an idle hardware thread resumes when its packet arrives. */
#define _GNU_SOURCE
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "subutai_fsm.h"

#define DEV "hw-subutai"

struct su {
    struct suf fsm;
    double free_at;          /* the FSM is busy until */
    double inject;           /* a request packet's injection, flits x c */
    double tail;             /* an answer's tail behind its head, (flits - 1) x c */
    unsigned id[SUF_NCTRL];  /* [mutexes, conditions, the barrier]: their control structures */
    unsigned nmutex, ncond;
    double *to;              /* [participant]: hops to NI_0 x hop */
    double *answer;          /* [participant]: when its last answer packet arrives (-1: none yet) */
};

static struct su *su(struct sim *s) { return s->wl->sync; }

static int su_alloc(struct su *u, enum suf_kind kind, unsigned max, unsigned *id, char *err, size_t len)
{
    struct suf_res r;
    struct suf_req q = { .op = SUF_ALLOC, .kind = kind, .max = max };
    if (suf_request(&u->fsm, &q, &r) != SUF_OK)
        return snprintf(err, len, DEV ": the SPM has no control structure for the workload's primitive "
                        "(4 per NI, 004 §V-B)"), -1;
    *id = r.id;
    return 0;
}

static int su_setup(struct sim *s, unsigned nmutex, unsigned ncond, char *err, size_t len)
{
    struct suf_params prm;
    double flits;
    if (suf_params_load(s->m, &prm, err, len))
        return -1;
    if (sim_machine_param(s->m, "interconnect.parameters.sync_packet_flits", &flits, err, len))
        return -1;
    if (s->m->attach < 0 || !s->m->pos)
        return snprintf(err, len, DEV ": %s has no interconnect coordinates for the NIs", s->m->name), -1;
    if (s->n > SUF_NENT + 1)
        return snprintf(err, len, DEV ": %u participants, but the SPM queue holds %u waiting threads (004 §V-B)",
                        s->n, SUF_NENT), -1;
    if (nmutex + ncond + 1 > SUF_NCTRL)
        return snprintf(err, len, DEV ": the workload needs more than 4 primitives"), -1;
    struct su *u = calloc(1, sizeof *u);
    s->wl->sync = u;
    if (!u || !(u->to = calloc(s->n, sizeof *u->to)) || !(u->answer = calloc(s->n, sizeof *u->answer)))
        return snprintf(err, len, "out of memory"), -1;
    suf_init(&u->fsm, &prm, SUF_NENT);
    u->nmutex = nmutex, u->ncond = ncond;
    u->inject = flits * prm.c;
    u->tail = flits >= 1 ? (flits - 1) * prm.c : 0;
    u->free_at = -INFINITY;
    for (unsigned k = 0; k < nmutex + ncond + 1; k++) /* set up by the OS driver before the run: untimed */
        if (su_alloc(u, k < nmutex ? SUF_MUTEX : k < nmutex + ncond ? SUF_COND : SUF_BARRIER, s->n, &u->id[k], err, len))
            return -1;
    for (unsigned t = 0; t < s->n; t++)
        u->to[t] = sim_machine_hops(s->m, sim_machine_attach_unit(s->m, s->part[t].hw), 0) * s->m->hop_ns;
    return 0;
}

static void su_teardown(struct sim *s)
{
    struct su *u = su(s);
    if (u)
        free(u->to), free(u->answer), free(u);
    s->wl->sync = NULL;
}

/* One request of the running participant; its answer packets delivered. 1 if the caller waits for a
 * packet not sent yet (queued), else 0 with its clock at its own answer or after its injection. */
static int request(struct sim *s, enum suf_op op, unsigned k, unsigned mutex, int entering)
{
    struct su *u = su(s);
    unsigned me = s->cur;
    struct part *p = &s->part[me];
    struct suf_req q = { .op = op, .id = u->id[k], .thread = me, .mutex = u->id[mutex] };
    struct suf_res r;
    double start = fmax(p->clock + u->to[me], u->free_at);
    enum suf_status st = suf_request(&u->fsm, &q, &r);
    if (st != SUF_OK && st != SUF_QUEUED) {
        sim_fail(s, DEV ": the FSM refused a workload's request");
        return 0;
    }
    u->free_at = start + r.t;
    u->answer[me] = -1;
    for (unsigned j = 0; j < r.npkt; j++) {
        unsigned w = r.pkt[j].thread;
        double at = start + r.pkt[j].at + (u->to[w] > 0 ? u->to[w] + u->tail : 0);
        if (w == me) {
            u->answer[me] = at;
            continue;
        }
        if (entering) /* a mutex's grant: it holds the mutex when it resumes (CSA) */
            wl_entering(s, w);
        sim_os_wake(s, w, at, 0);
    }
    if (st == SUF_QUEUED) {
        p->state = WAITING;
        sim_os_leave(s, p->clock + u->inject);
        sim_yield(s);
        return 1;
    }
    p->clock = u->answer[me] >= 0 ? u->answer[me] : p->clock + u->inject;
    return 0;
}

static int su_lock(struct sim *s, unsigned m) { return request(s, SUF_LOCK, m, m, 1); }
static void su_unlock(struct sim *s, unsigned m) { request(s, SUF_UNLOCK, m, m, 1); }

static void su_cond_wait(struct sim *s, unsigned c, unsigned m)
{
    request(s, SUF_COND_WAIT, su(s)->nmutex + c, m, 1);
}

static void su_signal(struct sim *s, unsigned c, unsigned m) { request(s, SUF_SIGNAL, su(s)->nmutex + c, m, 1); }
static void su_broadcast(struct sim *s, unsigned c, unsigned m) { request(s, SUF_BROADCAST, su(s)->nmutex + c, m, 1); }

/* The barrier: the caller that completes the count is answered first (004's first packet); one answer
 * per participant, so exactly one is the last: AG_SERIAL for it. */
static int su_barrier(struct sim *s)
{
    struct su *u = su(s);
    return request(s, SUF_BARRIER_WAIT, u->nmutex + u->ncond, 0, 0) ? 0 : AG_SERIAL;
}

const struct sim_sync sim_sync_subutai = {
    .name = DEV,
    .setup = su_setup,
    .lock = su_lock,
    .unlock = su_unlock,
    .cond_wait = su_cond_wait,
    .signal = su_signal,
    .broadcast = su_broadcast,
    .barrier = su_barrier,
    .teardown = su_teardown,
};
