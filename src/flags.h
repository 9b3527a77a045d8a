/* flags.h — the primitive layer: one algorithm source, two worlds (DESIGN.md, "The primitive layer").
 *
 * All shared state of a barrier lives in a flag arena: an array of 64-bit slots addressed by index.
 * Algorithms allocate flags at setup (each on its own cache line, or packed on request; see algo.h) and
 * then use only these operations:
 *
 *   flag_load(f, i)               acquire load
 *   flag_store(f, i, v)           release store (wakes futex sleepers on flag i, if any)
 *   flag_fetch_add(f, i, d)       acq_rel read-modify-write, returns the old value (wakes sleepers)
 *   flag_cas(f, i, &exp, want)    acq_rel compare-and-swap, returns 1 on success, else updates exp
 *   flag_put(f, i, v)             release store without wake-up, only for flags nobody waits on
 *                                 (a participant's episode number, a counter reset); an ordinary
 *                                 shared store in every other respect
 *   flag_wait(f, i, cond, v, dl)  wait until flag i satisfies cond against v, with the barrier's
 *                                 wait policy, until the absolute CLOCK_MONOTONIC deadline dl (ns,
 *                                 AG_NO_DEADLINE for none). Returns 0, ETIMEDOUT, or AG_EBROKEN when
 *                                 the barrier is broken (cancelled or timed out); algorithms pass any
 *                                 nonzero return straight up.
 *   flag_now(f)                   the participant's clock in ns (CLOCK_MONOTONIC natively, the simulated
 *                                 participant's virtual clock in the simulator): for an algorithm that
 *                                 times itself (tune.c), never for correctness
 *   flag_wait_lead(...)           flag_wait for a group leader whose group-mates all wait in the same
 *                                 barrier (hybrid): the policy's lead_ns of paused spin first (wait.h)
 *
 * The broken state: every barrier has one flag, f->broken, nonzero once it is broken. A wait returns 0
 * only if its condition held and the barrier was not broken after it held (checked in that order), so
 * once ag_flags_break() has run, nobody leaves a wait with 0 on the strength of a value it made up.
 *
 * Conditions: AG_EQ (flag == v), AG_NE (flag != v), AG_GE (flag is v or later, modulo 2^64).
 * Rule for blocking: every change an algorithm waits for must change the low 32 bits of the flag
 * (the futex word); all catalogue algorithms store episode numbers or counters, which do.
 *
 * This file is the native backend (C11 atomics, pause, futex). Building with AG_SIM selects the
 * simulator backend instead, which gives the same functions virtual-time costs.
 */
#ifndef AG_FLAGS_H
#define AG_FLAGS_H

#include <stdint.h>

#include "andgate.h"

enum ag_cond { AG_EQ = 0, AG_NE = 1, AG_GE = 2 };

#define AG_NO_DEADLINE UINT64_MAX

static inline int ag_cond_holds(uint64_t x, int cond, uint64_t v)
{
    switch (cond) {
    case AG_EQ: return x == v;
    case AG_NE: return x != v;
    default: return (int64_t)(x - v) >= 0;
    }
}

#ifdef AG_SIM
#include "sim_flags.h"
#else

#include <stdatomic.h>

#include "now.h"

struct ag_waitpol;

/* The native arena handle. slots[i] is flag i; sleepers[i] counts threads blocked in a futex on it. */
typedef struct ag_flags {
    _Atomic uint64_t *slots;
    _Atomic uint32_t *sleepers;         /* NULL when the wait policy never blocks */
    const struct ag_waitpol *wp;
    _Atomic uint64_t *stalled_at;       /* hybrid's stall rule (flag_wait.c): when a waiter's yield last stalled */
    int pshared;
    int asym;                           /* sleepers issue membarrier(): releasers need no fence */
    uint32_t broken;                    /* the broken flag */
    uint32_t nslots;
} ag_flags_t;

/* the slow paths (flag_wait.c): waiting with the policy, futex wake-up, membarrier, break */
#include "flag_wait.h"

static inline int flag_broken(const ag_flags_t *f)
{
    return atomic_load_explicit(&f->slots[f->broken], memory_order_seq_cst) != 0;
}

static inline uint64_t flag_load(const ag_flags_t *f, uint32_t i)
{
    return atomic_load_explicit(&f->slots[i], memory_order_acquire);
}

static inline void flag_put(const ag_flags_t *f, uint32_t i, uint64_t v)
{
    atomic_store_explicit(&f->slots[i], v, memory_order_release);
}

/* With possible sleepers, the releaser's store-then-load of the sleeper count and the sleeper's
 * increment-then-recheck form a Dekker pair: one of the two must see the other. Two ways to order it:
 *   asym    the sleeper (about to make a futex call anyway) runs membarrier(), which puts a full
 *           barrier into every running thread of the process; the releaser needs only a compiler
 *           barrier, so a release costs what it costs without sleepers (flag_wait.c, ag_membarrier_ready);
 *   else    seq_cst store and load (an xchg on x86): where sleeping is the rule (block, or hybrid with
 *           no spin phase: a membarrier per sleep would cost more), for process-shared barriers, and
 *           where membarrier() is unavailable (wait.h, ag_wait_sleeps_rarely). */
static inline void flag_store(const ag_flags_t *f, uint32_t i, uint64_t v)
{
    if (!f->sleepers) {
        atomic_store_explicit(&f->slots[i], v, memory_order_release);
        return;
    }
    if (f->asym) {
        atomic_store_explicit(&f->slots[i], v, memory_order_release);
        atomic_signal_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&f->sleepers[i], memory_order_relaxed))
            ag_flag_wake(f, i);
        return;
    }
    atomic_store_explicit(&f->slots[i], v, memory_order_seq_cst);
    if (atomic_load_explicit(&f->sleepers[i], memory_order_seq_cst))
        ag_flag_wake(f, i);
}

static inline uint64_t flag_fetch_add(const ag_flags_t *f, uint32_t i, uint64_t d)
{
    uint64_t old = atomic_fetch_add_explicit(&f->slots[i], d, memory_order_seq_cst);
    if (f->sleepers && atomic_load_explicit(&f->sleepers[i], memory_order_seq_cst))
        ag_flag_wake(f, i);
    return old;
}

static inline int flag_cas(const ag_flags_t *f, uint32_t i, uint64_t *expected, uint64_t desired)
{
    int ok = atomic_compare_exchange_strong_explicit(&f->slots[i], expected, desired,
                                                     memory_order_seq_cst, memory_order_acquire);
    if (ok && f->sleepers && atomic_load_explicit(&f->sleepers[i], memory_order_seq_cst))
        ag_flag_wake(f, i);
    return ok;
}

static inline int flag_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    if (ag_cond_holds(flag_load(f, i), cond, v))
        return flag_broken(f) ? AG_EBROKEN : 0;
    return ag_flag_wait_slow(f, i, cond, v, deadline);
}

static inline uint64_t flag_now(const ag_flags_t *f)
{
    (void)f;
    return ag_now_ns();
}

/* flag_wait for a group leader (hybrid): a paused spin of the policy's lead_ns before the policy. */
static inline int flag_wait_lead(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    if (ag_cond_holds(flag_load(f, i), cond, v))
        return flag_broken(f) ? AG_EBROKEN : 0;
    return ag_flag_wait_lead_slow(f, i, cond, v, deadline);
}

#endif /* AG_SIM */
#endif /* AG_FLAGS_H */
