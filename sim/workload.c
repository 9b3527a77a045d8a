/* workload.c — a workload's run in the engine (workload.h): setting it up with its primitives, each
 * participant's life, and every synchronization call timed and checked:
 *   - a mutex has at most one holder, and only the holder unlocks it or waits on a condition with it;
 *   - a lock, a condition wait returns with the caller holding the mutex;
 *   - each call's duration, from the call to the return to the caller, is added to its row (004 Table
 *     XI: lock empty / lock queued / unlock / barrier wait / broadcast / condition wait "queued");
 *   - the time between a lock's return and the unlock is critical-section time (004 Fig. 11), and the
 *     OS model is told who holds a mutex (CSA, os_sched.c). */
#define _GNU_SOURCE
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const char *const sim_sync_op_names[SY_NOPS] = { "lock_empty", "lock_queued", "unlock", "barrier_wait", "broadcast",
                                                 "signal", "cond_wait" };

static const struct sim_workload *const workloads[] = { &sim_wl_prodcons, &sim_wl_phases };

uint32_t sim_sync_slot(const struct sim *s, unsigned k) { return s->wl->base + k * s->line_slots; }

uint32_t sim_wl_slot(const struct sim *s, unsigned k)
{
    return sim_sync_slot(s, s->wl->w->nmutex + s->wl->w->ncond + k);
}

uint32_t sim_wl_slots(struct sim *s, uint32_t base)
{
    if (!s->wl)
        return 0;
    uint32_t aligned = (base + s->line_slots - 1) / s->line_slots * s->line_slots;
    s->wl->base = aligned;
    const struct sim_workload *w = s->wl->w;
    return aligned - base + (w->nmutex + w->ncond + w->nslots) * s->line_slots;
}

int sim_wl_setup(struct sim *s, char *err, size_t len)
{
    const struct sim_workload *w = NULL;
    for (unsigned i = 0; i < sizeof workloads / sizeof *workloads; i++)
        if (!strcmp(s->o->workload, workloads[i]->name))
            w = workloads[i];
    if (!w)
        return snprintf(err, len, "--workload %s: expected prodcons or phases", s->o->workload), -1;
    s->wl = calloc(1, sizeof *s->wl);
    if (!s->wl)
        return snprintf(err, len, "out of memory"), -1;
    s->wl->w = w;
    s->wl->sy = s->o->hw ? &sim_sync_subutai : &sim_sync_futex;
    s->wl->owner = malloc(w->nmutex * sizeof *s->wl->owner);
    s->wl->cs_from = calloc(s->n, sizeof *s->wl->cs_from);
    if (!s->wl->owner || !s->wl->cs_from)
        return snprintf(err, len, "out of memory"), -1;
    for (unsigned m = 0; m < w->nmutex; m++)
        s->wl->owner[m] = -1;
    if (s->o->hw) /* a software barrier's spec was described by the engine */
        snprintf(s->res->describe, sizeof s->res->describe, "%s", s->o->hw->name);
    if (s->wl->sy->setup(s, w->nmutex, w->ncond, err, len))
        return -1;
    return w->setup(s, err, len);
}

void sim_wl_free(struct sim *s)
{
    struct sim_wl *wl = s->wl;
    if (!wl)
        return;
    if (wl->w->teardown)
        wl->w->teardown(s);
    if (wl->sy->teardown)
        wl->sy->teardown(s);
    free(wl->owner), free(wl->cs_from), free(wl->iter_end), free(wl);
    s->wl = NULL;
}

void sim_wl_participant(struct sim *s)
{
    unsigned tid = s->cur;
    s->wl->w->body(s, tid);
    double t = s->part[tid].clock;
    if (t > s->wl->t_end)
        s->wl->t_end = t;
}

int wl_iterations(struct sim *s, unsigned niter)
{
    s->wl->niter = niter;
    s->wl->iter_end = calloc(niter ? niter : 1, sizeof *s->wl->iter_end);
    return s->wl->iter_end ? 0 : -1;
}

void wl_iteration_end(struct sim *s, unsigned k)
{
    double t = s->part[s->cur].clock;
    if (k < s->wl->niter && t > s->wl->iter_end[k])
        s->wl->iter_end[k] = t;
}

