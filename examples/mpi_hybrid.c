/* mpi_hybrid.c — threads x MPI ranks meeting in one libandgate-mpi barrier.
 *
 *   mpirun -np 4 build/bin/mpi_hybrid [threads_per_rank [steps]]
 *   ANDGATE_MPI=mpi:inter=ibarrier ANDGATE_MPI_NODE=rank mpirun -np 4 build/bin/mpi_hybrid 3
 *
 * Every thread of every rank does its part of a step, then waits in the job-wide barrier; exactly one
 * thread of the whole job gets AG_SERIAL per step. Rank r runs threads_per_rank + r % 2 threads, to show
 * that ranks may differ. MPI is initialized with MPI_THREAD_SERIALIZED, which libandgate-mpi needs. */
#include <andgate_mpi.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static ag_mpi_barrier_t *bar;
static unsigned steps = 1000;
static int rank;
static unsigned serials; /* AG_SERIALs this rank got; read after the threads are joined */

static void *work(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    volatile double x = tid;
    for (unsigned s = 0; s < steps; s++) {
        for (int i = 0; i < 1000; i++) /* this thread's part of the step */
            x = x * 0.5 + 1.0;
        int rc = ag_mpi_barrier_wait(bar, tid);
        if (rc == AG_SERIAL) {
            __atomic_fetch_add(&serials, 1, __ATOMIC_RELAXED);
        } else if (rc) {
            fprintf(stderr, "rank %d thread %u: %s\n", rank, tid, ag_mpi_strerror(rc));
            break;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, nranks;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    unsigned tpr = (argc > 1 ? (unsigned)atoi(argv[1]) : 2) + (unsigned)(rank % 2);
    if (tpr < 1 || tpr > 64)
        tpr = 2;
    if (argc > 2)
        steps = (unsigned)atoi(argv[2]);

    ag_config_t cfg = { .algo = "auto", .wait = "auto" }; /* the node-local barrier */
    int err = ag_mpi_barrier_init(&bar, MPI_COMM_WORLD, tpr, &cfg);
    if (err) {
        char why[256] = "";
        if (err == EINVAL && ag_mpi_env_check(why, sizeof why)) /* which variable, and what was expected */
            fprintf(stderr, "rank %d: %s\n", rank, why);
        fprintf(stderr, "rank %d: ag_mpi_barrier_init: %s\n", rank, ag_mpi_strerror(err));
        MPI_Finalize();
        return 1;
    }
    if (rank == 0)
        printf("%d ranks: %s\n", nranks, ag_mpi_barrier_describe(bar));

    pthread_t th[64];
    for (unsigned t = 0; t < tpr; t++)
        pthread_create(&th[t], NULL, work, (void *)(size_t)t);
    for (unsigned t = 0; t < tpr; t++)
        pthread_join(th[t], NULL);

    unsigned total = 0;
    MPI_Reduce(&serials, &total, 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%u steps, %u AG_SERIAL returns in the whole job (one per step)\n", steps, total);
    err = ag_mpi_barrier_destroy(bar);
    MPI_Finalize();
    return err || (rank == 0 && total != steps);
}
