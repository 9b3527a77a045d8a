/* wait.h — waiting policies (DESIGN.md: spin, pause, backoff, yield, block, hybrid, auto). */
#ifndef AG_WAIT_H
#define AG_WAIT_H

#include <stdint.h>

#include "now.h"
#include "spec.h"

enum ag_wait_kind { AG_W_SPIN, AG_W_PAUSE, AG_W_BACKOFF, AG_W_YIELD, AG_W_BLOCK, AG_W_HYBRID, AG_W_AUTO };

/* backoff's first pause between two loads (ns); it doubles up to max_ns (flag_wait.c, and the simulator's
 * sim/poll_delay.c) */
#define AG_BACKOFF_FIRST_NS 64

/* A resolved policy ("auto" is resolved to hybrid with budgets). ns: pause delay_ns, backoff max_ns or hybrid spin_ns;
 * yield_ns: hybrid's budget of sched_yield polling after the spin and before the futex; lead_ns: hybrid's
 * paused spin for a group leader before the rest of the policy (flag_wait_lead in flags.h: a waiter whose
 * CPU-mates all wait in the same barrier gains nothing by yielding the CPU to them); stall_ns: hybrid's
 * stall rule, 0 off (below). */
struct ag_waitpol {
    int kind;
    uint64_t ns, yield_ns, lead_ns, stall_ns;
};

/* "auto" while participants do not outnumber the CPUs the process may run on: spin (paused) 20 us, then
 * block. Spinning for about the cost of a futex sleep and wake-up round trip, then blocking, is the
 * classic 2-competitive rule. */
#define AG_AUTO_SPIN_NS 20000u
/* "auto" when participants outnumber those CPUs (a cgroup quota does not count: barrier.c): no spinning
 * (it would burn the timeslice a late participant needs), sched_yield polling for 20 us — the CPU goes
 * straight to a runnable participant and a barrier usually completes without any futex round trip —
 * then block. 20 us is the spin budget's rule again: yield for about what a futex sleep and wake-up
 * cost. It was 5 us until the seventeenth part (docs/results.md): with 4 threads on 2 CPUs a program's
 * waits outlast 5 us (its CPU-mates run their phases), so its threads slept and were woken at nearly
 * every barrier; 20 us (with the stall rule) made the gcc OpenMP apps under the preload 1.1-1.8x faster,
 * back-to-back barriers level or faster (2x at 8 threads), at up to 40% more CPU per episode in the
 * bench's jitter method (waiters yield 20 us where they slept after 5). Longer budgets (50 us to 1 ms)
 * bought the apps nothing more. */
#define AG_AUTO_YIELD_NS 20000u
/* The stall rule of hybrid's yield phase (flag_wait.c), on with stall_ns > 0: auto's AG_YIELD_STALL_NS
 * when participants outnumber the CPUs. A sched_yield that comes back after more than stall_ns means
 * a thread ran that long on the waiter's CPU without giving it away: the program's own phase, or its
 * own busy-wait for a flag (PRK's Reduce spins on a partner's flag between barriers; a slice of Linux's
 * EEVDF scheduler is 0.75 ms times 1 + log2 of the CPUs, and a released waiter that yields runs only
 * when that slice ends). A waiter that yields does not show the releaser that it is waiting for the
 * CPU, one that sleeps does: the releaser's futex wake-up finds it and the hand-on gives it the CPU
 * (barrier.c). So for AG_YIELD_STALL_MEMORY_NS after such a yield, the yield phases of the barrier's
 * waiters last at most AG_STALLED_YIELD_NS, then they sleep. The barrier-bound phases of the OpenMP
 * apps yield for microseconds (a histogram of cg at 4 threads on 2 CPUs: 1 yield in 200 over 8 us, 50
 * of 800,000 over 128 us); Reduce's stalls are 2-8 ms. Off unless asked for: the preload's libomp
 * teams wait as libomp does (yielding for its block time), and the rule cost libomp's barrier-bound
 * apps up to 25% at 8 threads on 2 CPUs. Measured in docs/results.md ("seventeenth part"). */
#define AG_YIELD_STALL_NS 200000u
#define AG_YIELD_STALL_MEMORY_NS 100000000u
#define AG_STALLED_YIELD_NS 5000u
/* ... and, in that case, a group leader's spin before it yields (lead_ns): once a leader's CPU-mates have
 * all arrived, the only useful work left on its CPU is its own exchange with the other groups' leaders, and
 * a sched_yield would hand the CPU to a mate that checks its flag and yields back (two switches, about
 * 2.6 us on the development VM, docs/results.md) for an exchange that takes one or two switches of the
 * other CPUs. As long as the spin of the hybrid rule above, after which the policy goes on as before. */
#define AG_AUTO_LEAD_NS AG_AUTO_SPIN_NS
/* hybrid's spin phase (and a leader's spin) gives the CPU away once per this much spinning: a thread
 * made runnable on the spinner's CPU — a new thread, or one whose wake-up the kernel put beside its waker
 * — runs at once instead of a scheduler slice later (a libomp team's first barrier under the preload,
 * with libomp's 200 ms spin budget: the second thread arrived 1-3 ms late without it). One sched_yield
 * with nothing else runnable costs about 0.5 us on the development VM: 1% of a long spin, and nothing
 * for a barrier that completes within the first 50 us. libomp's spinning waits yield likewise
 * (KMP_USE_YIELD=1). The simulator has one participant per hardware thread and does not model it. */
#define AG_SPIN_YIELD_EVERY_NS 50000u

/* Resolve a parsed wait spec for nthreads participants on `cpus` CPUs (those the process may run on,
 * ag_process_cpu_count(): a cgroup quota does not count, barrier.c says why); placed:
 * the caller said where the participants run (cfg.cpus), without which auto gives no leader spin (a
 * leader's mates share its CPU only where that is known). */
void ag_wait_resolve(const struct ag_spec *sp, unsigned nthreads, unsigned cpus, int placed,
                     struct ag_waitpol *out);
/* "hybrid:spin_ns=20000,yield_ns=0" (",lead_ns=N" when it is not 0); "pause" without a delay, else
 * "pause:delay_ns=N" */
int ag_wait_format(const struct ag_waitpol *wp, char *buf, size_t len);
/* Whether a policy may put a thread to sleep in the kernel (then flags keep sleeper counts). */
static inline int ag_wait_may_block(const struct ag_waitpol *wp)
{
    return wp->kind == AG_W_BLOCK || wp->kind == AG_W_HYBRID;
}

/* Whether a policy gives the CPU away with sched_yield while it waits (yield; hybrid with a yield phase,
 * which is auto's policy when participants outnumber the CPUs). Then a participant
 * whose release woke sleepers gives its CPU away once at the end of the episode (barrier.c, hand_on). */
static inline int ag_wait_yields(const struct ag_waitpol *wp)
{
    return wp->kind == AG_W_YIELD || (wp->kind == AG_W_HYBRID && wp->yield_ns > 0);
}

/* Whether sleeping is the exception (a policy that spins first): then the sleeper pays the Dekker fence
 * with membarrier() and releases stay plain stores; where sleeping is the rule (block, or no spin
 * phase) a membarrier per sleep costs more than a seq_cst store per release (flags.h). */
static inline int ag_wait_sleeps_rarely(const struct ag_waitpol *wp)
{
    return wp->kind == AG_W_HYBRID && wp->ns > 0;
}

static inline void ag_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

#endif
