/* flag_backend.c — the simulator side of the primitive layer (src/sim_flags.h): each
 * flag operation costs virtual time (coherence.c) and a flag_wait that does not hold blocks the
 * participant until a store to its line. */
#define _GNU_SOURCE
#include "engine_state.h"


/* When waiter w resumes after a store at t, under the wait policy (engine.h, sim_opts): at once while
 * it spins (at its next poll with pause:delay_ns, poll_delay.c), within one sched_yield while it yields, a wake-up latency after the futex_wake while it
 * sleeps (and not before it finished falling asleep). *asleep_at: when it fell asleep, or -1 if it did
 * not (a sleeper wakes only for a store to its own flag, and the storer pays the futex_wake). *idle:
 * the part of the delay an idle hardware thread charges (the OS model charges that, or a context
 * switch on a busy one, itself: os_sched.c). */
static double resume_at(const struct sim *s, const struct part *w, double t, double *asleep_at, double *idle)
{
    const struct sim_opts *o = s->o;
    const double *os = s->m->os_ns;
    double spun = w->wait_t0 + o->spin_ns, yielded = spun + o->yield_ns;
    *asleep_at = -1;
    *idle = 0;
    if (!o->sleeps || t < spun)
        return sim_next_poll(s, w, t); /* t itself unless it polls with a delay (pause:delay_ns) */
    if (t < yielded) {
        *idle = os[SIM_OS_YIELD] / 2; /* on average half a sched_yield until the next poll */
        return t;
    }
    *asleep_at = yielded;
    *idle = os[SIM_OS_WAKEUP];
    double down = yielded + os[SIM_OS_FUTEX_WAIT];
    return t > down - *idle ? t : down - *idle;
}

/* How a waiter a store finds polling re-reads the line (coherence.c's xfer): a paused poll — pause, a
 * hybrid's spin phase or lead spin, pause:delay_ns — leaves its loop without the unpaused spinner's
 * memory-order flush (sim/machines/README.md, "Paused hand-offs"). */
static enum sim_xfer spun(const struct sim *s)
{
    return s->o->paused || s->o->delay_ns > 0 ? SIM_XFER_PAUSED : SIM_XFER_SPUN;
}

/* A store to slot i became visible: the waiters on its line look again, not before it happened; a
 * sleeper only for a store to its own flag, after the storer's futex_wake. */
void sim_wake_line(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / s->line_slots];
    l->stores++;
    double t = s->part[s->cur].clock;
    int woke_sleeper = 0, keep = -1;
    for (int q = l->waiters; q >= 0;) {
        struct part *w = &s->part[q];
        int next = w->next_waiter;
        if (w->lead_until > 0) { /* a leader in its lead spin (sim_wait_lead): off the list either way */
            if (t <= w->lead_until) { /* it sees the store at once, on its hardware thread */
                w->clock = t > w->lead_from ? t : w->lead_from;
                w->lead_until = 0;
                w->state = RUNNABLE;
                w->next_waiter = -1;
                w->spin_woken = SIM_XFER_PAUSED; /* the lead spin pauses (flag_wait.c's spin_to) */
                sim_ready_update(s, q); /* it sits in the ready set at its timer: now earlier */
            } /* else its spin ran out first: its timer runs it on, and its read waits for this store */
            q = next;
            continue;
        }
        double asleep_at, idle, r = resume_at(s, w, t, &asleep_at, &idle);
        if (asleep_at >= 0 && w->wait_slot != i && !s->slots[s->run.fl.broken]) { /* not its flag: sleeps on */
            w->next_waiter = keep;
            keep = q;
            q = next;
            continue;
        }
        if (asleep_at >= 0) {
            woke_sleeper = 1;
            if (!s->os) /* the OS model counts the time off the CPU itself */
                w->slept += r + idle - asleep_at;
        }
        /* it was polling the line, not yielding or asleep: a hand-off's re-read; else a cold one */
        w->spin_woken = asleep_at < 0 && idle == 0 ? spun(s) : SIM_XFER_COLD;
        sim_os_wake(s, (unsigned)q, r, idle);
        q = next;
    }
    l->waiters = keep;
    if (woke_sleeper) /* the releaser's FUTEX_WAKE (the library calls it only when the flag has sleepers) */
        s->part[s->cur].clock += s->m->os_ns[SIM_OS_FUTEX_WAKE];
}

uint64_t sim_load(const ag_flags_t *f, uint32_t i)
{
    struct sim *s = f->sim;
    if (s->quiet)
        return s->slots[i];
    s->res->operations++;
    sim_charge_read(s, i);
    /* the value as the read finds the line when it is served; a store issued while this participant
     * waits for its completion is for the next read to see */
    uint64_t x = s->slots[i];
    sim_yield(s);
    return x;
}

static void store_done(struct sim *s, uint32_t i)
{
    sim_wake_line(s, i);
    sim_yield(s);
}

void sim_store(const ag_flags_t *f, uint32_t i, uint64_t v)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        s->slots[i] = v;
        return;
    }
    s->res->operations++;
    sim_charge_write(s, i);
    s->slots[i] = v;
    store_done(s, i);
}

