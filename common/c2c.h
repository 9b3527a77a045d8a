/* c2c.h — the physical limit: core-to-core cache-line ping-pong. Two threads pinned to CPUs a and b
 * bounce one cache line: a writes k, b waits for k and writes k+1, a waits for k+1, and so on. Each
 * round trip is two one-way transfers of the line; one-way latency = round trip / 2, timed per round
 * trip with the benchmark clock. Min and median over the round trips, and the clock skew between the
 * two CPUs as the same exchange shows it. */
#ifndef AG_BENCH_C2C_H
#define AG_BENCH_C2C_H

struct c2c_result {
    int a, b;
    double min_ns, median_ns;
    /* b's clock minus a's, estimated per round trip as b's stamp on seeing the line minus the midpoint
     * of a's send and receive stamps (median). Cross-CPU latencies (a barrier's last arrival on one CPU,
     * a departure on another) carry this error; near 0 means the clocks agree. */
    double skew_ns;
};

/* 0, or -1 when a CPU cannot be pinned. */
int c2c_measure(int a, int b, unsigned roundtrips, struct c2c_result *out);

#endif
