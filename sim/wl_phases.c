/* wl_phases.c — `--workload phases`: a phase loop of the PARSEC kind (004 §VI: Bodytrack's and
 * Streamcluster's workers compute, update shared state under mutexes, and meet at barriers; 004 Table V:
 * Bodytrack uses 3 mutexes and 4 barriers, Streamcluster 1 of each). The model's loop (004 gives no code):
 *
 *   --items phases; in each, every participant computes (--work-ns, plus --work-jitter-ns uniform per
 *   participant and phase: the load imbalance that makes a barrier wait), then updates each of two
 *   shared accumulators under its own mutex (--cs-ns of compute and an atomic on the accumulator's line
 *   inside), then waits at the barrier.
 *
 * Two mutexes and a barrier: 3 of Subutai's 4 control structures per NI (004 §V-B). Checked at the end:
 * each accumulator counted every participant's update of every phase; one AG_SERIAL per phase; nobody
 * left a phase before everybody arrived. */
#define _GNU_SOURCE
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>

#define NACC 2

struct ph {
    uint64_t acc[NACC];  /* the updates, counted outside the simulated memory */
    unsigned *serial;    /* [phase]: AG_SERIAL results */
    uint64_t arrived;
};

static struct ph *ph(struct sim *s) { return s->wl->state; }

static int ph_setup(struct sim *s, char *err, size_t len)
{
    unsigned phases = s->o->items ? s->o->items : 1;
    struct ph *p = calloc(1, sizeof *p);
    s->wl->state = p;
    if (!p || !(p->serial = calloc(phases, sizeof *p->serial)) || wl_iterations(s, phases))
        return snprintf(err, len, "out of memory for %u phases", phases), -1;
    return 0;
}

static void ph_teardown(struct sim *s)
{
    struct ph *p = ph(s);
    if (p)
        free(p->serial), free(p);
    s->wl->state = NULL;
}

static void ph_body(struct sim *s, unsigned tid)
{
    struct ph *p = ph(s);
    for (unsigned k = 0; k < s->wl->niter && s->res->ok; k++) {
        double work = s->o->work_ns;
        if (s->o->work_jitter_ns > 0) /* deterministic: participants draw in the engine's order */
            work += s->o->work_jitter_ns * (double)(sim_next_rand(s) >> 11) * 0x1.0p-53;
        sim_compute(s, work);
        for (unsigned j = 0; j < NACC; j++) {
            unsigned m = (tid + j) % NACC; /* half the participants start with each accumulator */
            wl_lock(s, m);
            sim_fetch_add(&s->run.fl, sim_wl_slot(s, m), 1);
            sim_compute(s, s->o->cs_ns);
            p->acc[m]++;
            wl_unlock(s, m);
        }
        p->arrived++;
        if (wl_barrier(s) == AG_SERIAL)
            p->serial[k]++;
        if (p->arrived < (uint64_t)(k + 1) * s->n)
            sim_fail(s, "phases: a participant left a phase before every participant arrived");
        wl_iteration_end(s, k);
    }
}

static void ph_check(struct sim *s)
{
    struct ph *p = ph(s);
    uint64_t want = (uint64_t)s->n * s->wl->niter;
    for (unsigned j = 0; j < NACC; j++)
        if (p->acc[j] != want || s->slots[sim_wl_slot(s, j)] != want)
            sim_fail(s, "phases: an accumulator missed or doubled an update");
    for (unsigned k = 0; k < s->wl->niter; k++)
        if (p->serial[k] != 1)
            sim_fail(s, "phases: a phase without exactly one AG_SERIAL");
}

const struct sim_workload sim_wl_phases = {
    .name = "phases",
    .nmutex = NACC,
    .ncond = 0,
    .nslots = NACC,
    .setup = ph_setup,
    .body = ph_body,
    .check = ph_check,
    .teardown = ph_teardown,
};
