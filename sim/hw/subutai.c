/* subutai.c — "hw-subutai": the barrier of Subutai's NoC-interface synchronization hardware, 004
 * (seed 004_bffc6c40a88a61a2) §III-D and §V, served by the FSM model of sim/hw/subutai_fsm.c.
 *
 * Idea (004 §V-A, Figures 5-7): every network interface (NI) carries Subutai-HW, an FSM with a 1 KiB
 * scratchpad (SPM) of control structures and doubly linked queues. A barrier lives at one NI (an
 * incremental counter places primitives: NI_0 hosts the first, 004 §III-D). A barrier wait is a packet
 * to that NI (no packet when the host is the caller's own NI, flow tau_1 of Figure 4); the FSM queues the
 * caller, or, when the caller completes the count, answers it and then dequeues and answers every queued
 * thread, one packet each (the NoC has no broadcast; 004 Table VI note).
 *
 * What is whose (times in ns):
 *   The FSM (subutai_fsm.c) counts each Barrier Wait request: its SPM accesses (m each), FSM cycles (c each),
 *   FSMentry + FSMexit, and the injection time of every answer packet it hands to the NI, in queue order.
 *   Its parameters are read once, by suf_params_load, from devices.subutai_ni (004 Table IV's caption).
 *   This file adds the NoC around it: H = attach unit 0 (NI_0), hop = router + link from the interconnect,
 *     to_i = hops(u_i, H) x hop: the request's head reaches the host NI (0 on the host's own core);
 *     back_i = hops(H, u_i) x hop + (flits - 1) c: the answer's tail reaches u_i (sync_packet_flits flits,
 *     one per NI cycle; 0 on the host).
 *   The FSM serves one request at a time, in the engine's order: s_i = max(t_i + to_i, FSM free); the FSM is
 *   then busy for the request's counted latency (so a request of the next episode waits for the release loop).
 *   A request that queues its caller is registered when the FSM finishes it: r_i = s_i + latency_i.
 *   The request that completes the count is registered when it answers its caller, t_all = s + pkt[0].at;
 *   every thread leaves at s + (its packet's injection time) + back_i.
 *   The barrier is allocated in the FSM at setup (ag_barrier_init's job in Subutai-SW), untimed: episodes do
 *   not include it. The OS driver and interrupt path around the NI (004 §IV) is not modeled: no source gives
 *   its cost.
 *
 * Refuses a machine without devices.subutai_ni, one whose SPM is not the FSM model's (4 control structures,
 * 122 queue entries), one without interconnect coordinates, and more than SUF_NENT + 1 participants (the SPM
 * queue holds the waiting threads, 004 §V-A).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw.h"
#include "hw_util.h"
#include "subutai_fsm.h"

#define DEV "hw-subutai"
#define NEED "devices.subutai_ni (a Subutai NoC machine, e.g. noc64)"

struct subutai {
    struct suf fsm;
    struct suf_res res; /* the last request's counts and packets */
    unsigned bar;       /* the barrier's control structure */
    double tail;        /* (flits - 1) c */
    double *to;         /* per tid: the request's head to the host NI (hops x hop) */
    int *remote;        /* per tid: not on the host NI's core */
    double busy;        /* the FSM is busy until (across episodes: it may still be answering) */
    struct hw_ep ep;
};

static void su_teardown(struct sim_hw_ctx *c)
{
    struct subutai *s = c->state;
    if (s) {
        free(s->to);
        free(s->remote);
        hw_ep_free(&s->ep);
        free(s);
    }
    c->state = NULL;
}

/* The FSM with its parameters from the machine and the barrier allocated for c->n participants; the
 * answer's tail of (flits - 1) NI cycles. */
