/* clock.c — clock choice and TSC calibration (see clock.h). */
#include "clock.h"

#include <stdio.h>
#include <string.h>

#ifdef BENCH_HAVE_TSC
#include <cpuid.h>
#endif

struct bench_clock bench_clk = { 0, 1.0 };

/* CPUID 0x80000007 EDX bit 8: invariant TSC (runs at a constant rate in all ACPI P-, C- and T-states). */
static int tsc_invariant(void)
{
#ifdef BENCH_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

void bench_clock_init(void)
{
    bench_clk.tsc = 0;
    bench_clk.ticks_per_ns = 1.0;
    if (!tsc_invariant())
        return;
#ifdef BENCH_HAVE_TSC
    /* ticks per ns over ~50 ms, the best of 3 windows bracketed tightly by CLOCK_MONOTONIC */
    double best = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t n0 = bench_mono_ns(), t0 = __rdtsc();
        while (bench_mono_ns() - n0 < 16000000u)
            ;
        uint64_t t1 = __rdtsc(), n1 = bench_mono_ns();
        double r = (double)(t1 - t0) / (double)(n1 - n0);
        if (r > best)
            best = r;
    }
    if (best > 0.05) {
        bench_clk.tsc = 1;
        bench_clk.ticks_per_ns = best;
    }
#endif
}

static volatile unsigned delay_sink;

void bench_delay(unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        __asm__ __volatile__("" ::: "memory");
    delay_sink = len;
}

unsigned bench_calibrate_delay(uint64_t target_ns)
{
    unsigned len = 1024;
    for (;;) {
        uint64_t t0 = bench_mono_ns();
        for (int r = 0; r < 100; r++)
            bench_delay(len);
        uint64_t dt = (bench_mono_ns() - t0) / 100;
        if (dt >= 20000 || len >= (1u << 30))
            return (unsigned)((double)len * (double)target_ns / (double)(dt ? dt : 1)) + 1;
        len *= 4;
    }
}
