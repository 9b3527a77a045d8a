/* harp.c — "hw-harp": the HARP CPU+FPGA barrier of 000 §3 (seed 000_15c0f7e7309a66d9).
 *
 * Idea (000 §3.2, Figure 5): a counting barrier in an FPGA AFU next to a Broadwell Xeon. Each hardware
 * thread writes its own ARRIVAL TRIGGER CSR (one cache line per thread, so that writes do not falsely
 * share a line); the AFU increments CUR COUNT once per AFU cycle ("synthesizes to operate within a single
 * cycle of the 400 MHz clock"); when the count reaches the barrier size, DEPARTURE SENSE flips and every
 * thread reads it through its own line. Two copies alternate, so one episode's departures never wait for
 * the next episode's arrivals.
 *
 * Cost model (times in ns; machine harp-broadwell, "devices.afu"):
 *   L  = one way CPU <-> AFU. Two devices share this model and differ only in L:
 *        hw-harp (the projection): devices.afu.cpu_afu_latency. No hardware document gives it; the file
 *          carries 000 §3.3's own projection (Figure 7): on par with the last-level-cache latency, 38 CPU
 *          cycles (000 §4.2), marked assumed.
 *        hw-harp-prototype (the HARP 000 measured): devices.afu.prototype_latency, a PCIe transfer. 000
 *          §3.2's arrivals are CSR writes, which reach an AFU as MMIO over a PCIe channel (Intel's CCI-P
 *          manual), and its departure writes were no faster over the coherent link than over PCIe; the
 *          latency is a published PCIe figure cited in the machine file, not 000's barrier-derived
 *          "3000+ cycles" (validation_only), which the simulated barrier is checked against.
 *   a  = devices.afu.arrival_processing: one AFU cycle per arrival (000 §3.2).
 *   ad = one AFU cycle per departure read = devices.afu.cpu_cycles_per_afu_cycle / core GHz (000 §3.1).
 *   P  = devices.afu.interconnect_parallelism: at most P transactions in flight on the CPU <-> FPGA path
 *        per direction (000 §3.3, "8-way parallelism at best"); each holds its slot for L.
 *   Arrival i at t_i (in the engine's order): it takes the earliest free of the P CPU->AFU slots,
 *     s_i = max(t_i, slot free), the slot is busy until s_i + L; the AFU counts it at
 *     r_i = max(s_i + L, r_{i-1}) + a                              (registration)
 *   Release, after the last registration t_all: the AFU answers the departure reads one per AFU cycle,
 *     in registration order j = 0..n-1, z_j = t_all + (j + 1) ad; each answer takes the earliest free of
 *     the P AFU->CPU slots: leave_j = max(z_j, slot free) + L.
 *   With L = 0 and P >= n this is 000 §3.3's best case: 2n AFU cycles for n simultaneous arrivals
 *   (28 threads: 56 AFU cycles = 336 CPU cycles). The position of a thread on the die does not matter
 *   (the FPGA hangs off the socket's coherent interconnect; 000 does not model it hop by hop).
 *   Arrivals use CSR writes, not UMsg: UMsg serves only 8 addresses and gave no gain (000 §3.2).
 *
 * Refuses a machine without devices.afu (only harp-broadwell has one) and more participants than the
 * machine has hardware threads (one ARRIVAL TRIGGER line per thread).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw.h"
#include "hw_util.h"

#define DEV "hw-harp"
#define DEV_PROTO "hw-harp-prototype"
#define NEED "devices.afu (a HARP machine, e.g. harp-broadwell)"

struct harp {
    double L, a, ad;
    unsigned P;
    double *up, *down; /* per slot: busy until */
    double afu;        /* the arrival counter: busy until */
    struct hw_ep ep;
};

static void harp_teardown(struct sim_hw_ctx *c)
{
    struct harp *h = c->state;
    if (h) {
        free(h->up);
        free(h->down);
        hw_ep_free(&h->ep);
        free(h);
    }
    c->state = NULL;
}

