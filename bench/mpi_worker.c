/* mpi_worker.c — the worker of `andgate bench --mpi` (docs/bench.md, "--mpi"): one measurement of one
 * job-wide barrier over R ranks x T threads, run as `mpirun -np R bench-mpi ...`; rank 0 prints the
 * record (common/record.c), one JSON line. Built only where CMake finds MPI.
 *   mpi:fused:dissemination, mpi:fused:ibarrier   one libandgate-mpi barrier (ag_mpi_barrier_wait) with
 *                 that inter-node phase; --mpi-node sets the node grouping (ANDGATE_MPI_NODE: shared,
 *                 shared:ranks=K, rank)
 *   mpi:three-step   the usual hybrid pattern: an andgate barrier over the rank's threads, MPI_Barrier by
 *                 tid 0, the thread barrier again
 *   mpi:MPI_Barrier  one thread per rank calling MPI_Barrier (--threads 1): the MPI library's own barrier
 * Methods (one per job):
 *   latency  a repetition runs E back-to-back episodes; its figure is the mean time per episode on rank
 *            0's tid 0 (all threads start together after an MPI_Barrier and warm-up episodes)
 *   epcc     the EPCC overhead: a repetition times E x (delay of about 0.1 us; barrier) and E x delay on
 *            the same threads without the barrier, and gives (test - reference) / E
 * Repetitions: up to 20 of E = max(10, --episodes / 20) episodes, at least 5, fewer past --budget-ms
 * (rank 0 decides). Min, median, p99 and mean over the repetitions; CPU time of every rank's process
 * (all its threads) per episode, summed over ranks. The options are rows of common/experiment.c:
 *   mpirun -np 2 bench-mpi --impl mpi:three-step --threads 2 [--method latency|epcc] [--wait SPEC]
 *          [--episodes N] [--budget-ms MS] [--mpi-node shared[:ranks=K]|rank]
 *   bench-mpi --plan --impl NAME [--mpi-node ...]: the options checked (exit 0, or 2 with one line), no MPI */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "andgate_mpi.h"
#include "clock.h"
#include "counts.h"
#include "experiment.h"
#include "record.h"
#include "stats.h"

#define PROG "bench-mpi"
#define REPS_MAX 20
#define REPS_MIN 5

enum variant { FUSED_DIS, FUSED_IBAR, THREE_STEP, MPI_ONLY, REFERENCE };
static const char *const impls[] = { "mpi:fused:dissemination", "mpi:fused:ibarrier", "mpi:three-step",
                                     "mpi:MPI_Barrier" };

static struct {
    enum variant v, run; /* the job's barrier; what the timed loop runs (it, or REFERENCE) */
    int epcc;
    unsigned threads, per_rep;
    unsigned delay_len; /* epcc: bench_delay's length for about 100 ns of compute (EPCC's default) */
    ag_mpi_barrier_t *fused;
    ag_barrier_t *local;
    double ns; /* rank 0's tid 0: time of the timed loop */
} M;

