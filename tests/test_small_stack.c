/* test_small_stack.c — barriers made and used by threads with the smallest stack POSIX allows
 * (PTHREAD_STACK_MIN, 16 KiB with glibc). glibc's pthread_barrier_init needs next to none, so a program
 * may make its barriers on such threads; andgate's init reads the topology (the process's first), the
 * cgroup's limits and the threads' masks, and until 2026-11-27 took more than 14 KiB doing so: the thread
 * died of a stack overflow, under the shim too (sysfs.h, cgroup.c).
 *
 *   test_small_stack            ag_barrier_init / _wait / _destroy, the process's first init included
 *   test_small_stack --pthread  pthread_barrier_init / _wait / _destroy: run it under the shim
 * Each of 3 rounds: a small thread makes a barrier of 3, it and two more small threads meet on it 100
 * times, it destroys it. A crash is the failure (ctest sees the signal). */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "andgate.h"
#include "check.h"

#define N 3
#define EPISODES 100

static int use_pthread;
static ag_barrier_t *ag;
static pthread_barrier_t pb;

static void *member(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    int serial = 0;
    for (int e = 0; e < EPISODES; e++) {
        int rc = use_pthread ? pthread_barrier_wait(&pb) : ag_barrier_wait(ag, tid);
        serial += rc == (use_pthread ? PTHREAD_BARRIER_SERIAL_THREAD : AG_SERIAL);
        CHECK(rc == 0 || rc == (use_pthread ? PTHREAD_BARRIER_SERIAL_THREAD : AG_SERIAL), "wait: %d", rc);
    }
    return (void *)(size_t)serial;
}

static pthread_t start(pthread_attr_t *at, unsigned tid)
{
    pthread_t t;
    CHECK(pthread_create(&t, at, member, (void *)(size_t)tid) == 0, "create");
    return t;
}

/* A small thread: makes the barrier, starts the others (small too), meets them, destroys it. */
static pthread_attr_t small; /* PTHREAD_STACK_MIN */

static void *maker(void *arg)
{
    (void)arg;
    pthread_attr_t *at = &small;
    ag_config_t cfg = { .nthreads = N };
    int rc = use_pthread ? pthread_barrier_init(&pb, NULL, N) : ag_barrier_init(&ag, &cfg);
    CHECK(rc == 0, "init on a %ld-byte stack: %d", (long)PTHREAD_STACK_MIN, rc);
    if (rc)
        return NULL;
    pthread_t t1 = start(at, 1), t2 = start(at, 2);
    size_t serial = (size_t)member((void *)0);
    void *s1, *s2;
    pthread_join(t1, &s1);
    pthread_join(t2, &s2);
    serial += (size_t)s1 + (size_t)s2;
    CHECK(serial == EPISODES, "%zu serial returns in %d episodes", serial, EPISODES);
    rc = use_pthread ? pthread_barrier_destroy(&pb) : ag_barrier_destroy(ag);
    CHECK(rc == 0, "destroy: %d", rc);
    return NULL;
}

int main(int argc, char **argv)
{
    use_pthread = argc > 1 && !strcmp(argv[1], "--pthread");
    pthread_attr_init(&small);
    CHECK(pthread_attr_setstacksize(&small, PTHREAD_STACK_MIN) == 0, "stack size");
    for (int round = 0; round < 3; round++) {
        pthread_t t;
        CHECK(pthread_create(&t, &small, maker, NULL) == 0, "create");
        pthread_join(t, NULL);
    }
    return check_done();
}