static int su_fsm(struct sim_hw_ctx *c, struct subutai *s, double flits, char *err, size_t errlen)
{
    struct suf_params p;
    char why[400];
    if (suf_params_load(c->m, &p, why, sizeof why)) {
        snprintf(err, errlen, "%s needs %s: %s", DEV, NEED, why);
        return -1;
    }
    suf_init(&s->fsm, &p, SUF_NENT);
    struct suf_req q = {.op = SUF_ALLOC, .kind = SUF_BARRIER, .max = c->n};
    if (suf_request(&s->fsm, &q, &s->res) != SUF_OK) { /* an empty SPM has every control structure free */
        snprintf(err, errlen, "%s: the FSM refused to allocate a barrier of %u (status %d)", DEV, c->n, s->res.st);
        return -1;
    }
    s->bar = s->res.id;
    s->tail = flits >= 1 ? (flits - 1) * p.c : 0;
    return 0;
}

static int su_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    const struct sim_machine *m = c->m;
    double flits;
    c->state = NULL;
    if (hw_param(c, DEV, NEED, "interconnect.parameters.sync_packet_flits", &flits, err, errlen))
        return -1;
    if (m->attach < 0 || !m->pos) {
        snprintf(err, errlen, "%s: %s has no interconnect coordinates for the NIs", DEV, m->name);
        return -1;
    }
    if (hw_check_n(c, DEV, err, errlen))
        return -1;
    if (c->n - 1 > SUF_NENT) {
        snprintf(err, errlen, "%s: %u participants, but the SPM queue holds %d waiting threads "
                 "(devices.subutai_ni.spm_queue_entries, 004 §V-B)", DEV, c->n, SUF_NENT);
        return -1;
    }
    struct subutai *s = calloc(1, sizeof *s);
    if (!s)
        goto oom;
    c->state = s;
    s->busy = -INFINITY;
    if (su_fsm(c, s, flits, err, errlen)) {
        su_teardown(c);
        return -1;
    }
    s->to = calloc(c->n, sizeof *s->to);
    s->remote = calloc(c->n, sizeof *s->remote);
    if (!s->to || !s->remote || hw_ep_init(&s->ep, c->n))
        goto oom;
    for (unsigned t = 0; t < c->n; t++) {
        unsigned u = sim_machine_attach_unit(m, c->hw[t]);
        s->remote[t] = u != 0;
        s->to[t] = sim_machine_hops(m, u, 0) * m->hop_ns;
    }
    return 0;
oom:
    su_teardown(c);
    snprintf(err, errlen, "%s: out of memory", DEV);
    return -1;
}

static double su_arrive(struct sim_hw_ctx *c, unsigned tid, double t)
{
    struct subutai *s = c->state;
    double st = fmax(t + s->to[tid], s->busy);
    struct suf_req q = {.op = SUF_BARRIER_WAIT, .id = s->bar, .thread = tid};
    /* Never EAGAIN: setup allows at most SUF_NENT queued threads, and the release loop of every episode
     * returns all their entries to the free list before the next episode's first request. */
    enum suf_status st_fsm = suf_request(&s->fsm, &q, &s->res);
    s->busy = st + s->res.t;
    if (st_fsm != SUF_OK) { /* SUF_QUEUED: registered when the FSM has queued the caller */
        hw_ep_add(&s->ep, tid, s->busy);
        return s->busy;
    }
    /* the caller completed the count: packet 0 answers it, packets 1..n-1 the queue, oldest first */
    double t_all = st + s->res.pkt[0].at;
    hw_ep_add(&s->ep, tid, t_all);
    for (unsigned j = 0; j < s->res.npkt; j++) {
        unsigned w = s->res.pkt[j].thread;
        s->ep.rel[w] = st + s->res.pkt[j].at + (s->remote[w] ? s->to[w] + s->tail : 0);
    }
    return t_all;
}

static double su_release(struct sim_hw_ctx *c, unsigned tid, double t_all)
{
    const struct subutai *s = c->state;
    return hw_ep_release(&s->ep, tid, t_all);
}

const struct sim_hw sim_hw_subutai = {
    .name = DEV,
    .summary = "Subutai NoC-interface FSM + scratchpad queue barrier at NI_0, served by the FSM model "
               "(004 §V, Tables III-IV)",
    .setup = su_setup,
    .arrive = su_arrive,
    .release = su_release,
    .teardown = su_teardown,
};
