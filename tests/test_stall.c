/* test_stall.c — the stall rule of hybrid's yield phase (wait.h, flag_wait.c yield_budget): after one of a
 * barrier's waiters saw a sched_yield come back later than AG_YIELD_STALL_NS, the barrier's waiters yield
 * at most AG_STALLED_YIELD_NS per wait for AG_YIELD_STALL_MEMORY_NS, then sleep, so that the releaser's
 * wake-up finds them and the hand-on gives them the CPU; otherwise they yield for the policy's budget.
 *
 * Three participants under `hybrid:spin_ns=0,yield_ns=10000000000,stall_ns=200000` (10 s of yielding, the
 * rule at auto's threshold): B and C wait, A
 * arrives last. This file defines sched_yield (the test links the static library, so the library's calls
 * come here): B's and C's calls are counted and timed, and one of B's can be made to stall (it sleeps
 * STALL_NS before it returns, as when another thread holds the CPU). Checked, in one barrier:
 *   1. without a stall, B and C yield and do not sleep: A's release wakes nobody;
 *   2. one of B's yields stalls, the episode completes;
 *   3. in the next episode B and C both sleep in their futexes (state S in /proc) although their budget
 *      is 10 s — C too, whose own yields never stalled — and A's release wakes them and hands on (one
 *      sched_yield by A);
 *   4. AG_YIELD_STALL_MEMORY_NS later, they yield again without sleeping.
 * Steps 1 and 4 are skipped, not failed, when a real yield of B or C took longer than AG_YIELD_STALL_NS
 * (a loaded machine stalls them for real). Nothing else is timed: A polls their counters and states, and
 * gives up after 10 s on a state that does not come (a failure).
 * Prints "N passed, N failed"; exit 1 on failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "check.h"
#include "flag_wait.h"
#include "now.h"
#include "proc_state.h"
#include "wait.h"

#define STALL_NS (4ull * AG_YIELD_STALL_NS)
#define GIVE_UP_NS 10000000000ull
#define EPISODES 4

static _Thread_local unsigned yields; /* this thread's sched_yield calls */
static _Thread_local int waiter;      /* 1: B, 2: C */
static _Atomic pid_t tids[3];         /* kernel thread ids of B and C */
static _Atomic unsigned w_yields[3];  /* B's and C's sched_yield calls */
static _Atomic int stall_next;        /* B's next sched_yield stalls */
static _Atomic unsigned b_stalled;    /* B's stalled calls */
static _Atomic int real_stall;        /* a real call of B or C took longer than AG_YIELD_STALL_NS */

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int sched_yield(void)
{
    yields++;
    if (!waiter)
        return (int)syscall(SYS_sched_yield);
    if (waiter == 1 && stall_next) {
        sleep_ns(STALL_NS);
        stall_next = 0;
        b_stalled++;
        w_yields[1]++;
        return 0;
    }
    uint64_t t = ag_now_ns();
    int rc = (int)syscall(SYS_sched_yield);
    if (ag_now_ns() - t > AG_YIELD_STALL_NS)
        real_stall = 1;
    w_yields[waiter]++;
    return rc;
}

struct party {
    ag_barrier_t *b;
    _Atomic int go;          /* episodes B and C may start */
    _Atomic int done[3];     /* episodes B and C have left */
    int rc[3][EPISODES];
};

struct arg {
    struct party *x;
    int who;
};

static void *party(void *p)
{
    struct arg *a = p;
    waiter = a->who;
    tids[a->who] = (pid_t)syscall(SYS_gettid);
    for (int e = 0; e < EPISODES; e++) {
        while (a->x->go <= e)
            syscall(SYS_sched_yield);
        a->x->rc[a->who][e] = ag_barrier_wait(a->x->b, (unsigned)a->who);
        a->x->done[a->who] = e + 1;
    }
    return NULL;
}

static int asleep(int w)
{
    return proc_state(getpid(), tids[w]) == 'S';
}

/* Poll until B and C have each yielded `more` times beyond `from` ('Y'), or (more 0) until both sleep in
 * the kernel ('S'), or (or_sleep) until each has done one or the other ('S' if one sleeps); 0 after
 * GIVE_UP_NS. */
