/* machine_cost.h — the pair queries of a loaded machine on the model's hot path, inline: a hardware
 * thread's units, the layer two threads use, NoC hops, the one-way cost of a line transfer and what its
 * kind adds, the invalidation weight. Included by machine.h; coherence.c calls these for every copy of
 * a line it scans (a release to 1023 spinners is a million such queries an episode), which is why they
 * are here and not behind a call (machine_cost.c has the rest). */
#ifndef AG_SIM_MACHINE_COST_H
#define AG_SIM_MACHINE_COST_H

#include <math.h>

/* Global index of hardware thread hw's unit at level lvl (the mixed-radix number truncated after lvl;
 * looked up in m->uid once sim_machine_number_units filled it). */
static inline unsigned sim_machine_unit(const struct sim_machine *m, unsigned hw, unsigned lvl)
{
    if (m->uid)
        return m->uid[hw * m->nlevels + lvl];
    unsigned below = 1;
    for (unsigned k = lvl + 1; k < m->nlevels; k++)
        below *= m->count[k];
    return hw / below;
}

/* The attach unit of hardware thread hw (0 when the machine has no interconnect coordinates). */
static inline unsigned sim_machine_attach_unit(const struct sim_machine *m, unsigned hw)
{
    return m->attach < 0 ? 0 : sim_machine_unit(m, hw, (unsigned)m->attach);
}

/* Router hops between two attach units (Manhattan on a mesh; shortest way on a bidirectional ring). */
static inline unsigned sim_machine_hops(const struct sim_machine *m, unsigned u, unsigned v)
{
    if (!m->pos)
        return 0;
    const unsigned *pu = m->pos[u], *pv = m->pos[v];
    if (!m->ring)
        return (pu[0] > pv[0] ? pu[0] - pv[0] : pv[0] - pu[0]) + (pu[1] > pv[1] ? pu[1] - pv[1] : pv[1] - pu[1]);
    unsigned N = m->ring_stops, d = (pv[0] + N - pu[0]) % N;
    return m->bidirectional && N - d < d ? N - d : d;
}

/* The transfers to one hardware thread a of a line homed at attach unit `home`, from many threads b
 * (coherence.c scans a line's copies for the nearest, every thread for a first touch's farthest): a's
 * unit row, attach unit and hops to and from the home are looked up once, and sim_machine_layer_of and
 * sim_machine_cost below are these with a row of one. */
struct sim_cost_row {
    const struct sim_machine *m;
    const unsigned short *x; /* a's units, its row of m->uid */
    unsigned a, ua, home;
    unsigned to_home, from_home; /* hops a -> home, home -> a */
};

static inline struct sim_cost_row sim_cost_row(const struct sim_machine *m, unsigned a, unsigned home)
{
    unsigned ua = sim_machine_attach_unit(m, a);
    return (struct sim_cost_row){ m, m->uid + (size_t)a * m->nlevels, a, ua, home, sim_machine_hops(m, ua, home),
                                  sim_machine_hops(m, home, ua) };
}

/* The latency layer of a and b (a == b: the self layer; needs m->uid). */
static inline unsigned sim_cost_row_layer(const struct sim_cost_row *r, unsigned b)
{
    const struct sim_machine *m = r->m;
    if (b == r->a)
        return m->self_layer;
    const unsigned short *x = r->x, *y = m->uid + (size_t)b * m->nlevels;
    unsigned d = 0;
    while (x[d] == y[d]) /* two threads differ at the innermost level at least */
        d++;
    if (m->um && (int)d <= m->um_level)
        return m->um[x[m->um_level] * m->um_units + y[m->um_level]];
    return m->by_diff[d];
}

