/* measure_os.c — what the operating system charges a waiter that sleeps (issue 12, item 2: the `os`
 * block of a machine description, so sleeping waits and oversubscription have measured costs):
 *   - futex_wait: a FUTEX_WAIT that returns at once (the word already changed: EAGAIN), the entry and
 *     exit of the system call a sleeping waiter makes;
 *   - futex_wake: a FUTEX_WAKE with no one asleep, what a releaser pays when nobody slept;
 *   - wakeup: one hand-off between two CPUs where the receiver is asleep in FUTEX_WAIT: the releaser's
 *     store and FUTEX_WAKE, the kernel waking the sleeper on its CPU, the sleeper returning (a
 *     ping-pong's round trip / 2, both sides sleeping);
 *   - context_switch: the same ping-pong with both threads on one CPU: each hand-off is a FUTEX_WAKE, a
 *     FUTEX_WAIT and a switch between the two threads;
 *   - yield: a sched_yield with nothing else runnable on the CPU.
 * Timed with CLOCK_MONOTONIC (bench_mono_ns); each run is a batch, one value per run (see measure.h). */
#define _GNU_SOURCE
#include "measure.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"

static long futex(atomic_uint *w, int op, unsigned val)
{
    return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void measure_futex_calls(unsigned calls, unsigned runs, double *wait_ns, double *wake_ns)
{
    atomic_uint w = 1;
    for (unsigned r = 0; r <= runs; r++) { /* run 0 warms up */
        uint64_t t0 = bench_mono_ns();
        for (unsigned i = 0; i < calls; i++)
            futex(&w, FUTEX_WAIT, 0); /* the word is 1, not 0: EAGAIN at once */
        uint64_t t1 = bench_mono_ns();
        for (unsigned i = 0; i < calls; i++)
            futex(&w, FUTEX_WAKE, 1); /* nobody waits */
        uint64_t t2 = bench_mono_ns();
        if (r) {
            wait_ns[r - 1] = (double)(t1 - t0) / calls;
            wake_ns[r - 1] = (double)(t2 - t1) / calls;
        }
    }
}

void measure_yield(unsigned calls, unsigned runs, double *ns)
{
    for (unsigned r = 0; r <= runs; r++) {
        uint64_t t0 = bench_mono_ns();
        for (unsigned i = 0; i < calls; i++)
            sched_yield();
        uint64_t t1 = bench_mono_ns();
        if (r)
            ns[r - 1] = (double)(t1 - t0) / calls;
    }
}

/* The ping-pong: turn is 0 when the pinger may go, 1 when the ponger may. Each side sleeps in
 * FUTEX_WAIT until the other has stored the new turn and called FUTEX_WAKE (no spinning: every hand-off
 * wakes a sleeper, or finds it not yet asleep and its FUTEX_WAIT returns EAGAIN, as the library's
 * block policy would). The seq_cst store before the wake pairs with the waiter's load after it wakes. */
struct pp {
    atomic_uint turn;
    unsigned rounds;
    int cpu;
};

static void hand(atomic_uint *turn, unsigned to)
{
    atomic_store(turn, to);
    futex(turn, FUTEX_WAKE, 1);
}

static void await(atomic_uint *turn, unsigned mine)
{
    unsigned t;
    while ((t = atomic_load(turn)) != mine)
        futex(turn, FUTEX_WAIT, t);
}

static void *ponger(void *arg)
{
    struct pp *p = arg;
    pin_to(p->cpu); /* a CPU of the usable set (the caller's choice); unpinned it still hands back */
    for (unsigned i = 0; i < p->rounds; i++) {
        await(&p->turn, 1);
        hand(&p->turn, 0);
    }
    return NULL;
}

int measure_futex_pingpong(int a, int b, unsigned rounds, unsigned runs, double *oneway_ns)
{
    if (pin_to(a))
        return -1;
    for (unsigned r = 0; r <= runs; r++) {
        struct pp p = { 0, rounds, b };
        pthread_t th;
        if (pthread_create(&th, NULL, ponger, &p))
            return -1;
        uint64_t t0 = bench_mono_ns();
        for (unsigned i = 0; i < rounds; i++) {
            hand(&p.turn, 1);
            await(&p.turn, 0);
        }
        uint64_t t1 = bench_mono_ns();
        pthread_join(th, NULL);
        if (r)
            oneway_ns[r - 1] = (double)(t1 - t0) / rounds / 2;
    }
    return 0;
}
