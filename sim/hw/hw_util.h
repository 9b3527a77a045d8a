/* hw_util.h — bookkeeping shared by the sim/hw devices (private to sim/hw).
 *
 * hw_ep: one episode's registrations. A device records each arrival's registration time; the n-th
 * arrival completes the episode and the device computes every participant's release then (all
 * registrations are known), stored per tid. release() returns t_all + (stored - the device's own t_all),
 * which is the stored time when the engine passes the maximum of the arrive() results, as it does.
 * A participant's stored release stays valid until its own next arrival, which the barrier orders
 * after every release of the episode.
 *
 * hw_port: a single server with a fixed service time d (a router port, the HBS write port): a message
 * that reaches it at x starts at the earliest s >= x where [s, s + d) overlaps no earlier reservation.
 * Messages are placed in the order the device learns of them (the engine's call order); a later one
 * may fill an idle gap before an earlier one but never displaces it. d = 0 means no serialization.
 */
#ifndef AG_SIM_HW_UTIL_H
#define AG_SIM_HW_UTIL_H

#include <stddef.h>

#include "hw.h"

struct hw_ep {
    unsigned n, count;  /* participants; registrations so far in the current episode */
    double *reg;        /* [tid] registration time in the current episode */
    unsigned *seq;      /* [k] the k-th registered tid, in call order */
    unsigned *sorted;   /* [k] tids by registration time (ties: call order), filled by hw_ep_sort */
    double *rel;        /* [tid] release time of the last completed episode */
    double t_all;       /* the last registration of the last completed episode */
    int complete;       /* an episode has completed since setup */
};

int hw_ep_init(struct hw_ep *e, unsigned n);
void hw_ep_free(struct hw_ep *e);
/* Records tid's registration at r; 1 when it is the n-th of the episode (then e->t_all is set, the
 * count restarts and the device must fill e->rel), else 0. */
int hw_ep_add(struct hw_ep *e, unsigned tid, double r);
/* e->sorted = the episode's tids by registration time, ties in call order. */
void hw_ep_sort(struct hw_ep *e);
/* The release for tid, shifted to the engine's t_all (t_all itself before any episode completed). */
double hw_ep_release(const struct hw_ep *e, unsigned tid, double t_all);

struct hw_port {
    double *start; /* reservations [start, start + d), sorted by start */
    unsigned len, cap;
};

/* Room for cap reservations (0, or -1 out of memory); a port may also start zeroed. */
int hw_port_init(struct hw_port *p, unsigned cap);
void hw_port_reset(struct hw_port *p);
void hw_port_free(struct hw_port *p);
/* Reserves the earliest [s, s + d) with s >= x; returns s (x when d == 0, nothing reserved); -1.0 when
 * out of memory. */
double hw_port_take(struct hw_port *p, double x, double d);

/* sim_machine_param with the device's refusal: "<dev> needs <what>: <the loader's message>". */
int hw_param(const struct sim_hw_ctx *c, const char *dev, const char *what, const char *path, double *v, char *err,
             size_t errlen);

/* Common refusals: no participants, more than the machine's hardware threads. */
int hw_check_n(const struct sim_hw_ctx *c, const char *dev, char *err, size_t errlen);

#endif
