/* c2c.h — the physical limit: core-to-core cache-line ping-pong. Two threads pinned to CPUs a and b
 * bounce one cache line: a writes k, b waits for k and writes k+1, a waits for k+1, and so on. Each
 * round trip is two one-way transfers of the line; one-way latency = round trip / 2, timed per round
 * trip with the benchmark clock. Min and median over the round trips. */
#ifndef AG_BENCH_C2C_H
#define AG_BENCH_C2C_H

struct c2c_result {
    int a, b;
    double min_ns, median_ns;
};

/* 0, or -1 when a CPU cannot be pinned. */
int c2c_measure(int a, int b, unsigned roundtrips, struct c2c_result *out);

#endif
