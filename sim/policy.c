/* policy.c — a wait policy (the library's spec string, src/wait.c) as the simulator runs it (issue 12
 * item 2; engine.h, sim_opts): spin and pause spin (a spinning reader costs nothing while its copy is
 * valid; a spinner that does not pause takes its share of its core's issue from its SMT siblings on
 * machines with coherence.smt_issue, a pausing one does not; pause:delay_ns polls on its own clock,
 * poll_delay.c); block, hybrid, yield and auto use the
 * machine's OS costs (its os block, which `andgate info --measure` writes; no paper gives them for its
 * machine); backoff polls on its own clock like pause:delay_ns, the delay doubling from
 * AG_BACKOFF_FIRST_NS to max_ns as in flag_wait.c. auto resolves as the library does, with the machine's
 * hardware threads as the usable CPUs. */
#define _GNU_SOURCE
#include "policy.h"

#include <math.h>
#include <stdio.h>

#include "spec.h"
#include "wait.h"

int sim_wait_policy(const char *wait, const struct sim_machine *m, unsigned n, struct sim_opts *so, char *err,
                    size_t len)
{
    struct ag_spec sp;
    char msg[200];
    if (ag_spec_parse(&ag_wait_table, wait, &sp, msg, sizeof msg)) {
        snprintf(err, len, "--wait %s: %s", wait, msg);
        return -1;
    }
    struct ag_waitpol wp;
    ag_wait_resolve(&sp, n, m->threads, 1, &wp); /* placed: every participant on its hardware thread */
    so->sleeps = 0;
    so->spin_ns = so->yield_ns = so->lead_ns = 0;
    if (n > m->threads && (wp.kind == AG_W_SPIN || wp.kind == AG_W_PAUSE || wp.kind == AG_W_BACKOFF ||
                           (wp.kind == AG_W_HYBRID && wp.ns > 0))) {
        snprintf(err, len, "--wait %s: %u participants on %s's %u hardware threads need a wait that gives the CPU "
                 "away (yield, block, hybrid:spin_ns=0): a spinning waiter is not preempted in this model", wait, n,
                 m->name, m->threads);
        return -1;
    }
    /* pause without a delay, and a hybrid's spin phase (flag_wait.c spins with pause there too): halted
     * issue throughout, seen at once; with a delay, polls every hit + delay */
    so->paused = (wp.kind == AG_W_PAUSE && wp.ns == 0) || wp.kind == AG_W_HYBRID;
    so->delay_ns = wp.kind == AG_W_PAUSE ? (double)wp.ns : wp.kind == AG_W_BACKOFF ? AG_BACKOFF_FIRST_NS : 0;
    so->delay_max_ns = wp.kind == AG_W_BACKOFF ? (double)wp.ns : so->delay_ns;
    switch (wp.kind) {
    case AG_W_SPIN:
    case AG_W_PAUSE:
    case AG_W_BACKOFF:
        return 0;
    case AG_W_YIELD:
        so->yield_ns = INFINITY;
        break;
    case AG_W_BLOCK:
        break;
    default: /* hybrid (auto resolved to it) */
        so->spin_ns = (double)wp.ns;
        so->yield_ns = (double)wp.yield_ns;
        so->lead_ns = (double)wp.lead_ns;
        break;
    }
    so->sleeps = 1;
    static const int needs[] = { SIM_OS_FUTEX_WAIT, SIM_OS_FUTEX_WAKE, SIM_OS_WAKEUP, SIM_OS_YIELD };
    for (unsigned k = 0; k < sizeof needs / sizeof needs[0]; k++) {
        int want = needs[k] == SIM_OS_YIELD ? so->yield_ns > 0 : wp.kind != AG_W_YIELD;
        if (want && m->os_ns[needs[k]] < 0) {
            snprintf(err, len, "--wait %s: machine %s has no os.%s (andgate info --measure writes the os block for "
                     "this host; the papers give none for theirs)", wait, m->name, sim_os_names[needs[k]]);
            return -1;
        }
    }
    return 0;
}
