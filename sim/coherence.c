/* coherence.c — the coherence model of andgate sim (costs in engine.h): per cache
 * line its owner, sharers with the time each copy arrived, its home, and the time it is busy until
 * (ownership transfers are served one at a time: contention is this queueing). */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdlib.h>

/* ---- the coherence model ---- */

static int sharer(const struct line *l, unsigned p)
{
    return (int)((l->sharers[p / 64] >> (p % 64)) & 1);
}

static double cost(const struct sim *s, unsigned p, unsigned q, const struct line *l)
{
    return sim_machine_cost(s->m, s->part[p].hw, s->part[q].hw, (unsigned)l->home);
}

static void assign_home(struct sim *s, struct line *l)
{
    if (l->home >= 0)
        return;
    unsigned units = s->m->attach < 0 ? 1 : s->m->nattach;
    if (s->m->home_first_touch) {
        l->home = (int)sim_machine_attach_unit(s->m, s->part[s->cur].hw);
    } else { /* hash: the hardware's is undisclosed; uniform from the run's seed */
        uint64_t h = ((uint64_t)(l - s->lines) + 1) * 0x9E3779B97F4A7C15ull ^ s->o->seed * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        l->home = (int)(h % units);
    }
}

/* A line no cache holds: its first access pays the machine's largest cost to the home (README). */
static double first_touch(const struct sim *s, const struct line *l)
{
    double worst = 0;
    unsigned me = s->part[s->cur].hw;
    for (unsigned b = 0; b < s->m->threads; b++) {
        double c = sim_machine_cost(s->m, me, b, (unsigned)l->home);
        if (c > worst)
            worst = c;
    }
    return worst;
}

static double hit(const struct sim *s) { return s->m->layer[s->m->self_layer].ns; }

static int at_home(const struct sim *s, const struct line *l)
{
    return (int)sim_machine_attach_unit(s->m, s->part[s->cur].hw) == l->home;
}

/* "none" machines: the running participant's access to the line at its home unit. */
static double to_home(const struct sim *s, const struct line *l)
{
    if (at_home(s, l))
        return hit(s);
    unsigned per = s->m->threads / (s->m->attach < 0 ? 1 : s->m->nattach);
    return sim_machine_cost(s->m, s->part[s->cur].hw, (unsigned)l->home * per, (unsigned)l->home);
}

static void add_copy(struct line *l, unsigned p, double ready)
{
    if (l->ncp == l->capcp) {
        l->capcp = l->capcp ? 2 * l->capcp : 4;
        l->cp = realloc(l->cp, l->capcp * sizeof *l->cp);
        if (!l->cp)
            abort(); /* out of memory in the middle of a simulation: nothing sensible to return */
    }
    l->cp[l->ncp++] = (struct copy){ p, ready };
    l->sharers[p / 64] |= UINT64_C(1) << (p % 64);
}

static void drop_copies(struct line *l)
{
    for (unsigned k = 0; k < l->ncp; k++)
        l->sharers[l->cp[k].p / 64] = 0;
    l->ncp = 0;
}

/* A read miss by the running participant starting at t: the time the line arrives, from the owner, or
 * from the copy that can deliver it first (a copy still on its way supplies only after it arrived),
 * or at first touch from the home. The reader then shares the line; an owner keeps a shared copy. */
static double read_miss(struct sim *s, struct line *l, double t)
{
    unsigned me = s->cur;
    double done;
    if (l->owner >= 0) {
        done = t + cost(s, me, (unsigned)l->owner, l);
        add_copy(l, (unsigned)l->owner, l->busy_until);
        l->owner = -1;
    } else if (l->ncp) {
        done = -1;
        for (unsigned k = 0; k < l->ncp; k++) {
            double d = (l->cp[k].ready > t ? l->cp[k].ready : t) + cost(s, me, l->cp[k].p, l);
            if (done < 0 || d < done)
                done = d;
        }
    } else {
        done = t + first_touch(s, l);
    }
    add_copy(l, me, done);
    return done;
}

static double start_at(const struct sim *s, const struct line *l)
{
    double t = s->part[s->cur].clock;
    return t > l->busy_until ? t : l->busy_until;
}

void sim_charge_read(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / s->line_slots];
    struct part *p = &s->part[s->cur];
    assign_home(s, l);
    double t = start_at(s, l);
    if (s->m->inval_none) {
        p->clock = t + to_home(s, l);
        if (at_home(s, l))
            s->res->traffic.reads_local++;
        else
            s->res->traffic.reads_remote++;
        return;
    }
    if ((int)s->cur == l->owner || sharer(l, s->cur)) {
        p->clock = t + hit(s);
        s->res->traffic.reads_local++;
        return;
    }
    p->clock = read_miss(s, l, t);
    s->res->traffic.reads_remote++;
}

void sim_charge_write(struct sim *s, uint32_t i, int rmw)
{
    struct line *l = &s->lines[i / s->line_slots];
    struct part *p = &s->part[s->cur];
    unsigned me = s->cur;
    assign_home(s, l);
    double t = start_at(s, l), c;
    if (s->m->inval_none) {
        c = to_home(s, l);
    } else {
        int holds = (int)me == l->owner || sharer(l, me);
        unsigned others = 0;
        double inval = 0;
        if (l->owner >= 0 && l->owner != (int)me) {
            others++;
            inval += sim_machine_alpha(s->m, p->hw, s->part[l->owner].hw) * cost(s, me, (unsigned)l->owner, l);
        }
        for (unsigned k = 0; k < l->ncp; k++) {
            unsigned q = l->cp[k].p;
            if (q != me) {
                others++;
                inval += sim_machine_alpha(s->m, p->hw, s->part[q].hw) * cost(s, me, q, l);
            }
        }
        c = holds ? (others ? inval : hit(s)) : read_miss(s, l, t) - t + inval;
        s->res->traffic.invalidations += others;
        drop_copies(l);
        l->owner = (int)me;
    }
    if (rmw) {
        c += s->m->atomic_extra_ns;
        s->res->traffic.rmws++;
    } else {
        s->res->traffic.writes++;
    }
    p->clock = t + c;
    l->busy_until = p->clock;
}

