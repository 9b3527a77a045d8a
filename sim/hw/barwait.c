/* barwait.c — "hw-barwait": the x64 ISA extension barinit/barwait with the Hardware Barrier Structure
 * (HBS) of 000 §4 (seed 000_15c0f7e7309a66d9), a proposal.
 *
 * Idea (000 §4.2, Figure 8): one HBS per processor holds, per subset barrier, a participation mask P and
 * a state mask S. `barwait` sends a barrier-core-arrive message over the existing interconnect; the HBS
 * sets the thread's bit and ANDs S. When a socket is complete its HBS sends barrier-socket-arrive to the
 * other participating sockets; when all are in, each HBS sends barrier-complete to its cores.
 *
 * Cost model (times in ns). Where the HBS sits decides what reaching it costs:
 *   - Machines with a hop-by-hop on-chip interconnect (attach level and coordinates, one socket; of the
 *     files: knl7210): the HBS sits at the router of the attach unit H "near the center" (000 §4.2 for
 *     the KNL mesh): the unit with the smallest largest hop count to any unit, lowest index on ties.
 *     up_i = down_i = hops(u_i, H) x (router + link), u_i = sim_machine_attach_unit(hw_i).
 *     (000 §4.2: "about 6 interconnect hops", 48 cycles at 1 + 3 cycles per hop: read as 6 hops each way.)
 *   - Machines without one (harp-broadwell, xeon8160x8, opteron6272x4): the HBS sits at each socket's L3
 *     controller, "making barriers roughly as expensive as an L3 cache access" (000 §4.2):
 *     up_i = down_i = devices.hbs.access / 2, access = the L3 access latency 000 §4.2 gives per machine.
 *   Every message to or from an HBS passes its one port, one message per devices.hbs.message_interval d
 *   (assumed: one single-flit message per cycle; 000 gives no HBS throughput; d = 0 reproduces 000's
 *   hop-only estimates). Arrival i at t_i reaches its socket's HBS at x_i = t_i + up_i and is registered
 *   at r_i = s_i + d, s_i the earliest free slot of the port at or after x_i (hw_util.h).
 *   Sockets: with S_p > 1 participating sockets the socket-arrive exchange costs
 *   S_p x interconnect.socket_links.hop_latency after the last registration, 000 §4.2's ring round trip
 *   (4 x 44 ns on the 4-socket Opteron machine, 4 x 110 cycles for a 4-socket Intel ring).
 *   Release: G = t_all + (S_p > 1 ? S_p x hop_latency : 0); each HBS sends one barrier-complete per
 *   participating core of its socket, in the order the cores' first threads registered, the k-th
 *   (k = 0, 1, ...) leaving at G + k d; a thread leaves when its core's message arrives:
 *     leave_i = G + k(core_i) d + down_i.
 *   With d = 0 and simultaneous arrivals: 2 x hops x hop on the mesh, access (+ S_p x link) elsewhere:
 *   000 §4.2's own figures (48 cycles KNL; 38, 42, 20 cycles one socket; 390 cycles 4-socket Opteron).
 *   Timeouts, barinit and the MSR interface are outside the episode and not modeled here; their semantics
 *   (groups, refusals, timeouts, context switches) are sim/hw/barwait_isa.c's.
 *
 * Refuses a machine without devices.hbs (the files of 000's four machines carry one), a hop-by-hop
 * interconnect spanning several sockets, and several participating sockets without socket_links.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw.h"
#include "hw_util.h"

#define DEV "hw-barwait"
#define NEED "devices.hbs (an HBS placement; given for 000's machines knl7210, harp-broadwell, xeon8160x8, " \
             "opteron6272x4)"

struct barwait {
    double d, G_extra;     /* message interval; socket-arrive exchange */
    unsigned nsock;        /* sockets of the machine */
    unsigned *sock, *core; /* per tid */
    double *leg;           /* per tid: one-way cost to / from its HBS */
    struct hw_port *in;    /* per socket: its HBS's port */
    unsigned *next;        /* per socket: barrier-complete messages handed out in this episode */
    unsigned *core_k;      /* per global core: its barrier-complete slot in this episode (~0u: none) */
    unsigned ncores;
    unsigned hbs_unit;     /* mesh: the HBS's attach unit */
    int mesh;
    struct hw_ep ep;
};

static void bw_teardown(struct sim_hw_ctx *c)
{
    struct barwait *b = c->state;
    if (b) {
        for (unsigned s = 0; b->in && s < b->nsock; s++)
            hw_port_free(&b->in[s]);
        free(b->in);
        free(b->next);
        free(b->sock);
        free(b->core);
        free(b->leg);
        free(b->core_k);
        hw_ep_free(&b->ep);
        free(b);
    }
    c->state = NULL;
}

/* The attach unit with the smallest eccentricity (largest hop count to any unit), lowest index on ties. */
static unsigned center(const struct sim_machine *m)
{
    unsigned best = 0, best_ecc = ~0u;
    for (unsigned u = 0; u < m->nattach; u++) {
        unsigned ecc = 0;
        for (unsigned v = 0; v < m->nattach; v++) {
            unsigned h = sim_machine_hops(m, u, v);
            if (h > ecc)
                ecc = h;
        }
        if (ecc < best_ecc) {
            best_ecc = ecc;
            best = u;
        }
    }
    return best;
}