uint64_t sim_fetch_add(const ag_flags_t *f, uint32_t i, uint64_t d)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        s->slots[i] += d;
        return s->slots[i] - d;
    }
    s->res->operations++;
    uint64_t old;
    sim_charge_rmw(s, i, NULL, &old);
    s->slots[i] = old + d;
    store_done(s, i);
    return old;
}

int sim_cas(const ag_flags_t *f, uint32_t i, uint64_t *expected, uint64_t desired)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        int ok = s->slots[i] == *expected;
        if (ok)
            s->slots[i] = desired;
        else
            *expected = s->slots[i];
        return ok;
    }
    s->res->operations++;
    uint64_t seen;
    int ok = sim_charge_rmw(s, i, expected, &seen) && seen == *expected;
    if (ok) {
        s->slots[i] = desired;
        store_done(s, i);
    } else {
        *expected = seen;
        sim_yield(s);
    }
    return ok;
}

enum { POLL_PARK = 1 << 20 }; /* beside 0 and AG_EBROKEN */

/* A waiter reads its flag: 0 or AG_EBROKEN (the wait is over) or POLL_PARK (wait for a store to *lp's
 * line). A store that landed while a read was served makes it read again: it does not sleep through it. */
static int poll(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, struct line **lp)
{
    struct sim *s = f->sim;
    struct line *l = *lp = &s->lines[i / s->line_slots];
    for (;;) {
        uint64_t seen = l->stores, x = sim_load(f, i);
        int broken = s->slots[f->broken] != 0;
        if (ag_cond_holds(x, cond, v))
            return broken ? AG_EBROKEN : 0;
        if (broken)
            return AG_EBROKEN;
        if (l->stores == seen)
            return POLL_PARK;
    }
}

/* The running participant waits on flag i of line l from t0 (its policy's budgets count from there):
 * on the line's waiter list until a store wakes it (sim_wake_line). */
static struct part *park(struct sim *s, struct line *l, uint32_t i, double t0)
{
    struct part *p = &s->part[s->cur];
    p->wait_t0 = t0;
    p->wait_slot = i;
    p->state = WAITING;
    p->next_waiter = l->waiters;
    l->waiters = (int)s->cur;
    return p;
}

int sim_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    (void)deadline; /* virtual time has no deadlines */
    struct sim *s = f->sim;
    double t0 = s->part[s->cur].clock; /* the policy's budgets count from here */
    for (;;) {
        struct line *l;
        int rc = poll(f, i, cond, v, &l);
        if (rc != POLL_PARK)
            return rc;
        struct part *p = park(s, l, i, t0);
        if (s->os) /* a waiter that does not spin gives its hardware thread away (policy.c refuses spinning) */
            sim_os_leave(s, p->clock + s->m->os_ns[s->o->yield_ns > 0 ? SIM_OS_YIELD : SIM_OS_FUTEX_WAIT]);
        sim_yield(s);
    }
}

static void unlink_waiter(struct sim *s, struct line *l, int me)
{
    for (int *q = &l->waiters; *q >= 0; q = &s->part[*q].next_waiter)
        if (*q == me) {
            *q = s->part[me].next_waiter;
            break;
        }
    s->part[me].next_waiter = -1;
}

/* A group leader's wait (hybrid, flag_wait_lead): a spin of lead_ns that keeps its hardware thread
 * (natively spin_to, src/flag_wait.c), then the policy as every waiter follows it. Parked on the line like
 * a spinning waiter, and in the ready set keyed at the spin's end: a store before then wakes it at once
 * (sim_wake_line moves it up); if none came, the scheduler runs it at the end, which is its timer. Not
 * preempted meanwhile (lead_ns is meant to be far below a time slice). */
int sim_wait_lead(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    struct sim *s = f->sim;
    struct part *p = &s->part[s->cur];
    double until = p->clock + s->o->lead_ns;
    while (s->o->lead_ns > 0 && !s->quiet) {
        struct line *l;
        int rc = poll(f, i, cond, v, &l);
        if (rc != POLL_PARK)
            return rc;
        if (p->clock >= until)
            break;
        park(s, l, i, p->clock);
        p->lead_from = p->clock;
        p->lead_until = p->clock = until;
        sim_ready_push(s, (int)s->cur);
        sim_yield(s);
        if (p->lead_until > 0) { /* the timer: no store during the spin */
            p->lead_until = 0;
            p->state = RUNNABLE;
            unlink_waiter(s, l, (int)s->cur);
            break;
        }
    }
    return sim_wait(f, i, cond, v, deadline);
}

void ag_flags_break(const ag_flags_t *f)
{
    struct sim *s = f->sim;
    s->slots[f->broken] = 1;
    for (uint32_t l = 0; l < s->nlines; l++)
        if (s->lines[l].waiters >= 0)
            sim_wake_line(s, l * s->line_slots);
}

/* The running participant's virtual clock. Reading it costs nothing here (a vDSO clock_gettime is tens
 * of ns natively); only tune.c's timing participant reads it, during the tuning episodes. */
uint64_t sim_now(const ag_flags_t *f)
{
    const struct sim *s = f->sim;
    double t = s->part[s->cur].clock;
    return t > 0 ? (uint64_t)t : 0;
}
