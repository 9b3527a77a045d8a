/* now.h — the library's clock: CLOCK_MONOTONIC in ns (wait budgets and deadlines, wait.h; flag_now,
 * flags.h). */
#ifndef AG_NOW_H
#define AG_NOW_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ag_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