static int bw_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    const struct sim_machine *m = c->m;
    double d, access = 0, link = 0;
    c->state = NULL;
    if (hw_param(c, DEV, NEED, "devices.hbs.message_interval", &d, err, errlen))
        return -1;
    if (hw_check_n(c, DEV, err, errlen))
        return -1;
    int mesh = m->attach >= 0 && m->pos != NULL;
    int lcore = sim_machine_level(m, "core");
    if (lcore < 0) {
        snprintf(err, errlen, "%s: %s has no 'core' topology level", DEV, m->name);
        return -1;
    }
    if (mesh && m->count[0] != 1) {
        snprintf(err, errlen, "%s: %s has a hop-by-hop interconnect over %u sockets; the HBS placement is "
                 "modeled for one socket only", DEV, m->name, m->count[0]);
        return -1;
    }
    if (!mesh && hw_param(c, DEV, NEED, "devices.hbs.access", &access, err, errlen))
        return -1;
    struct barwait *b = calloc(1, sizeof *b);
    if (!b)
        goto oom;
    c->state = b;
    b->d = d;
    b->mesh = mesh;
    b->nsock = m->count[0];
    b->ncores = sim_machine_unit(m, m->threads - 1, (unsigned)lcore) + 1;
    b->sock = calloc(c->n, sizeof *b->sock);
    b->core = calloc(c->n, sizeof *b->core);
    b->leg = calloc(c->n, sizeof *b->leg);
    b->core_k = calloc(b->ncores, sizeof *b->core_k);
    b->in = calloc(b->nsock, sizeof *b->in);
    b->next = calloc(b->nsock, sizeof *b->next);
    if (!b->sock || !b->core || !b->leg || !b->core_k || !b->in || !b->next || hw_ep_init(&b->ep, c->n))
        goto oom;
    for (unsigned s = 0; s < b->nsock; s++)
        if (hw_port_init(&b->in[s], c->n))
            goto oom;
    if (mesh)
        b->hbs_unit = center(m);
    unsigned *seen = calloc(b->nsock, sizeof *seen), sp = 0;
    if (!seen)
        goto oom;
    for (unsigned t = 0; t < c->n; t++) {
        unsigned hw = c->hw[t];
        b->sock[t] = sim_machine_unit(m, hw, 0);
        b->core[t] = sim_machine_unit(m, hw, (unsigned)lcore);
        b->leg[t] = mesh ? sim_machine_hops(m, sim_machine_attach_unit(m, hw), b->hbs_unit) * m->hop_ns : access / 2;
        if (!seen[b->sock[t]]++)
            sp++;
    }
    free(seen);
    if (sp > 1) {
        if (hw_param(c, DEV, "interconnect.socket_links.hop_latency for participants on several sockets",
                     "interconnect.socket_links.hop_latency", &link, err, errlen)) {
            bw_teardown(c);
            return -1;
        }
        b->G_extra = sp * link;
    }
    return 0;
oom:
    bw_teardown(c);
    snprintf(err, errlen, "%s: out of memory", DEV);
    return -1;
}

static double bw_arrive(struct sim_hw_ctx *c, unsigned tid, double t)
{
    struct barwait *b = c->state;
    if (b->ep.count == 0)
        for (unsigned s = 0; s < b->nsock; s++)
            hw_port_reset(&b->in[s]);
    double x = t + b->leg[tid];
    double r = hw_port_take(&b->in[b->sock[tid]], x, b->d) + b->d;
    if (hw_ep_add(&b->ep, tid, r)) {
        double G = b->ep.t_all + b->G_extra;
        for (unsigned s = 0; s < b->nsock; s++)
            b->next[s] = 0;
        for (unsigned q = 0; q < c->n; q++)
            b->core_k[b->core[q]] = ~0u;
        hw_ep_sort(&b->ep);
        for (unsigned j = 0; j < c->n; j++) { /* cores in the order their first thread registered */
            unsigned q = b->ep.sorted[j];
            if (b->core_k[b->core[q]] == ~0u)
                b->core_k[b->core[q]] = b->next[b->sock[q]]++;
        }
        for (unsigned q = 0; q < c->n; q++)
            b->ep.rel[q] = G + b->core_k[b->core[q]] * b->d + b->leg[q];
    }
    return r;
}

static double bw_release(struct sim_hw_ctx *c, unsigned tid, double t_all)
{
    const struct barwait *b = c->state;
    return hw_ep_release(&b->ep, tid, t_all);
}

const struct sim_hw sim_hw_barwait = {
    .name = DEV,
    .summary = "x64 barinit/barwait with a Hardware Barrier Structure on the interconnect or at the L3 (000 §4)",
    .setup = bw_setup,
    .arrive = bw_arrive,
    .release = bw_release,
    .teardown = bw_teardown,
};
