/* flag_wait.c — the native primitive layer's slow paths (flag_wait.h): waiting for a flag with the
 * barrier's wait policy (wait.h), futex sleep and wake-up, the membarrier() half of the asymmetric
 * fence, and breaking a barrier. flags.h inlines the fast paths and calls here; the policy itself is
 * only data here (struct ag_waitpol), so the dependency goes one way: flags.h -> flag_wait.c -> wait.h.
 * The simulator has its own backend (sim_flags.h) and does not build this file.
 */
#define _GNU_SOURCE
#include "flag_wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "andgate.h"
#include "flags.h"
#include "wait.h"

/* ---- membarrier: the sleeper's half of the asymmetric fence ---- */

static int membarrier_state; /* 1 offered by the kernel, -1 unavailable */
static pthread_once_t membarrier_once = PTHREAD_ONCE_INIT;
static int membarrier_registered; /* 1 registered, -1 the registration failed */
static pthread_once_t register_once = PTHREAD_ONCE_INIT;

int ag_membarrier_env_check(char *msg, size_t msglen)
{
    const char *env = getenv("ANDGATE_MEMBARRIER");
    if (!env || !*env || !strcmp(env, "0") || !strcmp(env, "1"))
        return 0;
    snprintf(msg, msglen, "ANDGATE_MEMBARRIER='%s': expected 0 or 1", env);
    return EINVAL;
}

static void membarrier_query(void)
{
    const char *env = getenv("ANDGATE_MEMBARRIER"); /* "0": use seq_cst releases (tests cover both) */
    if (env && !strcmp(env, "0")) {
        membarrier_state = -1;
        return;
    }
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    membarrier_state = cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ? 1 : -1;
}

int ag_membarrier_ready(void)
{
    pthread_once(&membarrier_once, membarrier_query);
    return membarrier_state == 1;
}

static void membarrier_register(void)
{
    membarrier_registered = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1 : -1;
}

/* When the registration happens. In a process with one thread the kernel only marks it (1-2 us); with
 * more it waits for an RCU grace period (15 ms measured in a VM; the first barrier of every process paid
 * it when ag_barrier_init registered). So the library registers as it is loaded, while glibc knows the
 * process single-threaded (LD_PRELOAD, a program linked with it); otherwise (a dlopen from a threaded
 * program) the first sleeper does it, about to wait anyway, and a barrier that never sleeps never pays. */
__attribute__((constructor)) static void membarrier_register_at_load(void)
{
    if (__libc_single_threaded && ag_membarrier_ready())
        pthread_once(&register_once, membarrier_register);
}

/* A full memory barrier in every running thread of this process: after it, any releaser whose
 * sleeper-count load missed our increment has its earlier flag store visible to us. 0, or -1 when the
 * process could not be registered (then the caller must not sleep: nothing orders the releasers'
 * plain stores before their look at the sleeper count). */
static int membarrier_all(void)
{
    pthread_once(&register_once, membarrier_register);
    if (membarrier_registered != 1)
        return -1;
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    return 0;
}

/* ---- futex ---- */

static _Atomic uint32_t *futex_word(const ag_flags_t *f, uint32_t i)
{
    /* the low 32 bits of the 64-bit flag */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (_Atomic uint32_t *)(void *)&f->slots[i];
#else
    return (_Atomic uint32_t *)(void *)&f->slots[i] + 1;
#endif
}

static _Thread_local unsigned wakes_issued; /* wake-ups that found a sleeper, by this thread */

unsigned ag_flag_wakes_issued(void)
{
    return wakes_issued;
}

void ag_flag_wake(const ag_flags_t *f, uint32_t i)
{
    if (syscall(SYS_futex, futex_word(f, i), f->pshared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
                NULL, 0) > 0)
        wakes_issued++;
}

/* Sleep while flag i is unchanged; 0 when the condition holds, ETIMEDOUT past the deadline. */
/* 1: the condition holds and the barrier is not broken; 2: the barrier is broken; 0: keep waiting.
 * The broken check comes after the condition (flags.h): a value that satisfies a waiter only because
 * ag_flags_break() changed it is always followed by a visible broken flag. */
static inline int ready(const ag_flags_t *f, uint32_t i, int cond, uint64_t v)
{
    int held = ag_cond_holds(flag_load(f, i), cond, v);
    return flag_broken(f) ? 2 : held;
}

static inline int outcome(int r)
{
    return r == 1 ? 0 : AG_EBROKEN;
}

