/* subutai.c — "hw-subutai": the barrier of Subutai's NoC-interface synchronization hardware, 004
 * (seed 004_bffc6c40a88a61a2) §III-D and §V.
 *
 * Idea (004 §V-A, Figures 5-7): every network interface (NI) carries Subutai-HW, an FSM with a 1 KiB
 * scratchpad (SPM) of control structures and doubly linked queues. A barrier lives at one NI (an
 * incremental counter places primitives: NI_0 hosts the first, 004 §III-D). A barrier wait is a packet
 * to that NI (no packet when the host is the caller's own NI, flow tau_1 of Figure 4); the FSM queues the
 * caller, or, when the caller completes the count, answers it and then dequeues and answers every queued
 * thread, one packet each (the NoC has no broadcast; 004 Table VI note).
 *
 * Cost model (004 Table III and §V-B; c, m, FSMentry, FSMexit from devices.subutai_ni, hop costs from the
 * interconnect; times in ns):
 *   H = attach unit 0 (the barrier is the first primitive: NI_0), hop = router + link,
 *   to_i = hops(u_i, H) x hop: the request's head reaches the host NI (0 on the host's own core).
 *   The FSM serves one request at a time, in the engine's order: s_i = max(t_i + to_i, FSM free).
 *   A request that does not complete the count ("best", empty-queue case of Table III):
 *     occupies FSMentry + 7m + FSMexit, registered at its end: r_i = s_i + FSMentry + 7m + FSMexit.
 *   The request that completes it, with rho = n - 1 queued threads ("worst" case and packet column):
 *     registered when the count is seen complete, r_last = s + FSMentry + (m + c) = t_all;
 *     answer packet j = 0..rho injected at t_all + j (11m + 3c): j = 0 answers the caller, j = 1..rho the
 *     queued threads in queue (arrival) order; the FSM is busy until t_all + rho (11m + 3c) + FSMexit.
 *     With rho = 63 this is Table IV's 7, 32, 57, ... ns and 1583 ns total.
 *   Release: leave_i = inject_j(i) + back_i, back_i = hops(H, u_i) x hop + (flits - 1) c for a packet of
 *     interconnect.parameters.sync_packet_flits flits (its tail, one flit per NI cycle c), 0 on the host.
 *   The OS driver and interrupt path around the NI (004 §IV) is not modeled: no source gives its cost.
 *
 * The FSM itself, serving mutexes and conditions too, with its SPM and per-access costs: subutai_fsm.c (not
 * used here yet; docs/sim-hw.md compares the two).
 *
 * Refuses a machine without devices.subutai_ni (only noc64 has it) or interconnect coordinates, and more
 * than spm_queue_entries + 1 participants (the SPM queue holds the waiting threads, 004 §V-A).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw.h"
#include "hw_util.h"

#define DEV "hw-subutai"
#define NEED "devices.subutai_ni (a Subutai NoC machine, e.g. noc64)"

struct subutai {
    double c, m, entry, exit, tail;
    double *to;      /* per tid: the request's head to the host NI (hops x hop) */
    int *remote;     /* per tid: not on the host NI's core */
    double fsm;      /* the FSM is busy until (across episodes: it may still be answering) */
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

static int su_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    const struct sim_machine *m = c->m;
    double cy, mem, entry, exit, queue, flits;
    c->state = NULL;
    if (hw_param(c, DEV, NEED, "devices.subutai_ni.c", &cy, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.subutai_ni.m", &mem, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.subutai_ni.fsm_entry", &entry, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.subutai_ni.fsm_exit", &exit, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.subutai_ni.spm_queue_entries", &queue, err, errlen) ||
        hw_param(c, DEV, NEED, "interconnect.parameters.sync_packet_flits", &flits, err, errlen))
        return -1;
    if (m->attach < 0 || !m->pos) {
        snprintf(err, errlen, "%s: %s has no interconnect coordinates for the NIs", DEV, m->name);
        return -1;
    }
    if (hw_check_n(c, DEV, err, errlen))
        return -1;
    if (c->n - 1 > queue) {
        snprintf(err, errlen, "%s: %u participants, but the SPM queue holds %g waiting threads "
                 "(devices.subutai_ni.spm_queue_entries, 004 §V-B)", DEV, c->n, queue);
        return -1;
    }
    struct subutai *s = calloc(1, sizeof *s);
    if (!s)
        goto oom;
    c->state = s;
    s->c = cy;
    s->m = mem;
    s->entry = entry;
    s->exit = exit;
    s->tail = flits >= 1 ? (flits - 1) * cy : 0;
    s->fsm = -INFINITY;
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
    double st = fmax(t + s->to[tid], s->fsm);
    double r;
    if (s->ep.count + 1 < c->n) {
        r = st + s->entry + 7 * s->m + s->exit;
        s->fsm = r;
        hw_ep_add(&s->ep, tid, r);
        return r;
    }
    r = st + s->entry + (s->m + s->c); /* the count is complete: t_all */
    double per = 11 * s->m + 3 * s->c;
    s->fsm = r + (c->n - 1) * per + s->exit;
    hw_ep_add(&s->ep, tid, r);
    for (unsigned j = 0; j < c->n; j++) { /* j = 0: the caller (seq[n-1]); then the queue, oldest first */
        unsigned q = j == 0 ? s->ep.seq[c->n - 1] : s->ep.seq[j - 1];
        double back = s->remote[q] ? s->to[q] + s->tail : 0;
        s->ep.rel[q] = r + j * per + back;
    }
    return r;
}

static double su_release(struct sim_hw_ctx *c, unsigned tid, double t_all)
{
    const struct subutai *s = c->state;
    return hw_ep_release(&s->ep, tid, t_all);
}

const struct sim_hw sim_hw_subutai = {
    .name = DEV,
    .summary = "Subutai NoC-interface FSM + scratchpad queue barrier at NI_0 (004 §V, Tables III-IV)",
    .setup = su_setup,
    .arrive = su_arrive,
    .release = su_release,
    .teardown = su_teardown,
};