static double now_ns(void) { return (double)bench_mono_ns(); }

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void episode(unsigned tid)
{
    if (M.epcc)
        bench_delay(M.delay_len);
    switch (M.run) {
    case FUSED_DIS:
    case FUSED_IBAR:
        ag_mpi_barrier_wait(M.fused, tid);
        break;
    case THREE_STEP:
        ag_barrier_wait(M.local, tid);
        if (tid == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        ag_barrier_wait(M.local, tid);
        break;
    case MPI_ONLY:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case REFERENCE:
        break;
    }
}

static void *thread_main(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    for (unsigned k = 0; k < M.per_rep / 10; k++) /* warm-up */
        episode(tid);
    double t0 = now_ns();
    for (unsigned k = 0; k < M.per_rep; k++)
        episode(tid);
    if (tid == 0)
        M.ns = now_ns() - t0;
    return NULL;
}

/* one timed loop of v on every thread of every rank: rank 0 tid 0's time; the process CPU time to *cpu */
static double timed_loop(enum variant v, double *cpu)
{
    pthread_t th[256];
    M.run = v;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = cpu_ns();
    for (unsigned t = 1; t < M.threads; t++)
        if (pthread_create(&th[t], NULL, thread_main, (void *)(size_t)t)) {
            fprintf(stderr, PROG ": cannot create thread %u of %u\n", t, M.threads);
            MPI_Abort(MPI_COMM_WORLD, 1); /* mpirun fails, the front end writes the failed record */
        }
    thread_main(NULL); /* tid 0 is the main thread: three-step's MPI_Barrier stays on it */
    for (unsigned t = 1; t < M.threads; t++)
        pthread_join(th[t], NULL);
    *cpu += cpu_ns() - c0;
    return M.ns;
}

/* the repetitions: per-episode figures into r (rank 0), their count; CPU per episode (all ranks) */
static unsigned measure(enum variant v, double budget_ns, double *r, double *cpu_per_episode)
{
    double t0 = now_ns(), cpu = 0, ignored = 0;
    unsigned n = 0;
    for (int more = 1; more; n++) {
        double test = timed_loop(v, &cpu);
        double ref = M.epcc ? timed_loop(REFERENCE, &ignored) : 0;
        r[n] = (test - ref) / M.per_rep;
        more = n + 1 < REPS_MAX && (n + 1 < REPS_MIN || now_ns() - t0 < budget_ns);
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides for all */
    }
    double total = 0;
    MPI_Reduce(&cpu, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    *cpu_per_episode = total / ((double)n * (M.per_rep + M.per_rep / 10));
    return n;
}

/* the record's settings: what ran, as resolved */
static void settings_of(char *out, size_t len)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int l = 0;
    MPI_Get_library_version(lib, &l);
    lib[strcspn(lib, ",\n")] = '\0';
    if (M.v == FUSED_DIS || M.v == FUSED_IBAR)
        snprintf(out, len, "%s; %s", ag_mpi_barrier_describe(M.fused), lib);
    else if (M.v == THREE_STEP)
        snprintf(out, len, "local=%s; MPI_Barrier by tid 0; %s", ag_barrier_describe(M.local), lib);
    else
        snprintf(out, len, "%s", lib);
}

static int pick_impl(const char *name)
{
    for (int i = 0; name && i < 4; i++)
        if (!strcmp(name, impls[i]))
            return i;
    ag_usage_error(PROG, "--impl: expected mpi:fused:dissemination, mpi:fused:ibarrier, mpi:three-step or "
                         "mpi:MPI_Barrier, got '%s'", name ? name : "nothing");
}

/* the options (the MPI worker's rows of common/experiment.c), checked on every rank alike */
static void parse(int argc, char **argv, struct ag_exp *o)
{
    *o = (struct ag_exp){ .method = "latency", .wait = "auto", .episodes = 20000, .budget_ms = 250,
                          .mpi_node = "shared", .threads = "1" };
    if (ag_exp_parse(PROG, AG_EXP_MPI_JOB, o, argc, argv, 1)) {
        printf("usage: mpirun -np R " PROG " --impl NAME --threads T [OPTIONS]\n");
        ag_exp_usage(stdout, AG_EXP_MPI_JOB);
        exit(0);
    }
    M.v = (enum variant)pick_impl(o->impl);
    char err[200];
    if (ag_parse_counts(o->threads, 256, &M.threads, 1, err, sizeof err) != 1)
        ag_usage_error(PROG, "--threads: expected one count per rank in 1..256, got '%s'", o->threads);
    if (M.v == MPI_ONLY && M.threads != 1)
        ag_usage_error(PROG, "--threads: mpi:MPI_Barrier runs one thread per rank, got %u", M.threads);
    if (strcmp(o->method, "latency") && strcmp(o->method, "epcc"))
        ag_usage_error(PROG, "--method: expected latency or epcc (one per job), got '%s'", o->method);
    if (!strcmp(o->mpi_node, "both"))
        ag_usage_error(PROG, "--mpi-node: one node mode per job (shared[:ranks=K] or rank), got 'both'");
    /* the grouping goes to libandgate-mpi as ANDGATE_MPI_NODE, checked by its one grammar (ranks that do
     * not run the fused barrier ignore it) */
    setenv("ANDGATE_MPI_NODE", o->mpi_node, 1);
    if (ag_mpi_env_check(err, sizeof err)) /* names the variable: ANDGATE_MPI_NODE, or a bad ANDGATE_MPI */
        ag_usage_error(PROG, "%s%s", strncmp(err, "ANDGATE_MPI_NODE=", 17) ? "" : "--mpi-node: ", err);
    if (o->plan)
        exit(0);
    M.epcc = !strcmp(o->method, "epcc");
    M.per_rep = o->episodes / REPS_MAX > 10 ? o->episodes / REPS_MAX : 10;
}

int main(int argc, char **argv)
{
    struct ag_exp o;
    parse(argc, argv, &o); /* before MPI: a bad command line ends every rank alike, with status 2 */
    int provided, rank, nranks;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int fused = M.v == FUSED_DIS || M.v == FUSED_IBAR;
    ag_config_t cfg = { .nthreads = M.threads, .algo = "auto", .wait = o.wait };
    char err[300] = "";
    int rc = 0;
    if (fused)
        rc = ag_mpi_barrier_init_spec(&M.fused, MPI_COMM_WORLD, M.threads, &cfg,
                                      M.v == FUSED_DIS ? "mpi:inter=dissemination" : "mpi:inter=ibarrier");
    else if (M.v == THREE_STEP)
        rc = ag_barrier_init(&M.local, &cfg);
    if (rc)
        snprintf(err, sizeof err, "%s: %s", fused ? "ag_mpi_barrier_init" : "ag_barrier_init",
                 fused ? ag_mpi_strerror(rc) : ag_strerror(rc));
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* one rank's failure ends all */
    double r[REPS_MAX], cpu = 0;
    unsigned n = 0;
    if (!rc) {
        M.delay_len = M.epcc ? bench_calibrate_delay(100) : 0;
        n = measure(M.v, o.budget_ms * 1e6, r, &cpu);
    }
    char settings[1024] = "";
    if (!rc)
        settings_of(settings, sizeof settings);
    if (rank == 0) {
        struct stats s = stats_of(r, n);
        struct ag_record rec = { .impl = impls[M.v], .kind = fused ? "andgate" : "baseline",
                                 .wait = M.v == MPI_ONLY ? "default" : o.wait, .pinning = "none",
                                 .method = o.method, .threads = (unsigned)nranks * M.threads,
                                 .episodes = n * M.per_rep, .median_ns = s.median, .min_ns = s.min, .p99_ns = s.p99,
                                 .mean_ns = s.mean, .cpu_ns_per_episode = cpu, .settings = rc ? NULL : settings,
                                 .ranks = (unsigned)nranks, .threads_per_rank = M.threads,
                                 .mpi_node = fused ? o.mpi_node : NULL,
                                 .error = rc ? (err[0] ? err : "initialization failed on another rank") : NULL };
        ag_record_begin(stdout, &rec);
        ag_record_end(stdout, &rec);
        printf("\n");
        fflush(stdout);
    }
    if (fused && !rc)
        ag_mpi_barrier_destroy(M.fused);
    if (M.local)
        ag_barrier_destroy(M.local);
    MPI_Finalize();
    return rc ? 1 : 0;
}