/* Sleep while flag i is unchanged: 0 once the condition holds, ETIMEDOUT past the deadline,
 * AG_EBROKEN once the barrier is broken. */
static int block(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    int rc = 0;
    struct timespec ts, *tsp = NULL;
    if (deadline != AG_NO_DEADLINE) {
        ts.tv_sec = (time_t)(deadline / 1000000000u);
        ts.tv_nsec = (long)(deadline % 1000000000u);
        tsp = &ts;
    }
    int op = FUTEX_WAIT_BITSET | (f->pshared ? 0 : FUTEX_PRIVATE_FLAG);
    /* Announce the sleeper before the last look at the flag: a releaser stores the flag, then reads
     * the sleeper count, so either it sees us or we see its store (flags.h explains the two fences).
     * ag_flags_break() likewise stores the broken flag, then reads the sleeper counts (seq_cst). */
    atomic_fetch_add_explicit(&f->sleepers[i], 1, memory_order_seq_cst);
    const int poll = f->asym && membarrier_all() != 0; /* no fence: yield between looks, never sleep */
    for (;;) {
        uint64_t x = atomic_load_explicit(&f->slots[i], memory_order_seq_cst);
        int held = ag_cond_holds(x, cond, v);
        if (flag_broken(f)) {
            rc = AG_EBROKEN;
            break;
        }
        if (held)
            break;
        if (deadline != AG_NO_DEADLINE && ag_now_ns() >= deadline) {
            rc = ETIMEDOUT;
            break;
        }
        /* The kernel sleeps only while the low word still equals what we saw (a break changes it). */
        if (poll)
            sched_yield();
        else
            syscall(SYS_futex, futex_word(f, i), op, (uint32_t)x, tsp, NULL, FUTEX_BITSET_MATCH_ANY);
    }
    atomic_fetch_sub_explicit(&f->sleepers[i], 1, memory_order_relaxed);
    return rc;
}

void ag_flags_break(const ag_flags_t *f)
{
    atomic_store_explicit(&f->slots[f->broken], 1, memory_order_seq_cst);
    if (!f->sleepers)
        return; /* spinners see the flag at their next poll */
    /* Sleepers: change the futex word under each (so one that is about to call futex_wait returns at
     * once) and wake it. The flag values are garbage from now on; ag_barrier_reset rewrites them. */
    for (uint32_t i = 0; i < f->nslots; i++)
        if (atomic_load_explicit(&f->sleepers[i], memory_order_seq_cst)) {
            atomic_fetch_add_explicit(&f->slots[i], 1, memory_order_seq_cst);
            ag_flag_wake(f, i);
        }
}

#define DEADLINE_CHECK_EVERY 64u

/* The stall rule of hybrid's yield phase (stall_ns > 0; wait.h says why): the yield budget of a wait that
 * starts at `start`, the policy's, or AG_STALLED_YIELD_NS within AG_YIELD_STALL_MEMORY_NS of a stall.
 * The memory (f->stalled_at, 0: never) is the barrier's, not the thread's: with threads the kernel moves
 * between CPUs, the next thread kept from its CPU is seldom the last one (PRK's Reduce unbound: 0.75-0.96
 * ms per iteration with a memory per thread, 0.45 with one per barrier, docs/results.md "seventeenth
 * part"). A relaxed word: a heuristic, ordered with nothing. */
static uint64_t yield_budget(const ag_flags_t *f, uint64_t start)
{
    uint64_t yield_ns = f->wp->yield_ns;
    if (!f->wp->stall_ns || yield_ns <= AG_STALLED_YIELD_NS || !f->stalled_at)
        return yield_ns;
    uint64_t at = atomic_load_explicit(f->stalled_at, memory_order_relaxed);
    return at && start - at < AG_YIELD_STALL_MEMORY_NS ? AG_STALLED_YIELD_NS : yield_ns;
}

/* A yield of this wait came back at `back`, `took` ns after it began. */
static void note_yield(const ag_flags_t *f, uint64_t back, uint64_t took)
{
    if (f->wp->stall_ns && took > f->wp->stall_ns && f->stalled_at)
        atomic_store_explicit(f->stalled_at, back, memory_order_relaxed);
}

/* Pause instructions until the clock reaches t: backoff's pauses and pause:delay_ns's delay (wait.c says
 * why the clock and not a calibrated count). */
static void pause_until(uint64_t t)
{
    while (ag_now_ns() < t)
        ag_cpu_relax();
}

