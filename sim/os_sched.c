/* os_sched.c — the OS scheduler of andgate sim when participants outnumber hardware threads (issue 14
 * item 2; docs/sim.md "More participants than hardware threads").
 *
 * Each participant keeps the hardware thread its placement gave it (participant t on the placement's
 * hardware thread t mod T: no migration is modeled). A hardware thread runs one participant at a time;
 * the others that are ready wait in its run queue (FIFO). A participant leaves its hardware thread when
 * it waits (a sleeping or yielding wait, a futex, a queued Subutai request), when it ends, or when it is
 * preempted at the end of its time slice by a participant waiting in the queue. Costs, from the
 * machine's os block (sim/machines/README.md; the paper machines have none):
 *   a hand-off between two participants on a hardware thread    os.context_switch (measured as a futex
 *                                                                ping-pong on one CPU, so it holds a wake
 *                                                                and a wait too: a sleeper's hand-off is
 *                                                                overcounted by at most those)
 *   a woken participant on an idle hardware thread               its wake's own cost (os.wakeup after a
 *                                                                futex wake, half an os.yield for a
 *                                                                yielding poll, 0 for a Subutai packet)
 * Policies (004 §VII):
 *   rr   the baseline of 004 §VII: round robin with a fixed time slice (004: 1 ms, "timeslot"), a
 *        preempted participant to the back of the queue. Linux's CFS is not modeled: with equal weights
 *        and one run queue per CPU it also gives each ready thread a turn of a bounded slice, and 004
 *        compares CSA against RR, so RR is the default.
 *   csa  004 §VII-A: a participant inside a critical section (holding a mutex; here also one woken to
 *        take a mutex, "about to enter" — an assumption, 004 names only holders) has priority over every
 *        participant that is not: it is not preempted by them at its slice's end, and is picked first
 *        when its hardware thread is free; among several, round robin. Its priority lasts at most
 *        CSALimit = (ThrReady + ThrRun - 1) x 2 TS (004 Eq. 2), ThrReady + ThrRun counted on its own
 *        hardware thread (an interpretation: 004's scheduler is not described per CPU) at each decision
 *        (004: "currently"); past it, RR until it leaves the critical section (004 Table VII's "RR (CS)").
 *        004's system-wide livelock limit on CSA use per timeframe is not modeled (no value given).
 * Decisions are taken when a slice ends, a participant leaves, and (CSA) at every scheduling point of a
 * participant without priority while one with priority waits for its hardware thread: it is preempted
 * then. RR never preempts before a slice ends. The engine charges compute in pieces that end at slice
 * boundaries, and under CSA at most PIECE_NS long (a priority participant waits at most that). */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_TS_NS 1e6 /* 004 §VII, Fig. 10 and Table VII: "a timeslot of 1ms" */
#define PIECE_NS 10000.0  /* CSA: compute is charged in pieces of at most this (the model's granularity) */

struct cpu {
    int run, last, head, tail; /* running participant, the one before it, run queue (-1: none) */
    unsigned nq;
    double slice_end, free_at; /* free_at: idle since (nobody runs on it before) */
};

struct sim_os {
    struct cpu *cpu;           /* [machine's hardware threads] */
    double ts, cs;
    double *span_start;        /* [participant]: when its current stretch on the CPU began */
    int *span_q;
};

static struct cpu *cpu_of(struct sim *s, unsigned p) { return &s->os->cpu[s->part[p].hw]; }

int sim_os_init(struct sim *s, char *err, size_t len)
{
    for (unsigned p = 0; p < s->n; p++)
        s->part[p].qnext = -1, s->part[p].csa_since = -1;
    s->res->oversubscribed = s->n > s->m->threads;
    if (!s->res->oversubscribed)
        return 0;
    if (s->m->os_ns[SIM_OS_CONTEXT_SWITCH] < 0) {
        snprintf(err, len, "%u participants on %s's %u hardware threads: the OS model needs os.context_switch "
                 "(andgate info --measure writes the os block for this host; the papers give none for theirs)",
                 s->n, s->m->name, s->m->threads);
        return -1;
    }
    struct sim_os *os = calloc(1, sizeof *os);
    if (!os)
        return snprintf(err, len, "out of memory"), -1;
    s->os = os;
    os->cpu = calloc(s->m->threads, sizeof *os->cpu);
    os->span_start = calloc(s->n, sizeof *os->span_start);
    os->span_q = calloc(s->n, sizeof *os->span_q);
    if (!os->cpu || !os->span_start || !os->span_q)
        return snprintf(err, len, "out of memory"), -1;
    for (unsigned c = 0; c < s->m->threads; c++)
        os->cpu[c] = (struct cpu){ .run = -1, .last = -1, .head = -1, .tail = -1 };
    os->ts = s->o->timeslice_ns > 0 ? s->o->timeslice_ns : DEFAULT_TS_NS;
    os->cs = s->m->os_ns[SIM_OS_CONTEXT_SWITCH];
    return 0;
}

