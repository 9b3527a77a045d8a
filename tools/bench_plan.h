/* bench_plan.h — what `andgate bench` will measure: the workers that host the implementations, the
 * andgate specs and baselines asked for, and the jobs (method x thread count x implementation), in
 * the order they run. Checked whole before anything runs (a bad spec or an unknown baseline ends the
 * command with status 2). */
#ifndef AG_TOOLS_BENCH_PLAN_H
#define AG_TOOLS_BENCH_PLAN_H

#include <limits.h>

#include "experiment.h"

#define AG_PLAN_MAX 256

struct bench_worker {
    char path[PATH_MAX + 64];
    char names[32][48]; /* implementations it hosts ("andgate", "pthread", "ck:mcs", ...) */
    unsigned n;
};


struct bench_plan {
    struct bench_worker workers[4];
    unsigned nworkers;
    const struct bench_worker *core; /* bench-core: andgate itself and the core-to-core ping-pong */
    char specbuf[4096], waitbuf[1024];
    char *specs[AG_PLAN_MAX], *waits[16];
    unsigned nspecs, nbase, nwaits, njobs;
    const char *base[AG_PLAN_MAX];
    struct ag_job *jobs;
    /* --mpi: the worker, the launcher (AG_MPI_LAUNCHER or $ANDGATE_MPIRUN, split at spaces), rank counts */
    char mpi_worker[PATH_MAX + 64], launchbuf[1024];
    char *launcher[24];
    unsigned ranks[AG_PLAN_MAX], nranks;
};

/* Builds the plan (specs x waits and baselines, x thread counts x methods) from the options (algos:
 * "all", "none" or a spec list, "all" may appear in a list; baselines: "all", "none" or names, "ck"
 * for every ck:*; wait: wait specs separated by ';'). Exits with status 2 on a bad list. */
void bench_plan_make(struct bench_plan *p, const struct ag_exp *o, const char *const *methods, unsigned nmethods,
                     const unsigned *threads, unsigned nthreads);
/* --mpi: per method, rank count and per-rank thread count, the fused barrier (mpi:fused:dissemination,
 * mpi:fused:ibarrier; per node mode of --mpi-node, per --wait) and mpi:three-step (per --wait); per
 * method and rank count mpi:MPI_Barrier (one thread per rank). Each job runs `LAUNCHER -np R bench-mpi`.
 * Exits with status 2 when this build has no MPI, the worker is missing, or a list is bad. */
void bench_plan_make_mpi(struct bench_plan *p, const struct ag_exp *o, const char *const *methods, unsigned nmethods,
                         const unsigned *threads, unsigned nthreads);
void bench_plan_free(struct bench_plan *p);

#endif
