/* photonic.c — "hw-photonic": the silicon-photonic on-chip barrier of 000 §5 (seed 000_15c0f7e7309a66d9),
 * a speculation of the paper.
 *
 * Idea (000 §5, Figure 9): a waveguide passes every core of the socket, each core owning one ring
 * modulator on it. At barrier init the participating cores put their rings ON (blocking the light),
 * the others leave theirs OFF. Arriving, a core switches its ring OFF; light reaches the end of the first
 * traversal only when every ring is OFF — a wired AND. The waveguide then curves around and passes every
 * core a second time, where each core taps it with a splitter and a Ge photodetector: light there is the
 * barrier-complete signal.
 *
 * Cost model (times in ns; parameters in the machine's devices.photonic):
 *   Geometry: the waveguide visits the attach units (tiles) of the interconnect in serpentine order (rows
 *   by y; x ascending on even rows, descending on odd rows); consecutive units are hops(u, v) tile pitches
 *   apart, each pitch costing w = devices.photonic.waveguide_per_hop of light propagation (assumed:
 *   the tile pitch from the die area; light at 5 ns per 43 cm, 000 §5). p(u) = the light's delay from
 *   the first unit to u; the fold is at the last unit, p_end = p(last). The second traversal runs back
 *   along the first (a U-turn), so u's detector is p_end - p(u) after the fold. Cores of one tile share
 *   its position.
 *   Registration of thread i: r_i = t_i + t_mod (devices.photonic.modulator, the ring's switching time).
 *   A core's ring goes OFF at T_k = the largest r_i of its participating threads (SMT threads AND
 *   locally).
 *   Light at the fold: E = max over participating cores k of (T_k + p_end - p(u_k)) — the light front
 *   passes every ring that is already OFF at the speed of light, so the last ring to open, and how far it
 *   is from the fold, decide.
 *   Release: leave_i = E + (p_end - p(u_i)) + t_det (devices.photonic.detector).
 *   Distance matters both ways: cores near the fold are released first.
 *
 * Runs where the machine gives devices.photonic and interconnect coordinates on one socket (knl7210:
 * 000's mesh machine; the photonic barrier is proposed for future x64 processors). DWDM (one wavelength
 * per barrier) allows many barriers; one barrier is modeled. Refuses other machines.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw.h"
#include "hw_util.h"

#define DEV "hw-photonic"
#define NEED "devices.photonic (the waveguide's geometry and optical device delays; given for knl7210)"

struct photonic {
    double tmod, tdet, pend;
    double *p;             /* per attach unit: light delay from the waveguide's first unit */
    unsigned *unit, *core; /* per tid */
    double *T;             /* per global core: its ring's OFF time in this episode */
    unsigned ncores;
    struct hw_ep ep;
};

static void ph_teardown(struct sim_hw_ctx *c)
{
    struct photonic *g = c->state;
    if (g) {
        free(g->p);
        free(g->unit);
        free(g->core);
        free(g->T);
        hw_ep_free(&g->ep);
        free(g);
    }
    c->state = NULL;
}

/* Serpentine rank of a unit at (x, y) on a grid `cols` wide; ring stops in stop order. */
static unsigned long serp(const struct sim_machine *m, unsigned u, unsigned cols)
{
    unsigned x = m->pos[u][0], y = m->ring ? 0 : m->pos[u][1];
    return (unsigned long)y * cols + (y % 2 ? cols - 1 - x : x);
}