void sim_wl_finish(struct sim *s)
{
    struct sim_result *r = s->res;
    unsigned n = s->wl->niter;
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) {
        sim_fail(s, "out of memory for the statistics");
        return;
    }
    for (unsigned k = 0; k < n; k++)
        d[k] = s->wl->iter_end[k] - (k ? s->wl->iter_end[k - 1] : 0);
    struct stats st = stats_of(d, n);
    free(d);
    r->median_ns = st.median, r->min_ns = st.min, r->p99_ns = st.p99, r->mean_ns = st.mean;
    r->episodes = r->run_episodes = n;
    double cpu = 0;
    for (unsigned p = 0; p < s->n; p++)
        cpu += s->part[p].clock - s->part[p].slept;
    r->cpu_ns_per_episode = n ? cpu / n : 0;
    s->res->wl.makespan_ns = s->wl->t_end;
    for (unsigned m = 0; m < s->wl->w->nmutex; m++)
        if (s->wl->owner[m] >= 0)
            sim_fail(s, "a mutex is still held at the end");
    s->wl->w->check(s);
}

/* ---- the calls ---- */

static void count(struct sim *s, enum sim_sync_op op, double t0)
{
    s->res->wl.op[op].n++;
    s->res->wl.op[op].sum_ns += s->part[s->cur].clock - t0;
}

static void took(struct sim *s, unsigned m)
{
    struct part *p = &s->part[s->cur];
    if (s->wl->owner[m] >= 0)
        sim_fail(s, "two participants hold one mutex");
    s->wl->owner[m] = (int)s->cur;
    p->held++;
    p->entering = 0;
    s->wl->cs_from[s->cur] = p->clock;
    sim_os_cs_changed(s, s->cur);
}

/* the caller gives mutex m up (unlock, or a condition wait); 0 if it did not hold it */
static int gives_up(struct sim *s, unsigned m)
{
    struct part *p = &s->part[s->cur];
    if (s->wl->owner[m] != (int)s->cur) {
        sim_fail(s, "a mutex released by a participant that does not hold it");
        return 0;
    }
    s->wl->owner[m] = -1;
    p->held--;
    s->res->wl.cs_ns += p->clock - s->wl->cs_from[s->cur];
    sim_os_cs_changed(s, s->cur);
    return 1;
}

void wl_entering(struct sim *s, unsigned p)
{
    s->part[p].entering = 1;
    sim_os_cs_changed(s, p);
}

void wl_lock(struct sim *s, unsigned m)
{
    sim_yield(s); /* the call happens in clock order */
    double t0 = s->part[s->cur].clock;
    int queued = s->wl->sy->lock(s, m);
    count(s, queued ? SY_LOCK_QUEUED : SY_LOCK_EMPTY, t0);
    took(s, m);
}

void wl_unlock(struct sim *s, unsigned m)
{
    sim_yield(s);
    double t0 = s->part[s->cur].clock;
    if (!gives_up(s, m))
        return;
    s->wl->sy->unlock(s, m);
    count(s, SY_UNLOCK, t0);
}

void wl_cond_wait(struct sim *s, unsigned c, unsigned m)
{
    sim_yield(s);
    double t0 = s->part[s->cur].clock;
    if (!gives_up(s, m))
        return;
    s->wl->sy->cond_wait(s, c, m);
    count(s, SY_COND_WAIT, t0);
    took(s, m);
}

void wl_signal(struct sim *s, unsigned c, unsigned m)
{
    sim_yield(s);
    double t0 = s->part[s->cur].clock;
    s->wl->sy->signal(s, c, m);
    count(s, SY_SIGNAL, t0);
}

void wl_broadcast(struct sim *s, unsigned c, unsigned m)
{
    sim_yield(s);
    double t0 = s->part[s->cur].clock;
    s->wl->sy->broadcast(s, c, m);
    count(s, SY_BROADCAST, t0);
}

int wl_barrier(struct sim *s)
{
    sim_yield(s);
    double t0 = s->part[s->cur].clock;
    int rc = s->wl->sy->barrier(s);
    if (rc != 0 && rc != AG_SERIAL)
        sim_fail(s, "a barrier wait returned an error");
    count(s, SY_BARRIER, t0);
    return rc;
}