/* Paused spin until flag i is ready or the clock reaches `until` (read every DEADLINE_CHECK_EVERY
 * polls), with a sched_yield every AG_SPIN_YIELD_EVERY_NS (wait.h says why): ready()'s result, 0 when
 * the time ran out. */
static int spin_to(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t until)
{
    unsigned it = 0;
    uint64_t polite = 0; /* the first clock read sets when to yield first */
    int r;
    while (!(r = ready(f, i, cond, v))) {
        ag_cpu_relax();
        if (++it % DEADLINE_CHECK_EVERY)
            continue;
        uint64_t now = ag_now_ns();
        if (now >= until)
            break;
        if (now >= polite) {
            if (polite)
                sched_yield();
            polite = now + AG_SPIN_YIELD_EVERY_NS;
        }
    }
    return r;
}

/* A load of the flag, pauses for d ns, and again, d doubling from `first` up to `most`: backoff (64 ns up
 * to max_ns) and pause:delay_ns (first = most = delay_ns). The clock read that times a pause is part of it. */
static int paced(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline, uint64_t first,
                 uint64_t most)
{
    uint64_t d = first;
    int r;
    while (!(r = ready(f, i, cond, v))) {
        uint64_t now = ag_now_ns();
        if (now >= deadline)
            return ETIMEDOUT;
        pause_until(now + d);
        d = d * 2 > most ? most : d * 2;
    }
    return outcome(r);
}

int ag_flag_wait_slow(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    const struct ag_waitpol *wp = f->wp;
    unsigned it = 0;
    int r;
    switch (wp->kind) {
    case AG_W_PAUSE:
        if (wp->ns)
            return paced(f, i, cond, v, deadline, wp->ns, wp->ns);
        break; /* one pause instruction per poll, below */
    case AG_W_BLOCK:
        return block(f, i, cond, v, deadline);
    case AG_W_HYBRID: {
        /* phase 1: paused spin for spin_ns; phase 2: sched_yield polls for yield_ns (shorter after a
         * stall: yield_budget); then the futex.
         * A barrier often completes within a few polls: poll before reading the clock (a clock read
         * costs as much as a cache-line transfer on some machines) and start the budget after them. */
        if (wp->ns)
            for (unsigned k = 0; k < DEADLINE_CHECK_EVERY; k++) {
                if ((r = ready(f, i, cond, v)))
                    return outcome(r);
                ag_cpu_relax();
            }
        uint64_t start = ag_now_ns(), spin_until = start + wp->ns;
        uint64_t yield_until = spin_until + yield_budget(f, start);
        if (yield_until > deadline)
            yield_until = deadline;
        if (spin_until > yield_until)
            spin_until = yield_until;
        if (wp->ns && (r = spin_to(f, i, cond, v, spin_until)))
            return outcome(r);
        uint64_t now = wp->ns ? ag_now_ns() : start;
        while (!(r = ready(f, i, cond, v))) {
            if (now >= yield_until)
                return block(f, i, cond, v, deadline);
            sched_yield();
            uint64_t back = ag_now_ns(); /* after the yield: the last one, before the flag is seen, counts */
            note_yield(f, back, back - now);
            now = back;
        }
        return outcome(r);
    }
    case AG_W_BACKOFF:
        return paced(f, i, cond, v, deadline, AG_BACKOFF_FIRST_NS, wp->ns);
    default:
        break;
    }
    /* spin, pause, yield */
    while (!(r = ready(f, i, cond, v))) {
        if (wp->kind == AG_W_PAUSE)
            ag_cpu_relax();
        else if (wp->kind == AG_W_YIELD)
            sched_yield();
        if (++it % DEADLINE_CHECK_EVERY == 0 && deadline != AG_NO_DEADLINE && ag_now_ns() >= deadline)
            return ETIMEDOUT;
    }
    return outcome(r);
}

int ag_flag_wait_lead_slow(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    /* a paused spin for lead_ns (hybrid's group leader: its CPU-mates all wait in this barrier, so
     * the CPU has nothing better to run), then the policy as every waiter follows it */
    if (!f->wp->lead_ns)
        return ag_flag_wait_slow(f, i, cond, v, deadline);
    uint64_t until = ag_now_ns() + f->wp->lead_ns;
    int r = spin_to(f, i, cond, v, until < deadline ? until : deadline);
    return r ? outcome(r) : ag_flag_wait_slow(f, i, cond, v, deadline);
}
