/* impl.h — what the benchmark measures: a barrier implementation behind one interface.
 *
 * Every barrier (andgate's algorithms and the baselines people use today) is an implementation with
 * the same four operations, so one harness (bench/engine.c) measures them all the same way. A worker
 * executable links the engine with the implementations it can host: bench-core (andgate, pthread,
 * Concurrency Kit), bench-gomp (GCC OpenMP), bench-llvm-omp (LLVM OpenMP), bench-std (C++20
 * std::barrier). OpenMP runtimes cannot share a process, hence one worker per runtime.
 */
#ifndef AG_BENCH_IMPL_H
#define AG_BENCH_IMPL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs body(tid, arg) on n threads and returns when all returned; 0 or an errno code. */
typedef int (*bench_team_fn)(unsigned n, void (*body)(unsigned tid, void *arg), void *arg);

struct bench_impl {
    const char *name;     /* "pthread", "gomp", "llvm-omp", "std::barrier", "ck:mcs", "andgate" */
    const char *kind;     /* "andgate" or "baseline" */
    /* The implementation's own default settings as a user gets them, stated in the report
     * (e.g. "GOMP_SPINCOUNT unset: libgomp's default spin then futex"). */
    const char *settings;
    /* Create a barrier for n participants. spec/wait are andgate spec strings (NULL for baselines);
     * cpus: the CPU the harness pins participant t to (cpus[t]), or NULL when it pins nobody (--pin
     * none), for an implementation that can be told where its threads run (andgate's cfg.cpus).
     * Write a one-line description of what was created into desc. 0 or an errno code. */
    int (*init)(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                size_t desclen);
    /* One episode for participant tid (0..n-1), called from the thread running body(tid). */
    void (*wait)(void *ctx, unsigned tid);
    void (*destroy)(void *ctx);
    /* The thread team: NULL means the engine's pthread team. OpenMP implementations run the body
     * inside `#pragma omp parallel num_threads(n)`, so their barrier is the runtime's own. */
    bench_team_fn team;
    /* Optional: rewrite desc after the run, before destroy (an algorithm that decided while it ran
     * says what it chose). */
    void (*describe)(void *ctx, char *desc, size_t desclen);
};

/* The implementations a worker hosts, NULL-terminated (each worker defines it). */
extern const struct bench_impl *const bench_impls[];

#ifdef __cplusplus
}
#endif
#endif
