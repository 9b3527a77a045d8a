/* poll_delay.c — a fixed delay between polls (`--wait pause:delay_ns=N`, src/wait.c) as the simulator runs
 * it (issue 12 item 3), from 003's mechanism, nothing fitted: KNC's delay instruction halts a thread's fetch
 * and issue for a number of cycles (003 §2); 003 §4 ("Busy-Waiting Amortization") puts it in every waiting
 * loop so that busy-waiting costs the other threads less, "balancing the additional latency this
 * introduces for a thread to perceive a store operation"; 003 §5.3 ("Sizing the Delay for Spinning")
 * sweeps it and finds 64 cycles best.
 *
 * A waiter with delay d polls its flag at the instants wait_t0 + k·P, k = 0, 1, ..., of its own clock from
 * when its flag_wait began, P = h + d: one poll issues a load of its valid copy — a hit on the machine's
 * self layer, h — and then halts for d. So
 *   (a) it notices a store made at t at its first poll instant at or after t: up to P later than a free
 *       spinner, the phase set by when it began waiting (deterministic for a given schedule; P / 2 on
 *       average over phases) — sim_next_poll, used by flag_backend.c's resume_at;
 *   (b) it takes h / P of its core's issue turns — its duty, against 1 for a spinner and 0 for a plain
 *       `pause` (modeled as halting issue throughout, smt.c) — sim_poll_duty, used by smt.c.
 * Short delays steal more issue from working siblings, long ones detect stores later: 003's trade-off.
 * The poll is priced as one hit: the compare, branch and the delay instruction's own issue are not
 * counted (no per-instruction issue figures for the KNC core were read), which makes the duty a lower
 * bound.
 *
 * `--wait backoff:max_ns=N` polls the same way with the delay doubling after every poll, from
 * AG_BACKOFF_FIRST_NS up to N, as the library's flag_wait.c does: the polls fall at wait_t0, then each
 * one hit + the current delay after the one before. Its duty is taken at the first delay, the most a
 * backoff poller takes (the share falls as the delay grows; smt.c has one duty per policy). */
#define _GNU_SOURCE
#include "engine_state.h"

#include <math.h>

/* One poll: a load of the waiter's valid copy, a hit on the machine's self layer. */
static double poll_hit(const struct sim *s)
{
    return s->m->layer[s->m->self_layer].ns;
}

double sim_poll_duty(const struct sim *s)
{
    double p = poll_hit(s) + s->o->delay_ns;
    return p > 0 ? poll_hit(s) / p : 1;
}

double sim_next_poll(const struct sim *s, const struct part *w, double t)
{
    if (s->o->delay_ns <= 0 || t <= w->wait_t0)
        return t; /* no delay: it sees the store at once (its copy was invalidated while it spun) */
    double h = poll_hit(s), d = s->o->delay_ns, most = fmax(d, s->o->delay_max_ns);
    double at = w->wait_t0;
    while (d < most) { /* backoff: the polls while the delay still doubles */
        at += h + d;
        if (at >= t)
            return at;
        d = fmin(2 * d, most);
    }
    double p = h + most; /* then one poll every hit + the longest delay */
    return at + ceil((t - at) / p) * p;
}
