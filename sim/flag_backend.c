/* flag_backend.c — the simulator side of the primitive layer (src/sim_flags.h): each
 * flag operation costs virtual time (coherence.c) and a flag_wait that does not hold blocks the
 * participant until a store to its line. */
#define _GNU_SOURCE
#include "engine_state.h"


/* A store to the line became visible: its waiters look again, not before it happened. */
void sim_wake_line(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / s->line_slots];
    l->stores++;
    double t = s->part[s->cur].clock;
    for (int q = l->waiters; q >= 0;) {
        struct part *w = &s->part[q];
        int next = w->next_waiter;
        w->state = RUNNABLE;
        w->next_waiter = -1;
        if (w->clock < t)
            w->clock = t;
        sim_ready_push(s, q);
        q = next;
    }
    l->waiters = -1;
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
    sim_charge_write(s, i, 0);
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
    sim_charge_write(s, i, 1);
    uint64_t old = s->slots[i];
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
    sim_charge_write(s, i, 1);
    int ok = s->slots[i] == *expected;
    if (ok) {
        s->slots[i] = desired;
        store_done(s, i);
    } else {
        *expected = s->slots[i];
        sim_yield(s);
    }
    return ok;
}

int sim_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    (void)deadline; /* virtual time has no deadlines */
    struct sim *s = f->sim;
    for (;;) {
        struct line *l = &s->lines[i / s->line_slots];
        uint64_t seen = l->stores, x = sim_load(f, i);
        int broken = s->slots[f->broken] != 0;
        if (ag_cond_holds(x, cond, v))
            return broken ? AG_EBROKEN : 0;
        if (broken)
            return AG_EBROKEN;
        if (l->stores != seen)
            continue; /* a store landed while the read was served: read again, do not sleep through it */
        struct part *p = &s->part[s->cur];
        p->state = WAITING;
        p->next_waiter = l->waiters;
        l->waiters = (int)s->cur;
        sim_yield(s);
    }
}

void ag_flags_break(const ag_flags_t *f)
{
    struct sim *s = f->sim;
    s->slots[f->broken] = 1;
    for (uint32_t l = 0; l < s->nlines; l++)
        if (s->lines[l].waiters >= 0)
            sim_wake_line(s, l * s->line_slots);
}
