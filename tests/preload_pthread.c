/* preload_pthread.c — POSIX barrier semantics, for a program that knows nothing of andgate; run with
 * and without LD_PRELOAD=libandgate-preload.so. Counts 1..20 in rounds (more threads than CPUs),
 * exactly one PTHREAD_BARRIER_SERIAL_THREAD per round, no thread leaving a round before all arrived,
 * plain data handed over, the serial thread destroying and re-creating the barrier right after it
 * returns, changing sets of threads on one barrier, several barriers at once. Prints
 * "N passed, N failed". */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(c, ...) do { if (c) passed++; else { failed++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

enum { ROUNDS = 200, MAXT = 20 };

struct rounds {
    pthread_barrier_t b, guard;
    unsigned n;
    int recreate;
    _Atomic uint64_t arrived;
    _Atomic unsigned serial[ROUNDS];
    _Atomic unsigned errors;
    long data[2][MAXT];
};

struct arg {
    struct rounds *r;
    unsigned tid;
};

static void *rounds_thread(void *p)
{
    struct arg *a = p;
    struct rounds *r = a->r;
    for (unsigned k = 0; k < ROUNDS; k++) {
        r->data[k & 1][a->tid] = (long)k * 100 + a->tid;
        atomic_fetch_add_explicit(&r->arrived, 1, memory_order_relaxed);
        int rc = pthread_barrier_wait(&r->b);
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
            atomic_fetch_add(&r->serial[k], 1);
            if (r->recreate) { /* destroy and re-create at once, while the others are still leaving */
                if (pthread_barrier_destroy(&r->b) || pthread_barrier_init(&r->b, NULL, r->n))
                    atomic_fetch_add(&r->errors, 1);
            }
        } else if (rc != 0) {
            atomic_fetch_add(&r->errors, 1);
        }
        uint64_t seen = atomic_load_explicit(&r->arrived, memory_order_relaxed);
        if (seen < (uint64_t)(k + 1) * r->n)
            atomic_fetch_add(&r->errors, 1);
        for (unsigned j = 0; j < r->n; j++)
            if (r->data[k & 1][j] != (long)k * 100 + j)
                atomic_fetch_add(&r->errors, 1);
        if (r->recreate) /* the re-created barrier is used only once the serial thread is done */
            pthread_barrier_wait(&r->guard);
    }
    return NULL;
}

static void rounds_case(unsigned n, int recreate)
{
    struct rounds *r = calloc(1, sizeof *r);
    r->n = n;
    r->recreate = recreate;
    CHECK(pthread_barrier_init(&r->b, NULL, n) == 0, "init count %u", n);
    pthread_barrier_init(&r->guard, NULL, n);
    pthread_t th[MAXT];
    struct arg a[MAXT];
    for (unsigned t = 0; t < n; t++) {
        a[t] = (struct arg){ r, t };
        pthread_create(&th[t], NULL, rounds_thread, &a[t]);
    }
    for (unsigned t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    unsigned bad = 0;
    for (unsigned k = 0; k < ROUNDS; k++)
        bad += r->serial[k] != 1;
    CHECK(bad == 0 && r->errors == 0, "count %u%s: %u rounds without exactly one serial thread, %u errors", n,
          recreate ? " (re-created by the serial thread)" : "", bad, (unsigned)r->errors);
    CHECK(pthread_barrier_destroy(&r->b) == 0, "destroy count %u", n);
    pthread_barrier_destroy(&r->guard);
    free(r);
}

/* 6 threads on a barrier of 3, the set changing every episode: episode k belongs to threads k, k+1,
 * k+2 (mod 6); the others wait until the episode's serial thread has moved the round on */
enum { MIXED = 600 };
struct mixed {
    pthread_barrier_t b;
    _Atomic unsigned round, serial, errors;
};

struct marg {
    struct mixed *m;
    unsigned tid;
};

static void *mixed_thread(void *p)
{
    struct marg *a = p;
    struct mixed *m = a->m;
    for (unsigned k = 0; k < MIXED; k++) {
        if ((a->tid + 6 - k % 6) % 6 >= 3) /* not in this episode's set */
            continue;
        while (atomic_load(&m->round) < k)
            sched_yield();
        int rc = pthread_barrier_wait(&m->b);
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
            atomic_fetch_add(&m->serial, 1);
            atomic_store(&m->round, k + 1);
        } else if (rc) {
            atomic_fetch_add(&m->errors, 1);
        }
    }
    return NULL;
}

/* two barriers at once, used alternately */
struct two {
    pthread_barrier_t b[2];
    _Atomic unsigned serial[2];
};

static void *two_thread(void *p)
{
    struct two *w = p;
    for (int k = 0; k < 400; k++)
        if (pthread_barrier_wait(&w->b[k & 1]) == PTHREAD_BARRIER_SERIAL_THREAD)
            atomic_fetch_add(&w->serial[k & 1], 1);
    return NULL;
}

int main(void)
{
    pthread_barrier_t z;
    CHECK(pthread_barrier_init(&z, NULL, 0) == EINVAL, "count 0 is EINVAL");
    for (unsigned n = 1; n <= MAXT; n++)
        rounds_case(n, 0);
    for (unsigned n = 1; n <= 8; n++)
        rounds_case(n, 1);

    struct mixed m = { 0 };
    pthread_barrier_init(&m.b, NULL, 3);
    pthread_t th[6];
    struct marg ma[6];
    for (unsigned t = 0; t < 6; t++) {
        ma[t] = (struct marg){ &m, t };
        pthread_create(&th[t], NULL, mixed_thread, &ma[t]);
    }
    for (int t = 0; t < 6; t++)
        pthread_join(th[t], NULL);
    CHECK(m.serial == MIXED && m.errors == 0, "changing sets: %u serial returns (want %d), %u errors",
          (unsigned)m.serial, MIXED, (unsigned)m.errors);
    pthread_barrier_destroy(&m.b);

    struct two w = { 0 };
    pthread_barrier_init(&w.b[0], NULL, 4);
    pthread_barrier_init(&w.b[1], NULL, 4);
    for (int t = 0; t < 4; t++)
        pthread_create(&th[t], NULL, two_thread, &w);
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    CHECK(w.serial[0] == 200 && w.serial[1] == 200, "two barriers: %u and %u serial returns", (unsigned)w.serial[0],
          (unsigned)w.serial[1]);
    pthread_barrier_destroy(&w.b[0]);
    pthread_barrier_destroy(&w.b[1]);

    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    CHECK(pthread_barrier_init(&z, &attr, 1) == 0 && pthread_barrier_wait(&z) == PTHREAD_BARRIER_SERIAL_THREAD &&
              pthread_barrier_destroy(&z) == 0,
          "a process-shared barrier (forwarded to glibc)");
    /* after destroy: waiting or destroying again is undefined, but must not crash (glibc returns; the
     * shim says EINVAL); a new init makes the barrier usable again */
    pthread_barrier_t gone;
    CHECK(pthread_barrier_init(&gone, NULL, 1) == 0 && pthread_barrier_destroy(&gone) == 0, "init, destroy");
    int w2 = pthread_barrier_wait(&gone), d2 = pthread_barrier_destroy(&gone);
    printf("after destroy: wait returned %s, destroy again %s\n", w2 == EINVAL ? "EINVAL" : "something",
           d2 == EINVAL ? "EINVAL" : "something");
    CHECK(pthread_barrier_init(&gone, NULL, 1) == 0 && pthread_barrier_wait(&gone) == PTHREAD_BARRIER_SERIAL_THREAD &&
              pthread_barrier_destroy(&gone) == 0,
          "re-init after destroy");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
