/* experiment.h — what an experiment of `andgate bench` and `andgate sim` is made of, the same for both:
 * one option table (the options of both commands and of the workers that run their jobs), the options
 * struct it fills, and the job a plan is made of. The data path of one result, a file per step:
 *
 *   option   common/experiment.c  (this table, and sim's defaults; tools/cmd_bench.c sets bench's)
 *   plan     tools/bench_plan.c (bench), tools/cmd_sim.c (sim: the simulator worker checks and expands it)
 *   job      tools/front.c runs each job in a worker: bench/worker.c, sim/main.c for the simulator, or
 *            for bench --mpi `mpirun -np R` bench/mpi_worker.c (rank 0 prints the record)
 *   record   common/record.c: the worker prints one record; the front end writes a failed one for a
 *            worker that gave none (it died, or was killed at --timeout)
 *   report   python/andgate_report (report, summary, CSV) over the result document
 *
 * docs/options.md shows the table. */
#ifndef AG_COMMON_EXPERIMENT_H
#define AG_COMMON_EXPERIMENT_H

#include <stddef.h>
#include <stdio.h>

#include "opts.h"

/* Who reads a row of the table (a mask). */
enum ag_exp_reader {
    AG_EXP_BENCH = 1,     /* andgate bench */
    AG_EXP_SIM = 2,       /* andgate sim */
    AG_EXP_BENCH_JOB = 4, /* the benchmark workers (bench/worker.c) */
    AG_EXP_SIM_JOB = 8,   /* the simulator worker (sim/main.c) */
    AG_EXP_PER_JOB = 16,  /* a value each job sets itself (--threads, --method, --wait), not passed on as given */
    AG_EXP_MPI_JOB = 32,  /* the bench --mpi worker (bench/mpi_worker.c, run under mpirun) */
};

/* The largest seed the simulator takes: 2^53, the largest integer the option table's bounds (doubles) hold
 * exactly. The worker's --seed row and andgate sim's --seed list both check against it. */
#define AG_SEED_MAX 9007199254740992ull

struct ag_exp {
    /* the plan */
    const char *algos, *baselines, *threads, *method, *wait, *machine;
    /* how each job measures */
    const char *pin, *late, *schedule, *stores, *atomics, *layout;
    unsigned episodes, budget_ms;
    double jitter_us, work_ns, work_jitter_ns, alpha, timeout_s, split_ns;
    /* sim: workloads and the OS scheduler beyond the hardware threads (issue 14) */
    const char *workload, *sched;
    unsigned items;
    double cs_ns, timeslice_us;
    unsigned long long seed;
    const char *seeds;       /* andgate sim: the seeds (allocations) to run, a list or range; each job gets one */
    int model, quick;
    /* bench --mpi: fused barrier vs three-step vs MPI_Barrier over ranks x threads */
    int mpi;
    const char *ranks, *mpi_node;
    /* where the results go */
    const char *json, *csv, *report;
    unsigned cdf_threads;
    int quiet, machines;
    /* the workers' own */
    const char *impl, *spec, *c2c;
    unsigned rounds, samples;
    int plan, models, list, clock;
};

/* andgate sim's defaults, the same in the command (tools/cmd_sim.c) and its worker (sim/main.c); each
 * adds its own (the command's --timeout, the worker's scheduler) to a copy. */
extern const struct ag_exp ag_exp_sim_defaults;

/* Parses argv[first..argc-1] into o (the caller set its defaults) with the rows of `reader`. Returns 0,
 * or 1 for -h/--help; a bad command line exits with status 2 and one line (common/opts.h). */
int ag_exp_parse(const char *prog, unsigned reader, struct ag_exp *o, int argc, char **argv, int first);

/* The usage lines of reader's rows. */
void ag_exp_usage(FILE *f, unsigned reader);

/* The methods --method names ("all": the three), in order. Returns how many (1..3). */
unsigned ag_exp_methods(const char *method, const char *out[3]);

/* A job: one implementation at one participant count, with one method and one wait policy. */
struct ag_job {
    const char *worker; /* the worker executable */
    const char *impl;   /* what the worker runs: "andgate", a baseline ("pthread", "ck:mcs"), a device ("hw-harp") */
    const char *spec;   /* the andgate spec when impl is "andgate", else NULL */
    const char *kind;   /* the record's kind: "andgate", "baseline" or "hw" */
    const char *method, *wait;
    unsigned threads;
    int optional; /* a device the modeled machine lacks is left out ("all", "hw"), not failed */
    /* bench --mpi: the worker runs as `LAUNCHER... -np RANKS WORKER ...`, threads is per rank, node the
     * node mode ("shared", "rank"; NULL: not the fused barrier's, not passed) */
    char *const *launcher;
    unsigned ranks;
    const char *node;
    const char *seed; /* sim: the job's --seed (NULL: not passed) */
};

/* The worker's command line for job j of command cmd (AG_EXP_BENCH or AG_EXP_SIM): the launcher and
 * -np RANKS for an MPI job, the job's own values, then every option of o whose row both cmd and cmd's
 * worker (the MPI worker for an MPI job) read. av: room for 64; buf: the numbers. */
void ag_exp_job_argv(const struct ag_exp *o, unsigned cmd, const struct ag_job *j, char **av, char *buf, size_t len);

/* The record's implementation name for a job: "andgate:SPEC", "hw:NAME" or the baseline's name. */
void ag_job_name(const struct ag_job *j, char *out, size_t len);

#endif
