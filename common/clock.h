/* clock.h — the benchmark's clock: the invariant TSC where the CPU says it is invariant (synchronized
 * across cores, constant rate), CLOCK_MONOTONIC otherwise. Ticks are converted to ns by a calibration
 * against CLOCK_MONOTONIC; with the TSC, ticks are reference cycles. */
#ifndef AG_BENCH_CLOCK_H
#define AG_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#endif

struct bench_clock {
    int tsc;              /* 1: ticks are TSC cycles; 0: ticks are CLOCK_MONOTONIC ns */
    double ticks_per_ns;  /* 1.0 for CLOCK_MONOTONIC */
};

extern struct bench_clock bench_clk;

/* Decide the clock and calibrate (about 50 ms); call once before measuring. */
void bench_clock_init(void);

/* EPCC's delay(): a loop of len iterations the compiler keeps (the compute between two barriers) */
void bench_delay(unsigned len);
/* The len of bench_delay that takes about target_ns on this CPU (measured now, in CLOCK_MONOTONIC). */
unsigned bench_calibrate_delay(uint64_t target_ns);

static inline uint64_t bench_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A timestamp ordered after every earlier instruction of this thread (arrival stamps). */
static inline uint64_t bench_ticks(void)
{
#ifdef BENCH_HAVE_TSC
    if (bench_clk.tsc) {
        unsigned aux;
        uint64_t t = __rdtscp(&aux); /* waits for earlier instructions to complete */
        _mm_lfence();                /* and keeps later ones from starting before it */
        return t;
    }
#endif
    return bench_mono_ns();
}

static inline double bench_ticks_to_ns(double ticks) { return ticks / bench_clk.ticks_per_ns; }

#endif