static int ph_setup(struct sim_hw_ctx *c, char *err, size_t errlen)
{
    const struct sim_machine *m = c->m;
    double w, tmod, tdet;
    c->state = NULL;
    if (hw_param(c, DEV, NEED, "devices.photonic.waveguide_per_hop", &w, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.photonic.modulator", &tmod, err, errlen) ||
        hw_param(c, DEV, NEED, "devices.photonic.detector", &tdet, err, errlen))
        return -1;
    if (m->attach < 0 || !m->pos) {
        snprintf(err, errlen, "%s: %s has no interconnect coordinates to lay the waveguide along", DEV, m->name);
        return -1;
    }
    if (m->count[0] != 1) {
        snprintf(err, errlen, "%s: %s has %u sockets; one waveguide per socket is modeled, not the board-level "
                 "extension", DEV, m->name, m->count[0]);
        return -1;
    }
    int lcore = sim_machine_level(m, "core");
    if (lcore < 0) {
        snprintf(err, errlen, "%s: %s has no 'core' topology level", DEV, m->name);
        return -1;
    }
    if (hw_check_n(c, DEV, err, errlen))
        return -1;
    struct photonic *g = calloc(1, sizeof *g);
    if (!g)
        goto oom;
    c->state = g;
    g->tmod = tmod;
    g->tdet = tdet;
    g->ncores = sim_machine_unit(m, m->threads - 1, (unsigned)lcore) + 1;
    g->p = calloc(m->nattach, sizeof *g->p);
    g->unit = calloc(c->n, sizeof *g->unit);
    g->core = calloc(c->n, sizeof *g->core);
    g->T = calloc(g->ncores, sizeof *g->T);
    unsigned *order = calloc(m->nattach, sizeof *order);
    if (!g->p || !g->unit || !g->core || !g->T || !order || hw_ep_init(&g->ep, c->n)) {
        free(order);
        goto oom;
    }
    unsigned cols = 0;
    for (unsigned u = 0; u < m->nattach; u++)
        if (m->pos[u][0] + 1 > cols)
            cols = m->pos[u][0] + 1;
    for (unsigned u = 0; u < m->nattach; u++) { /* insertion sort by serpentine rank */
        unsigned j = u;
        while (j > 0 && serp(m, order[j - 1], cols) > serp(m, u, cols)) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = u;
    }
    double acc = 0;
    g->p[order[0]] = 0;
    for (unsigned k = 1; k < m->nattach; k++) {
        acc += sim_machine_hops(m, order[k - 1], order[k]) * w;
        g->p[order[k]] = acc;
    }
    g->pend = acc;
    free(order);
    for (unsigned t = 0; t < c->n; t++) {
        g->unit[t] = sim_machine_attach_unit(m, c->hw[t]);
        g->core[t] = sim_machine_unit(m, c->hw[t], (unsigned)lcore);
    }
    return 0;
oom:
    ph_teardown(c);
    snprintf(err, errlen, "%s: out of memory", DEV);
    return -1;
}

static double ph_arrive(struct sim_hw_ctx *c, unsigned tid, double t)
{
    struct photonic *g = c->state;
    double r = t + g->tmod;
    if (hw_ep_add(&g->ep, tid, r)) {
        for (unsigned q = 0; q < c->n; q++)
            g->T[g->core[q]] = -INFINITY;
        for (unsigned q = 0; q < c->n; q++)
            g->T[g->core[q]] = fmax(g->T[g->core[q]], g->ep.reg[q]);
        double E = -INFINITY;
        for (unsigned q = 0; q < c->n; q++)
            E = fmax(E, g->T[g->core[q]] + g->pend - g->p[g->unit[q]]);
        for (unsigned q = 0; q < c->n; q++)
            g->ep.rel[q] = E + (g->pend - g->p[g->unit[q]]) + g->tdet;
    }
    return r;
}

static double ph_release(struct sim_hw_ctx *c, unsigned tid, double t_all)
{
    const struct photonic *g = c->state;
    return hw_ep_release(&g->ep, tid, t_all);
}

const struct sim_hw sim_hw_photonic = {
    .name = DEV,
    .summary = "silicon-photonic wired-AND barrier: ring modulators on a folded waveguide (000 §5)",
    .setup = ph_setup,
    .arrive = ph_arrive,
    .release = ph_release,
    .teardown = ph_teardown,
};
