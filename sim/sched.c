/* sched.c — the scheduler of andgate sim: the ready set (a binary heap by
 * clock under the fixed schedule, an unordered set under the random one) and the switches between the
 * participants' coroutines and the scheduler (coro.h: no system call). */
#define _GNU_SOURCE
#include "engine_state.h"


struct sim *S;

uint64_t sim_next_rand(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* ---- the ready set ---- */

static int before(const struct sim *s, int a, int b)
{
    double ca = s->part[a].clock, cb = s->part[b].clock;
    return ca < cb || (ca == cb && a < b);
}

static void heap_swap(struct sim *s, unsigned i, unsigned j)
{
    int t = s->ready[i];
    s->ready[i] = s->ready[j];
    s->ready[j] = t;
}

void sim_ready_push(struct sim *s, int p)
{
    unsigned i = s->nready++;
    s->ready[i] = p;
    if (s->o->random_schedule)
        return;
    while (i && before(s, s->ready[i], s->ready[(i - 1) / 2])) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

void sim_ready_update(struct sim *s, int p)
{
    if (s->o->random_schedule)
        return;
    unsigned i = 0;
    while (i < s->nready && s->ready[i] != p)
        i++;
    while (i && i < s->nready && before(s, s->ready[i], s->ready[(i - 1) / 2])) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

int sim_ready_pop(struct sim *s)
{
    unsigned i = s->o->random_schedule ? (unsigned)(sim_next_rand(s) % s->nready) : 0;
    int p = s->ready[i];
    heap_swap(s, i, --s->nready);
    if (!s->o->random_schedule)
        for (i = 0;;) {
            unsigned l = 2 * i + 1, r = l + 1, m = i;
            if (l < s->nready && before(s, s->ready[l], s->ready[m]))
                m = l;
            if (r < s->nready && before(s, s->ready[r], s->ready[m]))
                m = r;
            if (m == i)
                break;
            heap_swap(s, i, m);
            i = m;
        }
    return p;
}

int sim_is_next(struct sim *s)
{
    return !s->o->random_schedule && (!s->nready || before(s, (int)s->cur, s->ready[0]));
}

/* The running participant gives way: to the scheduler if it is no longer the one to run. With the OS
 * model (os_sched.c) a woken participant gets its hardware thread back on resuming, and a time slice
 * may end here, once the participant is the one to run (its clock the smallest: no earlier event may
 * still queue on its hardware thread). */
void sim_yield(struct sim *s)
{
    struct part *p = &s->part[s->cur];
    if (p->state != RUNNABLE || !sim_is_next(s)) {
        if (p->state == RUNNABLE)
            sim_ready_push(s, (int)s->cur);
        coro_switch(&p->co, &s->main);
        sim_os_resumed(s);
    }
    if (s->os && p->state == RUNNABLE && p->on_cpu && sim_os_tick(s)) {
        coro_switch(&p->co, &s->main); /* preempted: back when its hardware thread is dispatched to it */
        sim_os_resumed(s);
    }
}

int sim_schedule(struct sim *s)
{
    while (s->nready) {
        s->cur = (unsigned)sim_ready_pop(s);
        coro_switch(&s->main, &s->part[s->cur].co);
    }
    for (unsigned q = 0; q < s->n; q++)
        if (s->part[q].state != DONE)
            return -1; /* everybody waits: a deadlock */
    return 0;
}
