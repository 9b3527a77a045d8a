/* wait.c — waiting policies: how a participant waits for a flag (DESIGN.md "Spec strings").
 *
 *   spin                 reload the flag in a tight loop
 *   pause                reload with a pause instruction between loads (003 §4 "busy-waiting
 *                        amortization", 003 §5 spin vs paused spin)
 *   pause:delay_ns=N     reload every N ns, pausing in between (003 §2: KNC's delay instruction halts a
 *                        thread's fetch and issue for a number of cycles; 003 §5.3 "Sizing the Delay for
 *                        Spinning" sweeps it, 64 cycles best). The delay is timed with the clock (pause
 *                        instructions until CLOCK_MONOTONIC has moved N ns), not a calibrated loop count:
 *                        a pause instruction's length differs between cores (x86 PAUSE ~10 to ~140
 *                        cycles) and no calibration holds across them. 0 (the default): one pause per poll.
 *   backoff:max_ns=N     exponential backoff between loads, doubling from 64 ns up to N ns
 *   yield                sched_yield() between loads
 *   block                futex sleep at once; a releaser calls futex_wake only when the flag has sleepers
 *   hybrid:spin_ns=N,yield_ns=M,lead_ns=L,stall_ns=S
 *                        paused spin for N ns of wall time, then sched_yield polling for M ns, then futex;
 *                        a group leader (flag_wait_lead: hybrid's leaders) first spins L ns more; S > 0:
 *                        the stall rule (wait.h), M at most 5 us within 100 ms of a yield that came back
 *                        after more than S ns
 *   auto                 hybrid: spin 20 us then block while participants fit the process's CPUs; no spin,
 *                        yield 20 us (with the stall rule), then block, leaders spinning 20 us first, when
 *                        they outnumber them
 *                        (wait.h has the reasons; no leader spin without a known placement)
 * All budgets are wall-clock time, measured with CLOCK_MONOTONIC, never loop iterations.
 * This file is the policies' table, resolution and spelling; flag_wait.c carries them out.
 */
#include "wait.h"

#include <stdio.h>

static const struct ag_key pause_keys[] = {
    AG_KEY_INT("delay_ns", 0, 100000000, "0", "paused wait between two loads of the flag (0: one pause instruction)"),
    { 0 } };
static const struct ag_key backoff_keys[] = {
    AG_KEY_INT("max_ns", 64, 100000000, "16000", "longest pause between two loads of the flag"),
    { 0 } };
static const struct ag_key hybrid_keys[] = {
    AG_KEY_INT("spin_ns", 0, 10000000000L, "20000", "time to spin (paused) before yielding or sleeping"),
    AG_KEY_INT("yield_ns", 0, 10000000000L, "0", "then time to poll with sched_yield before sleeping in a futex"),
    AG_KEY_INT("lead_ns", 0, 10000000000L, "0",
               "a group leader's paused spin before the above (hybrid: its CPU-mates all wait in the barrier)"),
    AG_KEY_INT("stall_ns", 0, 10000000000L, "0",
               "the stall rule: a yield that comes back later than this cuts the barrier's yield phases to 5 us "
               "for 100 ms (0: off)"),
    { 0 } };

static const struct ag_kind wait_kinds[] = {
    [AG_W_SPIN] = { "spin", "busy-wait, reloading the flag", "002 §II-B", NULL },
    [AG_W_PAUSE] = { "pause", "busy-wait with a pause instruction, or a delay, per poll", "003 §2, §4, §5.3",
                     pause_keys },
    [AG_W_BACKOFF] = { "backoff", "exponential backoff between polls", "003 §4", backoff_keys },
    [AG_W_YIELD] = { "yield", "sched_yield between polls", "-", NULL },
    [AG_W_BLOCK] = { "block", "futex sleep at once", "-", NULL },
    [AG_W_HYBRID] = { "hybrid", "paused spin for a time budget, then futex sleep", "-", hybrid_keys },
    [AG_W_AUTO] = { "auto", "hybrid with a budget chosen from the process's CPUs against nthreads", "-", NULL },
};

static const struct ag_kind *wait_get(unsigned i) { return &wait_kinds[i]; }

const struct ag_table ag_wait_table = { "wait policy", sizeof wait_kinds / sizeof wait_kinds[0], wait_get,
                                        NULL };

void ag_wait_resolve(const struct ag_spec *sp, unsigned nthreads, unsigned cpus, int placed,
                     struct ag_waitpol *out)
{
    out->kind = (int)sp->index;
    out->ns = sp->nkeys ? (uint64_t)ag_int(sp->val[0]) : 0;
    out->yield_ns = sp->nkeys > 1 ? (uint64_t)ag_int(sp->val[1]) : 0;
    out->lead_ns = sp->nkeys > 2 ? (uint64_t)ag_int(sp->val[2]) : 0;
    out->stall_ns = sp->nkeys > 3 ? (uint64_t)ag_int(sp->val[3]) : 0;
    if (out->kind == AG_W_AUTO) {
        int over = nthreads > cpus;
        out->kind = AG_W_HYBRID;
        out->ns = over ? 0 : AG_AUTO_SPIN_NS;
        out->yield_ns = over ? AG_AUTO_YIELD_NS : 0;
        out->lead_ns = over && placed ? AG_AUTO_LEAD_NS : 0;
        out->stall_ns = over ? AG_YIELD_STALL_NS : 0;
    }
}

int ag_wait_format(const struct ag_waitpol *wp, char *buf, size_t len)
{
    const struct ag_kind *k = &wait_kinds[wp->kind];
    if (wp->kind == AG_W_HYBRID) {
        char lead[40] = "", stall[40] = ""; /* spelt only when set */
        if (wp->lead_ns)
            snprintf(lead, sizeof lead, ",lead_ns=%llu", (unsigned long long)wp->lead_ns);
        if (wp->stall_ns)
            snprintf(stall, sizeof stall, ",stall_ns=%llu", (unsigned long long)wp->stall_ns);
        return snprintf(buf, len, "%s:spin_ns=%llu,yield_ns=%llu%s%s", k->name, (unsigned long long)wp->ns,
                        (unsigned long long)wp->yield_ns, lead, stall);
    }
    if (k->keys && (wp->ns || wp->kind != AG_W_PAUSE)) /* plain "pause" while it has no delay */
        return snprintf(buf, len, "%s:%s=%llu", k->name, k->keys[0].name, (unsigned long long)wp->ns);
    return snprintf(buf, len, "%s", k->name);
}
