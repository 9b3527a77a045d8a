/* test_delay.c — pause:delay_ns in the simulator (sim/poll_delay.c, issue 12 item 3; 003 §2, §4, §5.3), on
 * the hand-made SMT machine (hand_machine.h: a hit 2 ns), each check failing if the delay is ignored:
 *   1. a delayed poller notices a store at its next poll instant wait_t0 + k·(hit + delay), not at once;
 *      it takes hit / (hit + delay) of its core's issue, between a spinner's 1 and a paused waiter's 0;
 *   2. in a run across the two cores, a delay makes the hand-off later than a spin by no more than one
 *      poll period per waiting step;
 *      with backoff (delay_max_ns) the delay doubles after each poll up to the longest;
 *   3. in a run on SMT siblings, what the siblings' polling adds to a barrier (the run with issue sharing
 *      minus the same run without) is smaller with a long delay than with a spin, and not nothing. */
#include <stdio.h>
#include <string.h>

#include "engine_state.h"
#include "hand_machine.h"

static int failures, checks;

static void expect(const char *what, int ok, double got, double want)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL %s: %.6f against %.6f\n", what, got, want);
    }
}

static void near(const char *what, double got, double want)
{
    expect(what, got > want - 1e-9 && got < want + 1e-9, got, want);
}

static void unit(void)
{
    struct sim_machine m = hand_smt_machine(1);
    struct sim_opts o = { .m = &m, .n = 4, .delay_ns = 10 };
    struct part parts[4];
    struct sim s;
    memset(&s, 0, sizeof s);
    memset(parts, 0, sizeof parts);
    s.m = &m, s.o = &o, s.n = 4, s.part = parts;
    parts[1].wait_t0 = 100; /* polls at 100, 112, 124, ... (hit 2 + delay 10) */
    near("a store at its poll instant is seen then", sim_next_poll(&s, &parts[1], 100), 100);
    near("a store just after a poll waits for the next", sim_next_poll(&s, &parts[1], 101), 112);
    near("... on its own clock's grid", sim_next_poll(&s, &parts[1], 112.5), 124);
    near("duty: one hit per poll period", sim_poll_duty(&s), 2.0 / 12);
    for (unsigned t = 0; t < 4; t++)
        parts[t].hw = t, parts[t].state = RUNNABLE;
    if (sim_smt_init(&s)) {
        expect("sim_smt_init", 0, 0, 0);
        return;
    }
    parts[1].state = WAITING;
    near("a delayed sibling takes its duty of the issue", sim_issue_share(&s), 1 + 2.0 / 12);
    o.delay_ns = 0;
    near("without the delay: a spinner takes a full turn", sim_issue_share(&s), 2);
    near("... and sees a store at once", sim_next_poll(&s, &parts[1], 101), 101);
    /* backoff: the delay doubles after each poll, 10, 20, 40, then stays 40: polls at 100, 112, 134, 176,
     * 218, 260, ... */
    o.delay_ns = 10, o.delay_max_ns = 40;
    near("backoff: the first poll a delay after the start", sim_next_poll(&s, &parts[1], 101), 112);
    near("backoff: the delay doubled once", sim_next_poll(&s, &parts[1], 113), 134);
    near("backoff: twice, reaching the longest", sim_next_poll(&s, &parts[1], 135), 176);
    near("backoff: at the longest it stays", sim_next_poll(&s, &parts[1], 177), 218);
    near("backoff: ... on that grid", sim_next_poll(&s, &parts[1], 219), 260);
    near("backoff: a store at a poll instant is seen then", sim_next_poll(&s, &parts[1], 176), 176);
    sim_smt_free(&s);
}

static double run(const struct sim_machine *m, const char *algo, const char *pin, unsigned n, double delay)
{
    struct sim_opts o = { .m = m, .algo = algo, .pin = pin, .n = n, .episodes = 50, .seed = 1, .delay_ns = delay };
    struct sim_result r;
    if (sim_run(&o, &r) != 0) {
        expect(r.error, 0, 0, 0);
        return -1;
    }
    return r.median_ns;
}

static void runs(void)
{
    struct sim_machine m = hand_smt_machine(1), none = hand_smt_machine(0);
    /* 2: one participant per core ("cores"), dissemination's single round: each waits once */
    double spin = run(&m, "dissemination", "cores", 2, 0), late = run(&m, "dissemination", "cores", 2, 30);
    expect("a delay makes the hand-off later", late > spin, late, spin);
    expect("... by at most one poll period (2 + 30 ns)", late <= spin + 32 + 1e-9, late, spin + 32);
    /* 3: four participants on the two cores' SMT threads, the counter per core on siblings */
    double spin_cost = run(&m, "hybrid:group=core", "compact", 4, 0) - run(&none, "hybrid:group=core", "compact", 4, 0);
    double long_cost = run(&m, "hybrid:group=core", "compact", 4, 200) -
                       run(&none, "hybrid:group=core", "compact", 4, 200);
    expect("spinning siblings cost something", spin_cost > 0, spin_cost, 0);
    expect("siblings polling every 200 ns cost less than spinning ones", long_cost < spin_cost, long_cost,
           spin_cost);
    expect("... but not nothing (their polls still issue)", long_cost > 0, long_cost, 0);
}

int main(void)
{
    unit();
    runs();
    printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "ok", failures, checks);
    return failures != 0;
}