void sim_os_free(struct sim *s)
{
    if (s->os) {
        free(s->os->cpu), free(s->os->span_start), free(s->os->span_q);
        free(s->os);
    }
    s->os = NULL;
}

/* ---- run queues and the policy ---- */

static void enqueue(struct sim *s, unsigned p, double t)
{
    struct cpu *c = cpu_of(s, p);
    struct part *x = &s->part[p];
    x->qnext = -1, x->enq_at = t, x->off_since = t, x->on_cpu = 0;
    if (c->tail >= 0)
        s->part[c->tail].qnext = (int)p;
    else
        c->head = (int)p;
    c->tail = (int)p;
    c->nq++;
}

static void unlink_q(struct sim *s, struct cpu *c, int prev, int q)
{
    int next = s->part[q].qnext;
    if (prev >= 0)
        s->part[prev].qnext = next;
    else
        c->head = next;
    if (c->tail == q)
        c->tail = prev;
    s->part[q].qnext = -1;
    c->nq--;
}

/* 1: p has CSA priority at t (004 §VII-A): inside a critical section, within CSALimit (Eq. 2); -1:
 * inside one, but past the limit; 0: not inside one (or not CSA). */
static int csa_state(struct sim *s, unsigned p, double t)
{
    struct part *x = &s->part[p];
    if (s->o->sched != SIM_SCHED_CSA || x->csa_since < 0 || x->csa_expired)
        return 0;
    const struct cpu *c = cpu_of(s, p);
    double limit = ((double)c->nq + (c->run >= 0) - 1) * 2 * s->os->ts; /* ThrReady + ThrRun - 1 */
    return t - x->csa_since < limit ? 1 : -1;
}

/* csa_state's priority; a lapse is recorded once per critical section (then RR until it leaves it). */
static int csa_priority(struct sim *s, unsigned p, double t)
{
    int st = csa_state(s, p, t);
    if (st < 0) {
        s->part[p].csa_expired = 1;
        s->res->os.csa_expiries++;
    }
    return st > 0;
}

/* The queued participant to run next on c at t (-1: none): the first with CSA priority, else the head;
 * only_priority: none unless one has priority (a prioritized runner yields to no other). *prev: its
 * predecessor in the queue. */
static int pick(struct sim *s, struct cpu *c, double t, int only_priority, int *prev)
{
    for (int q = c->head, pr = -1; q >= 0; pr = q, q = s->part[q].qnext)
        if (csa_priority(s, (unsigned)q, t)) {
            *prev = pr;
            return q;
        }
    *prev = -1;
    return only_priority ? -1 : c->head;
}

/* A stretch of p on its CPU begins at t: for the trace, whether others wait, whether p has CSA priority
 * and whether a waiting one with priority was passed over (seen by a scan apart from pick's). */
static void span_begin(struct sim *s, unsigned p, double t)
{
    const struct cpu *c = cpu_of(s, p);
    int prio = csa_state(s, p, t) > 0, passed = 0;
    for (int q = c->head; q >= 0 && !prio; q = s->part[q].qnext)
        passed |= csa_state(s, (unsigned)q, t) > 0;
    s->os->span_start[p] = t;
    s->os->span_q[p] = (c->nq > 0) | prio << 1 | passed << 2;
}

static void span_end(struct sim *s, unsigned p, double t)
{
    struct sim_os_trace *tr = s->o->trace;
    int f = s->os->span_q[p];
    if (tr && tr->n++ < tr->cap)
        tr->span[tr->n - 1] = (struct sim_os_span){ p, s->part[p].hw, s->os->span_start[p], t, f & 1, f >> 1 & 1, f >> 2 & 1 };
}

/* p takes its hardware thread at start (its clock advanced to it); the time off it was not its CPU time */
static void run_on(struct sim *s, unsigned p, double start)
{
    struct cpu *c = cpu_of(s, p);
    struct part *x = &s->part[p];
    if (start - x->enq_at > s->res->os.max_ready_wait_ns && x->enq_at >= 0)
        s->res->os.max_ready_wait_ns = start - x->enq_at;
    x->slept += start - x->off_since;
    x->clock = start;
    x->on_cpu = 1;
    x->enq_at = -1;
    c->run = (int)p;
    if (c->last != (int)p)
        s->res->os.switches++;
    c->last = (int)p;
    c->slice_end = start + s->os->ts;
    span_begin(s, p, start);
}

/* The hardware thread c became free at t: the next queued participant runs after a context switch. */
static void dispatch(struct sim *s, struct cpu *c, double t)
{
    int prev, q = pick(s, c, t, 0, &prev);
    c->run = -1;
    c->free_at = t;
    if (q < 0)
        return;
    unlink_q(s, c, prev, q);
    struct part *x = &s->part[q];
    double at = x->clock > t ? x->clock : t;
    run_on(s, (unsigned)q, at + (c->last == q ? 0 : s->os->cs));
    x->state = RUNNABLE;
    sim_ready_push(s, q);
}

