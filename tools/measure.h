/* measure.h — the measurements behind `andgate info --measure` (tools/host_machine.c turns them into an
 * andgate-machine/1 description of this machine, sim/machines/README.md):
 *   - the cost of a hit (a chain of dependent loads over lines resident in L1);
 *   - the one-way core-to-core latency between two CPUs (common/c2c.c's ping-pong, round trip / 2);
 *   - the invalidation cost of a store (002 §III-B: O_W = O_R + n·α·L; with n = 1 a store to a line one
 *     other CPU also holds, minus a store to a line this CPU owns, is α·L);
 *   - a cold transfer: a load of a line the other CPU modified while nobody polled it, and the ping-pong
 *     with paused spins (measure_transfer.c);
 *   - the extra cost of an atomic read-modify-write over a plain store on an owned line;
 *   - a core clock estimate from a chain of dependent adds (for machines without an invariant TSC and
 *     without cpufreq).
 * Every function measures `runs` times and writes one value per run (ns unless said otherwise); the
 * caller takes the median. The clock must be initialised (bench_clock_init) first. */
#ifndef AG_TOOLS_MEASURE_H
#define AG_TOOLS_MEASURE_H

#include <pthread.h>

/* ns per dependent load over 64 lines of `line` bytes (4 KiB at 64 B: resident in any L1D); runs on the
 * calling thread. 0, or -1 without memory. */
int measure_hit(unsigned line, unsigned loads, unsigned runs, double *ns);

/* One-way latency between CPUs a and b: per run, the median of `rounds` ping-pong round trips / 2
 * (common/c2c.c). Pins the calling thread to a. 0, or -1 when a CPU cannot be pinned. */
int measure_c2c(int a, int b, unsigned rounds, unsigned runs, double *ns);

/* Per run, over `trials` trials: the median time of a store + full fence by a (pinned there) to a line
 * that b has just read (both hold a copy: the store must invalidate b's) and to a line only a holds
 * (owned: a hit). Pins the calling thread to a. 0, or -1 when a CPU cannot be pinned. */
int measure_upgrade(int a, int b, unsigned trials, unsigned runs, double *shared_ns, double *owned_ns);

/* measure_transfer.c: per run, over `trials` trials, the median time of a load by a (pinned there) of a
 * line b has just modified with nobody polling it (a cold transfer), and of a line a owns (a hit), each
 * line on a page of its own. Pins the calling thread to a. 0, or -1 when a CPU cannot be pinned. */
int measure_cold(int a, int b, unsigned trials, unsigned runs, double *remote_ns, double *owned_ns);
/* measure_transfer.c: measure_c2c with a pause in both spin loops (the library's paused spins). */
int measure_c2c_paused(int a, int b, unsigned rounds, unsigned runs, double *ns);

/* Per run, per operation over `ops` back-to-back operations on one line the calling thread owns: an
 * atomic fetch-and-add (seq_cst, as the library's flag_fetch_add; `lock xadd` on x86, LSE or LL/SC on
 * arm64), each depending on the previous one's result, and a plain store. */
void measure_atomic(unsigned ops, unsigned runs, double *rmw_ns, double *store_ns);

/* Dependent integer adds per ns (≈ the core clock in GHz, turbo included) over about 20 ms. */
double measure_add_chain_ghz(void);

/* measure_os.c: what the OS charges a sleeping waiter, per run (ns): a FUTEX_WAIT returning EAGAIN and a
 * FUTEX_WAKE with no sleeper, each averaged over `calls`; a sched_yield with nothing else runnable; and
 * one hand-off of a futex ping-pong where both sides sleep, the caller pinned to a and its partner to b
 * (a == b: both on one CPU, every hand-off a context switch), round trip / 2 over `rounds`. */
void measure_futex_calls(unsigned calls, unsigned runs, double *wait_ns, double *wake_ns);
void measure_yield(unsigned calls, unsigned runs, double *ns);
int measure_futex_pingpong(int a, int b, unsigned rounds, unsigned runs, double *oneway_ns);

/* Median of v[0..n) (sorts v); 0 for n == 0. measure_warm_median: of v[n/10..n), the first tenth of the
 * trials being warm-up. */
double measure_median(double *v, unsigned n);
double measure_warm_median(double *v, unsigned n);
/* Pins the calling thread to cpu (0, or -1). measure_partner: pins the caller to a and starts fn(arg) in a
 * thread (which pins itself); 0, or -1. */
int measure_pin(int cpu);
int measure_partner(int a, void *(*fn)(void *), void *arg, pthread_t *th);

/* `andgate info --measure [--out FILE]` (tools/host_machine.c): measure this machine and write its
 * description to FILE, by default ${XDG_DATA_HOME:-$HOME/.local/share}/andgate/machines/host.json. */
int info_measure(const char *out);

#endif