/* The AFU model with the one-way CPU <-> AFU latency at `lpath` (device `dev`). */
static int harp_open(struct sim_hw_ctx *c, const char *dev, const char *lpath, char *err, size_t errlen)
{
    double ratio, a, P, L;
    c->state = NULL;
    if (hw_param(c, dev, NEED, "devices.afu.cpu_cycles_per_afu_cycle", &ratio, err, errlen) ||
        hw_param(c, dev, NEED, "devices.afu.arrival_processing", &a, err, errlen) ||
        hw_param(c, dev, NEED, "devices.afu.interconnect_parallelism", &P, err, errlen) ||
        hw_param(c, dev, NEED, lpath, &L, err, errlen))
        return -1;
    if (P < 1 || P != floor(P) || ratio <= 0) {
        snprintf(err, errlen, "%s: devices.afu.interconnect_parallelism must be a whole number >= 1 and "
                 "cpu_cycles_per_afu_cycle positive", dev);
        return -1;
    }
    if (hw_check_n(c, dev, err, errlen))
        return -1;
    struct harp *h = calloc(1, sizeof *h);
    if (!h)
        goto oom;
    c->state = h;
    h->L = L;
    h->a = a;
    h->ad = ratio / c->m->ghz;
    h->P = P > c->n ? c->n : (unsigned)P; /* more paths than participants are never all busy */
    h->up = calloc(h->P, sizeof *h->up);
    h->down = calloc(h->P, sizeof *h->down);
    if (!h->up || !h->down || hw_ep_init(&h->ep, c->n))
        goto oom;
    return 0;
oom:
    harp_teardown(c);
    snprintf(err, errlen, "%s: out of memory", dev);
    return -1;
}

static int harp_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    return harp_open(c, DEV, "devices.afu.cpu_afu_latency", err, errlen);
}

static int harp_prototype_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    return harp_open(c, DEV_PROTO, "devices.afu.prototype_latency", err, errlen);
}

/* The earliest free slot (lowest index on ties). */
static unsigned slot(const double *free_at, unsigned P)
{
    unsigned k = 0;
    for (unsigned i = 1; i < P; i++)
        if (free_at[i] < free_at[k])
            k = i;
    return k;
}

static double harp_arrive(struct sim_hw_ctx *c, unsigned tid, double t)
{
    struct harp *h = c->state;
    if (h->ep.count == 0) { /* a new episode: this copy of the AFU and the CPU->AFU path are idle */
        for (unsigned i = 0; i < h->P; i++)
            h->up[i] = -INFINITY;
        h->afu = -INFINITY;
    }
    unsigned k = slot(h->up, h->P);
    double s = fmax(t, h->up[k]);
    h->up[k] = s + h->L;
    double r = fmax(s + h->L, h->afu) + h->a;
    h->afu = r;
    if (hw_ep_add(&h->ep, tid, r)) {
        for (unsigned i = 0; i < h->P; i++)
            h->down[i] = -INFINITY;
        for (unsigned j = 0; j < c->n; j++) { /* registration order = call order (FIFO) */
            double z = h->ep.t_all + (j + 1) * h->ad;
            unsigned q = slot(h->down, h->P);
            double d = fmax(z, h->down[q]);
            h->down[q] = d + h->L;
            h->ep.rel[h->ep.seq[j]] = d + h->L;
        }
    }
    return r;
}

static double harp_release(struct sim_hw_ctx *c, unsigned tid, double t_all)
{
    const struct harp *h = c->state;
    return hw_ep_release(&h->ep, tid, t_all);
}

const struct sim_hw sim_hw_harp = {
    .name = DEV,
    .summary = "HARP CPU+FPGA counting barrier in an AFU, 8-way CPU<->FPGA path (000 §3)",
    .setup = harp_setup,
    .arrive = harp_arrive,
    .release = harp_release,
    .teardown = harp_teardown,
};

const struct sim_hw sim_hw_harp_prototype = {
    .name = DEV_PROTO,
    .summary = "the same AFU barrier behind the HARP prototype's PCIe-class CPU<->FPGA path (000 §3.3)",
    .setup = harp_prototype_setup,
    .arrive = harp_arrive,
    .release = harp_release,
    .teardown = harp_teardown,
};