/* One-way cost in ns of moving the line from b to a over y, their layer (fixed layers ignore the home) */
static inline double sim_cost_row_cost(const struct sim_cost_row *r, const struct sim_layer *y, unsigned b)
{
    if (y->path == SIM_PATH_FIXED)
        return y->ns;
    const struct sim_machine *m = r->m;
    unsigned ub = sim_machine_attach_unit(m, b), hops;
    switch (y->path) {
    case SIM_PATH_DIRECT:
        hops = sim_machine_hops(m, r->ua, ub);
        break;
    case SIM_PATH_VIA_HOME:
        hops = r->to_home + sim_machine_hops(m, r->home, ub) + sim_machine_hops(m, ub, r->ua);
        break;
    default: /* home_roundtrip: there and back (on a unidirectional ring, not the same way) */
        hops = r->to_home + r->from_home;
        break;
    }
    return y->ns + hops * m->hop_ns;
}

/* The latency layer two hardware threads use (a == b: the self layer; needs m->uid). */
static inline unsigned sim_machine_layer_of(const struct sim_machine *m, unsigned a, unsigned b)
{
    struct sim_cost_row r = sim_cost_row(m, a, 0);
    return sim_cost_row_layer(&r, b);
}

/* One-way cost in ns of moving a line from hardware thread b to a, for a line homed at attach unit
 * home (ignored by fixed layers); a == b is the self layer (a hit). */
static inline double sim_machine_cost(const struct sim_machine *m, unsigned a, unsigned b, unsigned home)
{
    struct sim_cost_row r = sim_cost_row(m, a, home);
    return sim_cost_row_cost(&r, &m->layer[sim_cost_row_layer(&r, b)], b);
}

/* How a line transfer reaches its receiver (coherence.c): it was not polling the line (cold), or it is
 * the re-read of a waiter a store woke while it spun, without or with pause. */
enum sim_xfer { SIM_XFER_COLD, SIM_XFER_SPUN, SIM_XFER_PAUSED };

/* What a transfer over layer y costs beyond its cost for its kind: the layer's cold_transfer or
 * paused_transfer minus its latency, 0 for a plain spinner's re-read or where the machine gives none. */
static inline double sim_layer_xfer_delta(const struct sim_layer *y, enum sim_xfer how)
{
    double given = how == SIM_XFER_COLD ? y->cold_ns : how == SIM_XFER_PAUSED ? y->paused_ns : 0;
    return given > 0 ? given - y->ns : 0;
}

/* No transfer to a over one of the layers in `used` (bit k: layer k; sim_machine_pair_layers, plus the
 * self layer where participants share hardware threads) costs less than this, for its kind: the least
 * sim_cost_row_cost plus sim_layer_xfer_delta over those layers, each with the fewest hops its path can
 * take (via the home: a -> home -> b -> a is no shorter than a -> home -> a, hops being a metric, or a
 * one-way ring's forward distance). The same operations on no more hops, so no rounding puts a cost
 * below it: a scan over a line's copies can pass over those that cannot deliver first. Not for
 * three-leg machines (m->nnodes), whose costs sim_machine_cost_via gives. */
static inline double sim_cost_row_least(const struct sim_cost_row *r, uint32_t used, enum sim_xfer how)
{
    const struct sim_machine *m = r->m;
    double least = HUGE_VAL;
    for (unsigned k = 0; k < m->nlayers; k++) {
        const struct sim_layer *y = &m->layer[k];
        if (!(used >> k & 1))
            continue;
        int homed = y->path == SIM_PATH_VIA_HOME || y->path == SIM_PATH_HOME_ROUNDTRIP;
        unsigned hops = homed ? r->to_home + r->from_home : 0;
        double c = (y->path == SIM_PATH_FIXED ? y->ns : y->ns + hops * m->hop_ns) + sim_layer_xfer_delta(y, how);
        if (c < least)
            least = c;
    }
    return least;
}

/* What a transfer to a from b costs beyond sim_machine_cost for its kind (sim_layer_xfer_delta). */
static inline double sim_machine_xfer_delta(const struct sim_machine *m, unsigned a, unsigned b, enum sim_xfer how)
{
    return sim_layer_xfer_delta(&m->layer[sim_machine_layer_of(m, a, b)], how);
}

/* The α weight of invalidating b's copy on behalf of a. */
static inline double sim_machine_alpha(const struct sim_machine *m, unsigned a, unsigned b)
{
    return m->layer[sim_machine_layer_of(m, a, b)].alpha;
}

#endif
