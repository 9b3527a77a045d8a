/* bench_plan.h — what `andgate bench` will measure: the workers that host the implementations, the
 * andgate specs and baselines asked for, and the jobs (method x thread count x implementation), in
 * the order they run. Checked whole before anything runs (a bad spec or an unknown baseline ends the
 * command with status 2). */
#ifndef AG_TOOLS_BENCH_PLAN_H
#define AG_TOOLS_BENCH_PLAN_H

#include <limits.h>

#define AG_PLAN_MAX 256

struct bench_worker {
    char path[PATH_MAX + 64];
    char names[32][48]; /* implementations it hosts ("andgate", "pthread", "ck:mcs", ...) */
    unsigned n;
};

struct bench_job {
    const struct bench_worker *w;
    const char *impl;   /* the worker's implementation name */
    const char *spec;   /* the andgate spec; NULL for a baseline */
    unsigned threads;
    const char *method;
};

struct bench_plan {
    struct bench_worker workers[4];
    unsigned nworkers;
    const struct bench_worker *core; /* bench-core: andgate itself and the core-to-core ping-pong */
    char specbuf[4096];
    char *specs[AG_PLAN_MAX];
    unsigned nspecs, nbase, njobs;
    const char *base[AG_PLAN_MAX];
    struct bench_job *jobs;
};

/* Builds the plan from the options' text (algos: "all", "none" or a spec list, "all" may appear in a
 * list; baselines: "all", "none" or names, "ck" for every ck:*). Exits with status 2 on a bad list. */
void bench_plan_make(struct bench_plan *p, const char *algos, const char *baselines, const char *const *methods,
                     unsigned nmethods, const unsigned *threads, unsigned nthreads);
void bench_plan_free(struct bench_plan *p);

#endif
