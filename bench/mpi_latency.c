/* mpi_latency.c — a small measurement of job-wide barriers over threads x MPI ranks (docs/mpi.md):
 *   fused:dissemination, fused:ibarrier  one libandgate-mpi barrier (ag_mpi_barrier_wait)
 *   three-step   the usual hybrid pattern: an andgate barrier over the rank's threads, MPI_Barrier by
 *                tid 0, the thread barrier again
 *   MPI_Barrier  one thread per rank calling MPI_Barrier: the MPI library's own barrier over ranks only
 * Each variant runs --episodes episodes --reps times; a repetition's figure is its mean time per episode
 * on rank 0's tid 0 (all threads start together after an MPI_Barrier); printed: median and minimum over
 * the repetitions. Not a test: no thresholds.
 *   mpirun -np 2 build/bin/mpi_latency --threads 1 --episodes 20000 --reps 7
 * ANDGATE_MPI_NODE=rank gives the fused barrier one node per rank (the inter-node path); --algo and
 * --wait choose the andgate barriers' spec strings (default auto). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "andgate_mpi.h"

enum variant { FUSED_DIS, FUSED_IBAR, THREE_STEP, MPI_ONLY, NVARIANTS };
static const char *const names[] = { "fused:dissemination", "fused:ibarrier", "three-step", "MPI_Barrier" };

static struct {
    enum variant v;
    unsigned threads, episodes;
    ag_mpi_barrier_t *fused;
    ag_barrier_t *local;
    double ns; /* rank 0's tid 0: mean per episode */
    int rank;
} M = { .threads = 2, .episodes = 10000 };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void episode(unsigned tid)
{
    switch (M.v) {
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
    default:
        break;
    }
}

static void *worker(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    for (unsigned k = 0; k < M.episodes / 10; k++) /* warm-up */
        episode(tid);
    double t0 = now_ns();
    for (unsigned k = 0; k < M.episodes; k++)
        episode(tid);
    if (tid == 0)
        M.ns = (now_ns() - t0) / M.episodes;
    return NULL;
}

static double one_rep(enum variant v)
{
    unsigned n = v == MPI_ONLY ? 1 : M.threads;
    pthread_t th[256];
    M.v = v;
    MPI_Barrier(MPI_COMM_WORLD);
    for (unsigned t = 1; t < n; t++)
        pthread_create(&th[t], NULL, worker, (void *)(size_t)t);
    worker(NULL); /* tid 0 is the main thread: three-step's MPI_Barrier stays on it */
    for (unsigned t = 1; t < n; t++)
        pthread_join(th[t], NULL);
    return M.ns;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int provided, nranks;
    unsigned reps = 5;
    const char *algo = "auto", *wait = "auto";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &M.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            M.threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--episodes"))
            M.episodes = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--algo"))
            algo = argv[i + 1];
        else if (!strcmp(argv[i], "--wait"))
            wait = argv[i + 1];
    }
    if (M.threads < 1 || M.threads > 256 || M.episodes < 10 || reps < 1 || reps > 100) {
        if (M.rank == 0)
            fprintf(stderr, "usage: mpi_latency [--threads 1..256] [--episodes >=10] [--reps 1..100] "
                            "[--algo SPEC] [--wait SPEC]\n");
        MPI_Finalize();
        return 2;
    }
    ag_config_t cfg = { .nthreads = M.threads, .algo = algo, .wait = wait }; /* node and thread barriers */
    if (ag_barrier_init(&M.local, &cfg))
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (M.rank == 0)
        printf("# %d ranks x %u threads, %u episodes x %u reps; ns per episode (rank 0, tid 0)\n", nranks,
               M.threads, M.episodes, reps);
    for (int v = 0; v < NVARIANTS; v++) {
        if (v == FUSED_DIS || v == FUSED_IBAR) {
            const char *spec = v == FUSED_DIS ? "mpi:inter=dissemination" : "mpi:inter=ibarrier";
            int rc = ag_mpi_barrier_init_spec(&M.fused, MPI_COMM_WORLD, M.threads, &cfg, spec);
            if (rc) {
                if (M.rank == 0)
                    fprintf(stderr, "ag_mpi_barrier_init: %s\n", ag_mpi_strerror(rc));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (M.rank == 0)
                printf("# %s\n", ag_mpi_barrier_describe(M.fused));
        }
        double r[100];
        for (unsigned i = 0; i < reps; i++)
            r[i] = one_rep((enum variant)v);
        qsort(r, reps, sizeof *r, cmp);
        if (M.rank == 0)
            printf("%-20s median %9.0f ns   min %9.0f ns\n", names[v], r[reps / 2], r[0]);
        if (v == FUSED_DIS || v == FUSED_IBAR)
            ag_mpi_barrier_destroy(M.fused);
    }
    ag_barrier_destroy(M.local);
    MPI_Finalize();
    return 0;
}
