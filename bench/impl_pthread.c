/* impl_pthread.c — baseline: the POSIX barrier as glibc ships it (pthread_barrier_t, default
 * attributes, i.e. process-private), measured as a user gets it.
 *
 * What glibc does (nptl/pthread_barrier_wait.c, the algorithm since glibc 2.23, checked against the
 * disassembly of this machine's libc.so.6, glibc 2.36): every thread takes a position with one
 * fetch_add on a shared `in` counter; the thread that completes a round advances `current_round` with
 * a CAS and always calls futex_wake(INT_MAX); every other thread calls futex_wait on `current_round`
 * at once. There is no spinning (the source says "TODO We should add spinning with back-off", and the
 * compiled function has no pause loop). On leaving, each thread increments `out` (destroy waits for it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "impl.h"

static int pt_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                   size_t desclen)
{
    (void)spec;
    (void)wait;
    (void)cpus;
    *ctx = NULL;
    if (n == 0)
        return EINVAL;
    pthread_barrier_t *b = malloc(sizeof *b);
    if (!b)
        return ENOMEM;
    int rc = pthread_barrier_init(b, NULL, n); /* default attributes: PTHREAD_PROCESS_PRIVATE */
    if (rc) {
        free(b);
        return rc;
    }
    *ctx = b;
    if (desc && desclen) {
#ifdef __GLIBC__
        snprintf(desc, desclen, "pthread_barrier_t count=%u, default attributes (glibc %s)", n,
                 gnu_get_libc_version());
#else
        snprintf(desc, desclen, "pthread_barrier_t count=%u, default attributes", n);
#endif
    }
    return 0;
}

static void pt_wait(void *ctx, unsigned tid)
{
    (void)tid;
    /* 0 or PTHREAD_BARRIER_SERIAL_THREAD; with a valid barrier there is no error to report */
    (void)pthread_barrier_wait(ctx);
}

static void pt_destroy(void *ctx)
{
    if (!ctx)
        return;
    (void)pthread_barrier_destroy(ctx);
    free(ctx);
}

const struct bench_impl bench_impl_pthread = {
    .name = "pthread",
    .kind = "baseline",
    .settings = "glibc pthread_barrier_t, default attributes (process-private): centralized counter "
                "(fetch_add), the last arriver CASes the round and always calls futex_wake; the "
                "others futex_wait at once, no spinning (nptl/pthread_barrier_wait.c since glibc "
                "2.23; no pause loop in this libc's pthread_barrier_wait)",
    .init = pt_init,
    .wait = pt_wait,
    .destroy = pt_destroy,
    .team = NULL,
};
