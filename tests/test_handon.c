/* test_handon.c — the hand-on (barrier.c, hand_on): under a wait policy that yields, a participant whose
 * release woke a sleeper gives its CPU away once at the end of that call, and only then.
 *
 * Two participants. B waits first; A watches B's thread in /proc until the kernel has put it to sleep
 * (state S: with these policies B sleeps only in its futex; with `yield`, until B has yielded), then
 * arrives, completing the episode and waking B. This file defines sched_yield, so the library's calls
 * come here (the test links the static library) and are counted per thread before they yield.
 * Checked, for each entry point (wait, and a split-phase arrive that releases):
 *   - hybrid with a yield phase (auto's policy when participants outnumber the CPUs): A's call woke B
 *     (ag_flag_wakes_issued moved) and A yielded exactly once in it;
 *   - block (waiters sleep at once, no yielding policy): A woke B and yielded nothing;
 *   - yield (waiters never sleep): nobody to wake, A yielded nothing.
 * Nothing is timed; B's state is polled until it is reached.
 * Prints "N passed, N failed"; exit 1 on failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "andgate.h"
#include "check.h"
#include "flag_wait.h"
#include "proc_state.h"

static _Thread_local unsigned yields; /* this thread's sched_yield calls */
static _Atomic pid_t b_tid;            /* B's kernel thread id, once it runs */
static _Atomic unsigned b_yields;      /* B's sched_yield calls: B is in its yield loop */

int sched_yield(void)
{
    yields++;
    if ((pid_t)syscall(SYS_gettid) == b_tid)
        b_yields++;
    return (int)syscall(SYS_sched_yield);
}

struct party {
    ag_barrier_t *b;
    int rc;
};

static void *party_b(void *p)
{
    struct party *x = p;
    b_tid = (pid_t)syscall(SYS_gettid);
    x->rc = ag_barrier_wait(x->b, 1);
    return NULL;
}

/* A (this thread) completes an episode B sleeps in; returns how often A yielded in its call, and
 * whether that call woke somebody (*woke). */
static unsigned release_sleeper(const char *wait, int split, int *woke, int *rc_a, int *rc_b)
{
    struct party x = { 0 };
    ag_config_t cfg = { .nthreads = 2, .algo = "central", .wait = wait };
    *rc_a = *rc_b = -1;
    *woke = 0;
    if (ag_barrier_init(&x.b, &cfg) != 0)
        return ~0u;
    b_tid = 0;
    b_yields = 0;
    pthread_t th;
    pthread_create(&th, NULL, party_b, &x);
    /* B has arrived and waits: asleep in its futex, or (policy yield) in its yield loop */
    int sleeps = strcmp(wait, "yield") != 0;
    while (!b_tid || (sleeps ? proc_state(getpid(), b_tid) != 'S' : b_yields == 0))
        syscall(SYS_sched_yield); /* not counted: only A's call below is */
    unsigned w0 = ag_flag_wakes_issued(), y0 = yields;
    if (split) {
        ag_token_t tok;
        *rc_a = ag_barrier_arrive(x.b, 0, &tok); /* the last arrival releases B here */
        unsigned y = yields - y0;
        *woke = ag_flag_wakes_issued() != w0;
        if (*rc_a == 0)
            *rc_a = ag_barrier_depart(x.b, 0, tok, NULL);
        pthread_join(th, NULL);
        *rc_b = x.rc;
        ag_barrier_destroy(x.b);
        return y;
    }
    *rc_a = ag_barrier_wait(x.b, 0);
    unsigned y = yields - y0;
    *woke = ag_flag_wakes_issued() != w0;
    pthread_join(th, NULL);
    *rc_b = x.rc;
    ag_barrier_destroy(x.b);
    return y;
}

static int done_ok(int rc)
{
    return rc == 0 || rc == AG_SERIAL;
}

int main(void)
{
    static const struct {
        const char *wait;
        int woke;    /* A's release finds a sleeper */
        unsigned y;  /* A's yields in that call */
    } cases[] = {
        { "hybrid:spin_ns=0,yield_ns=1000", 1, 1 },
        { "block", 1, 0 },
        { "yield", 0, 0 },
    };
    for (int split = 0; split < 2; split++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            int woke, rc_a, rc_b;
            unsigned y = release_sleeper(cases[i].wait, split, &woke, &rc_a, &rc_b);
            const char *how = split ? "arrive" : "wait";
            CHECK(done_ok(rc_a) && done_ok(rc_b) && (rc_a == AG_SERIAL) + (rc_b == AG_SERIAL) == 1,
                  "wait=%s via %s: episode returned A %d, B %d", cases[i].wait, how, rc_a, rc_b);
            CHECK(woke == cases[i].woke, "wait=%s via %s: A's release woke a sleeper: %d, expected %d",
                  cases[i].wait, how, woke, cases[i].woke);
            CHECK(y == cases[i].y, "wait=%s via %s: A yielded %u times in its call, expected %u",
                  cases[i].wait, how, y, cases[i].y);
        }
    return check_done();
}
