/* check.h — a minimal assertion counter for the unit tests: CHECK(cond, fmt, ...) records a pass or
 * prints the failure; check_done() prints "N passed, N failed" and returns the exit code. Also
 * in_ms(), an absolute CLOCK_MONOTONIC deadline ms from now, for the tests of deadlines. */
#ifndef AG_CHECK_H
#define AG_CHECK_H

#include <stdio.h>
#include <time.h>

static inline struct timespec in_ms(long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L)
        ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    return ts;
}

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) {                                                               \
            check_passed++;                                                       \
        } else {                                                                  \
            if (++check_failed <= 40) { /* the first 40 failures say enough */    \
                printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
                printf(__VA_ARGS__);                                              \
                printf("\n");                                                     \
            }                                                                     \
        }                                                                         \
    } while (0)

static inline int check_done(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