static char await_waiters(const unsigned from[3], unsigned more, int or_sleep)
{
    uint64_t until = ag_now_ns() + GIVE_UP_NS;
    while (ag_now_ns() < until) {
        int ok = 1, slept = 0;
        for (int w = 1; w <= 2; w++) {
            int s = (!more || or_sleep) && asleep(w);
            slept += s;
            ok &= s || (more && w_yields[w] - from[w] >= more);
        }
        if (ok)
            return slept ? 'S' : 'Y';
        syscall(SYS_sched_yield);
    }
    return 0;
}

/* Poll until B's stalled yield has returned: 1, or 0 after GIVE_UP_NS. */
static int await_stall(void)
{
    uint64_t until = ag_now_ns() + GIVE_UP_NS;
    while (ag_now_ns() < until && !b_stalled)
        syscall(SYS_sched_yield);
    return b_stalled == 1;
}

/* A completes the episode: whether its call woke somebody, and how often it yielded in it; then A waits
 * until B and C have left the episode (their yields after the release belong to it). */
static int release(struct party *x, unsigned *y)
{
    unsigned w0 = ag_flag_wakes_issued(), y0 = yields;
    int rc = ag_barrier_wait(x->b, 0);
    CHECK(rc == 0 || rc == AG_SERIAL, "A's wait returned %d", rc);
    *y = yields - y0;
    int woke = ag_flag_wakes_issued() != w0;
    int e = x->go;
    while (x->done[1] < e || x->done[2] < e)
        syscall(SYS_sched_yield);
    return woke;
}

static void snapshot(unsigned from[3])
{
    for (int w = 0; w < 3; w++)
        from[w] = w_yields[w];
}

int main(void)
{
    static struct party x;
    ag_config_t cfg = { .nthreads = 3, .algo = "central",
                        .wait = "hybrid:spin_ns=0,yield_ns=10000000000,stall_ns=200000" };
    if (ag_barrier_init(&x.b, &cfg) != 0) {
        fprintf(stderr, "test_stall: ag_barrier_init failed\n");
        return 1;
    }
    pthread_t th[3];
    struct arg args[3] = { { &x, 0 }, { &x, 1 }, { &x, 2 } };
    for (int w = 1; w <= 2; w++)
        pthread_create(&th[w], NULL, party, &args[w]);
    unsigned y, from[3];

    /* 1: B and C yield 1000 times each, and nobody sleeps */
    snapshot(from);
    x.go = 1;
    CHECK(await_waiters(from, 1000, 1), "episode 1: B and C neither yielded 1000 times nor slept");
    int woke = release(&x, &y);
    if (real_stall)
        printf("episode 1: skipped (a real yield stalled)\n");
    else
        CHECK(!woke && y == 0, "episode 1, no stall: A's release woke a sleeper %d, A yielded %u times "
              "(want 0, 0)", woke, y);

    /* 2: one of B's yields stalls */
    stall_next = 1;
    x.go = 2;
    CHECK(await_stall(), "episode 2: B's yield did not stall");
    release(&x, &y);

    /* 3: within the memory both sleep, and A's release wakes them and hands on */
    snapshot(from);
    x.go = 3;
    CHECK(await_waiters(from, 0, 0) == 'S', "episode 3, after B's stall: B and C did not both sleep within 10 s "
          "(%u and %u yields)", w_yields[1] - from[1], w_yields[2] - from[2]);
    woke = release(&x, &y);
    CHECK(woke && y == 1, "episode 3: A's release woke a sleeper %d, A yielded %u times (want 1, 1)", woke, y);

    /* 4: past the memory they yield for their budget again */
    sleep_ns(AG_YIELD_STALL_MEMORY_NS + AG_YIELD_STALL_MEMORY_NS / 2);
    real_stall = 0;
    snapshot(from);
    x.go = 4;
    CHECK(await_waiters(from, 1000, 1), "episode 4: B and C neither yielded 1000 times nor slept");
    woke = release(&x, &y);
    if (real_stall)
        printf("episode 4: skipped (a real yield stalled)\n");
    else
        CHECK(!woke, "episode 4, the stall forgotten: A's release woke a sleeper");

    for (int w = 1; w <= 2; w++)
        pthread_join(th[w], NULL);
    for (int w = 1; w <= 2; w++)
        for (int e = 0; e < EPISODES; e++)
            CHECK(x.rc[w][e] == 0 || x.rc[w][e] == AG_SERIAL, "waiter %d's wait %d returned %d", w, e + 1,
                  x.rc[w][e]);
    ag_barrier_destroy(x.b);
    return check_done();
}