/* ---- the engine's calls ---- */

int sim_os_starts(struct sim *s, unsigned p)
{
    if (!s->os)
        return 1;
    struct cpu *c = cpu_of(s, p);
    struct part *x = &s->part[p];
    x->off_since = x->clock;
    x->enq_at = -1;
    if (c->run < 0) {
        run_on(s, p, x->clock);
        return 1;
    }
    enqueue(s, p, x->clock);
    return 0;
}

/* The running participant at a scheduling point: its slice ended and a participant the policy puts
 * first waits: preempted (1; it is queued, the other dispatched). Otherwise a new slice (0). */
int sim_os_tick(struct sim *s)
{
    unsigned p = s->cur;
    struct part *x = &s->part[p];
    struct cpu *c = cpu_of(s, p);
    int prev;
    if (!c->nq) { /* alone: a slice that ended is renewed (CSALimit is weighed only when others wait) */
        if (x->clock >= c->slice_end)
            c->slice_end = x->clock + s->os->ts;
        return 0;
    }
    if (x->clock < c->slice_end) {
        /* CSA: a participant with priority that became ready preempts one without (004 §VII-A: it "has
         * priority over the execution of all other threads") */
        if (s->o->sched != SIM_SCHED_CSA || csa_priority(s, p, x->clock) || pick(s, c, x->clock, 1, &prev) < 0)
            return 0;
    } else if (pick(s, c, x->clock, csa_priority(s, p, x->clock), &prev) < 0) {
        c->slice_end = x->clock + s->os->ts;
        return 0;
    }
    s->res->os.preemptions++;
    span_end(s, p, x->clock);
    enqueue(s, p, x->clock);
    dispatch(s, c, x->clock);
    return 1;
}

void sim_os_leave(struct sim *s, double t)
{
    if (!s->os)
        return;
    unsigned p = s->cur;
    struct part *x = &s->part[p];
    if (!x->on_cpu)
        return;
    span_end(s, p, t);
    x->on_cpu = 0;
    x->off_since = t;
    x->enq_at = -1;
    dispatch(s, cpu_of(s, p), t);
}

void sim_os_wake(struct sim *s, unsigned q, double t, double idle_cost)
{
    struct part *w = &s->part[q];
    w->state = RUNNABLE;
    w->next_waiter = -1;
    if (!s->os) {
        if (w->clock < t + idle_cost)
            w->clock = t + idle_cost;
    } else {
        if (w->clock < t)
            w->clock = t;
        w->wake_cost = idle_cost;
    }
    sim_ready_push(s, (int)q);
}

/* The running participant resumed by the scheduler without its hardware thread (it was woken): it takes
 * the thread if idle (paying its wake's cost), else waits in the run queue; either way it goes on only
 * when its clock is again the one to run. */
void sim_os_resumed(struct sim *s)
{
    struct part *x = &s->part[s->cur];
    while (s->os && !x->on_cpu) {
        struct cpu *c = cpu_of(s, s->cur);
        if (c->run < 0) {
            x->enq_at = -1; /* no wait for the CPU: the wake-up of an idle one (its measurement includes the switch) */
            double at = x->clock > c->free_at ? x->clock : c->free_at; /* its last runner may leave later */
            run_on(s, s->cur, at + x->wake_cost);
            if (sim_is_next(s))
                return;
            sim_ready_push(s, (int)s->cur);
        } else {
            enqueue(s, s->cur, x->clock);
        }
        sim_switch_away(s);
    }
}

/* CSA's view of p changed (workload.c: a mutex taken or released, woken to take one). */
void sim_os_cs_changed(struct sim *s, unsigned p)
{
    struct part *x = &s->part[p];
    int in = x->held > 0 || x->entering;
    if (in && x->csa_since < 0) {
        x->csa_since = x->clock;
        if (s->o->sched == SIM_SCHED_CSA && s->os)
            s->res->os.csa_grants++;
    } else if (!in) {
        x->csa_since = -1;
        x->csa_expired = 0;
    }
}

/* ns of compute by the running participant, cut where its time slice ends and into pieces of at most
 * PIECE_NS (scheduling points: under CSA a participant with priority that became ready meanwhile takes
 * the hardware thread at the next one, PIECE_NS at most after it became ready). */
void sim_compute(struct sim *s, double ns)
{
    struct part *x = &s->part[s->cur];
    if (!s->os) {
        x->clock += ns;
        return;
    }
    while (ns > 0) {
        double room = cpu_of(s, s->cur)->slice_end - x->clock;
        if (room <= 0) {
            sim_yield(s);
            continue;
        }
        if (s->o->sched == SIM_SCHED_CSA && room > PIECE_NS)
            room = PIECE_NS;
        double step = ns < room ? ns : room;
        x->clock += step;
        ns -= step;
        if (ns > 0)
            sim_yield(s);
    }
}
