/* hw_episode.c — hardware barriers (sim/hw): the device registers arrivals and
 * releases everyone; the last arrival of an episode is its serial participant. */
#define _GNU_SOURCE
#include "engine_state.h"


int sim_hw_episode(struct sim *s, unsigned tid)
{
    struct part *p = &s->part[tid];
    p->clock = s->o->hw->arrive(&s->hwc, tid, p->clock);
    if (!s->hw_count || p->clock >= s->hw_tmax) {
        s->hw_tmax = p->clock;
        s->hw_last = (int)tid;
    }
    if (++s->hw_count < s->n) {
        p->state = WAITING;
        p->serial = 0;
        sim_yield(s);
        return p->serial ? AG_SERIAL : 0;
    }
    s->hw_count = 0;
    for (unsigned q = 0; q < s->n; q++) {
        struct part *w = &s->part[q];
        w->clock = s->o->hw->release(&s->hwc, q, s->hw_tmax);
        w->serial = (int)q == s->hw_last;
        if (q != tid) {
            w->state = RUNNABLE;
            sim_ready_push(s, (int)q);
        }
    }
    int serial = p->serial;
    sim_yield(s);
    return serial ? AG_SERIAL : 0;
}
