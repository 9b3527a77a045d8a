/* smt.c — SMT siblings share their core's issue (issue 12 item 1; sim/machines/README.md, "SMT issue
 * sharing"): on a machine with coherence.smt_issue, a participant's core-bound steps (a hit, an atomic's
 * extra) take 1 + share × (its spinning siblings) times as long. A sibling that waits with a pause
 * (--wait pause: KNC's delay instruction halts its fetch and issue, 003 §2), has fallen asleep or gone on
 * to yield, or is not waiting, takes no issue turn; one that polls with a delay (pause:delay_ns) takes
 * the fraction of the time it issues its polls (poll_delay.c). So a hand-off on a core whose siblings spin costs
 * more than on one whose siblings pause. */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdlib.h>

int sim_smt_init(struct sim *s)
{
    s->on_hw = malloc(s->m->threads * sizeof *s->on_hw);
    if (!s->on_hw)
        return -1;
    for (unsigned h = 0; h < s->m->threads; h++)
        s->on_hw[h] = -1;
    for (unsigned t = 0; t < s->n; t++)
        s->on_hw[s->part[t].hw] = (int)t;
    return 0;
}

void sim_smt_free(struct sim *s)
{
    free(s->on_hw);
    s->on_hw = NULL;
}

/* The issue turns participant p takes per step of a core-mate at time now: 1 while it spins, its poll's
 * duty while it polls with a delay (poll_delay.c), 0 otherwise. A runnable sibling is between flag
 * operations, and in the engine those are misses it stalls on (the hits in between are its own steps,
 * charged to it): only a spinning loop keeps issuing. */
static double turns(const struct sim *s, const struct part *p, double now)
{
    if (p->state != WAITING || s->o->paused)
        return 0;
    if (s->o->sleeps && now >= p->wait_t0 + s->o->spin_ns)
        return 0; /* past its spin budget it yields or sleeps */
    return s->o->delay_ns > 0 ? sim_poll_duty(s) : 1;
}

double sim_issue_share(const struct sim *s)
{
    const struct sim_machine *m = s->m;
    unsigned smt = m->count[m->nlevels - 1];
    if (m->smt_share <= 0 || smt < 2 || !s->on_hw)
        return 1;
    const struct part *me = &s->part[s->cur];
    unsigned first = me->hw - me->hw % smt;
    double others = 0;
    for (unsigned h = first; h < first + smt; h++) {
        int q = s->on_hw[h];
        if (q >= 0 && (unsigned)q != s->cur)
            others += turns(s, &s->part[q], me->clock);
    }
    return 1 + m->smt_share * others;
}
