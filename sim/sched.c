/* sched.c — the scheduler of andgate sim: the ready set (a binary heap by
 * clock under the fixed schedule, an unordered set under the random one) and the switches between the
 * participants' coroutines (coro.h: no system call). A participant that gives way switches straight to
 * the next one; the scheduler's own context runs only at the start and when nobody is ready. */
#define _GNU_SOURCE
#include "engine_state.h"

#include <string.h>

struct sim *S;

uint64_t sim_next_rand(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* ---- the ready set ---- */

/* A binary heap of entries (clock bits, participant index), ordered by clock, then index: a total order,
 * so any correct heap pops the same sequence. The entries carry the clocks so that the comparisons read
 * one small array and compare integers (the participants' records are large and spread out). */

static int before(struct ready a, struct ready b)
{
    return (a.clock < b.clock) | ((a.clock == b.clock) & (a.p < b.p));
}

/* participant p's entry: its clock's bits (a clock is >= 0, and non-negative doubles order as their
 * bits do; + 0.0 turns a -0.0 into +0.0, whose bits are 0) */
static struct ready entry(const struct sim *s, unsigned p)
{
    double c = s->part[p].clock + 0.0;
    struct ready x = { 0, p };
    memcpy(&x.clock, &c, sizeof c);
    return x;
}

/* x into the hole at i, moving earlier-ordered parents down */
static void sift_up(struct sim *s, unsigned i, struct ready x)
{
    while (i && before(x, s->ready[(i - 1) / 2])) {
        s->ready[i] = s->ready[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->ready[i] = x;
}

/* x into the hole at the root. The hole descends along the earlier child of each level. For the heap's
 * last entry (a pop; near = 0), which belongs near the bottom, it goes to a leaf without comparing with
 * x (one comparison a level), and x rises from there. For the entry of the participant that just ran
 * (near = 1), a little later than the earliest and usually higher up, it stops where x fits. */
static inline void sift_down(struct sim *s, struct ready x, int near)
{
    const unsigned n = s->nready;
    unsigned i = 0, c;
    while ((c = 2 * i + 1) < n) {
        if (c + 1 < n && before(s->ready[c + 1], s->ready[c]))
            c++;
        if (near && !before(s->ready[c], x))
            break;
        s->ready[i] = s->ready[c];
        i = c;
    }
    if (near)
        s->ready[i] = x;
    else
        sift_up(s, i, x);
}

void sim_ready_push(struct sim *s, int p)
{
    struct ready x = entry(s, (unsigned)p);
    unsigned i = s->nready++;
    if (s->o->random_schedule)
        s->ready[i] = x;
    else
        sift_up(s, i, x);
}

void sim_ready_update(struct sim *s, int p)
{
    if (s->o->random_schedule)
        return;
    unsigned i = 0;
    while (i < s->nready && s->ready[i].p != (unsigned)p)
        i++;
    if (i < s->nready)
        sift_up(s, i, entry(s, (unsigned)p));
}

/* The earliest clock in the random ready set: a low-water time while it is the earliest (sim_low_water) */
static double earliest_ready(const struct sim *s)
{
    double low = s->part[s->ready[0].p].clock;
    for (unsigned k = 1; k < s->nready; k++)
        if (s->part[s->ready[k].p].clock < low)
            low = s->part[s->ready[k].p].clock;
    return low;
}

int sim_ready_pop(struct sim *s)
{
    if (s->o->random_schedule) {
        if (++s->pops >= s->nready) { /* found again once per nready pops: O(1) a pop */
            s->pops = 0;
            s->low_water = earliest_ready(s);
        }
        unsigned i = (unsigned)(sim_next_rand(s) % s->nready);
        int p = (int)s->ready[i].p;
        s->ready[i] = s->ready[--s->nready];
        return p;
    }
    int p = (int)s->ready[0].p;
    struct ready last = s->ready[--s->nready];
    if (s->nready)
        sift_down(s, last, 0);
    return p;
}

/* p joins the ready set and the one to run next leaves it: a push then a pop, in one pass when the
 * earliest entry is ahead of p (under the fixed schedule) */
static int ready_exchange(struct sim *s, int p)
{
    struct ready x = entry(s, (unsigned)p);
    if (s->o->random_schedule || !s->nready || !before(s->ready[0], x)) {
        sim_ready_push(s, p);
        return sim_ready_pop(s);
    }
    int q = (int)s->ready[0].p;
    sift_down(s, x, 1);
    return q;
}

/* A time no request issued from now on starts before: the running participant issues at its clock or
 * later (coherence.c's start_at), a ready one runs at its clock or later, and a waiting one is woken at
 * its waker's clock or later (sim_os_wake, sim_wake_line), so the earliest of the running and the ready
 * ones' clocks bounds every request to come, and that bound never goes back. Under the fixed schedule it
 * is the running one's or the heap's root; under the random one the earliest ready clock found at a pop
 * (the running one was in the ready set then), found again every nready pops and stale in between,
 * which keeps a bound, only a lower one. */
double sim_low_water(const struct sim *s)
{
    if (s->o->random_schedule)
        return s->low_water;
    double low = s->part[s->cur].clock, root;
    if (s->nready) {
        memcpy(&root, &s->ready[0].clock, sizeof root);
        if (root < low)
            low = root;
    }
    return low;
}

int sim_is_next(struct sim *s)
{
    return !s->o->random_schedule &&
           (!s->nready || before(entry(s, s->cur), s->ready[0]));
}

/* Runs participant q in place of the running one; returns when somebody switches back to it. */
static void run_next(struct sim *s, unsigned q)
{
    struct part *p = &s->part[s->cur];
    if (q == s->cur)
        return; /* it was the next itself */
    s->cur = q;
    coro_switch(&p->co, &s->part[q].co);
}

/* The running participant's turn ends (it waits, is done, or was preempted): the next in the ready set
 * runs, switched to directly, or the scheduler when nobody is ready (the end, or a deadlock). Returns
 * when somebody switches back to it. */
void sim_switch_away(struct sim *s)
{
    if (s->nready)
        run_next(s, (unsigned)sim_ready_pop(s));
    else
        coro_switch(&s->part[s->cur].co, &s->main);
}

/* The running participant gives way if it is no longer the one to run. With the OS
 * model (os_sched.c) a woken participant gets its hardware thread back on resuming, and a time slice
 * may end here, once the participant is the one to run (its clock the smallest: no earlier event may
 * still queue on its hardware thread). */
void sim_yield(struct sim *s)
{
    struct part *p = &s->part[s->cur];
    if (p->state != RUNNABLE) {
        sim_switch_away(s);
        sim_os_resumed(s);
    } else if (!sim_is_next(s)) {
        run_next(s, (unsigned)ready_exchange(s, (int)s->cur));
        sim_os_resumed(s);
    }
    if (s->os && p->state == RUNNABLE && p->on_cpu && sim_os_tick(s)) {
        sim_switch_away(s); /* preempted: back when its hardware thread is dispatched to it */
        sim_os_resumed(s);
    }
}

/* Runs the participants until none is ready: each hands the turn on itself (sim_switch_away), and
 * control comes back here only when nobody is ready. */
int sim_schedule(struct sim *s)
{
    if (s->nready) {
        s->cur = (unsigned)sim_ready_pop(s);
        coro_switch(&s->main, &s->part[s->cur].co);
    }
    for (unsigned q = 0; q < s->n; q++)
        if (s->part[q].state != DONE)
            return -1; /* everybody waits: a deadlock */
    return 0;
}
