/* test_mpi.c — libandgate-mpi semantics, run under mpirun (tests/CMakeLists.txt). Every rank runs
 * threads; every thread of every rank, in every episode k:
 *   - writes data[g] = k (g: its job-wide index) and counts itself into arrived, then waits;
 *   - after the wait checks that arrived >= (k + 1) * J (no thread left episode k before all J threads of
 *     all ranks arrived) and <= (k + 2) * J, and that every data[j] is k or k + 1 (writes made before
 *     arriving are visible after departing);
 *   - counts AG_SERIAL per episode; at the end MPI_Allreduce sums them: exactly 1 per episode.
 * arrived and data live in an MPI shared window over MPI_COMM_TYPE_SHARED, so the test needs all ranks
 * on one machine (it says so and fails otherwise); ANDGATE_MPI_NODE=rank makes them separate "nodes" for
 * the library all the same, ANDGATE_MPI_NODE=shared:ranks=K nodes of K ranks (then the fixed leader's
 * node must say step=leader, and only its leader thread may have called MPI).
 * Options: --threads a,b,c  threads of rank r: the list's entry r mod its length (ranks differ)
 *          --episodes N     --delay (random delays before arriving)   --split (arrive/work/depart)
 *          --dead R:K       rank R stops arriving at episode K (a rank that dies, simulated: it sleeps,
 *                           then destroys and finalizes normally, since mpirun would abort the whole job
 *                           on a real death); every other thread must get ETIMEDOUT or AG_EBROKEN from
 *                           its bounded wait at episode K, after succeeding before.
 *          --late R:K       rank R arrives at episode K 3 s late; only rank 0 waits with a deadline (1 s)
 *                           there, every other thread waits without one: the break must reach them all
 *                           (through the node barrier or the leaders' break notices), the late rank's
 *                           threads included, or the test hangs and ctest's timeout fails it.
 *          --lost R:K       rank R's last thread never arrives at episode K (it returns); only rank R's
 *                           other threads wait with a deadline (1 s) there: with a node per rank the
 *                           rank has no completer, so the waiter that times out must itself tell the
 *                           other nodes, or their threads, waiting without one, hang.
 *          --rotate         in episode k thread k mod T of every rank arrives 2 ms after its mates, so
 *                           the last arriver rotates; with a node per rank (the completion step,
 *                           src/mpi/complete.c) the barrier must say step=completion and every thread
 *                           must have made MPI calls (the dynamic leader, tid != 0 included).
 * Always: no two MPI calls of a rank overlap during the episodes (MPI_THREAD_SERIALIZED), watched by
 * wrappers of the library's MPI calls (tests/mpi_watch.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "andgate_mpi.h"
#include "check.h"
#include "mpi_watch.h"

#define MAXT 16

static struct {
    ag_mpi_barrier_t *b;
    int rank, delay, split, late, lost, rotate, dead_rank, dead_at; /* dead_rank: of --dead, --late, --lost */
    unsigned tpr, gbase, episodes;
    unsigned long J;
    _Atomic uint64_t *arrived; /* in the shared window */
    _Atomic uint64_t *data;    /* J entries, in the shared window */
    _Atomic int *serial;       /* per episode, this rank */
    _Atomic unsigned errors, broke_at_dead, broke_early;
} R = { .episodes = 300, .dead_rank = -1 };

static void fail(unsigned tid, unsigned k, const char *what, long long v)
{
    if (atomic_fetch_add(&R.errors, 1) < 10)
        printf("FAIL rank %d thread %u episode %u: %s (%lld)\n", R.rank, tid, k, what, v);
}

static int one_wait(unsigned tid, unsigned k, unsigned *seed)
{
    int dead_ep = R.dead_rank >= 0 && (int)k == R.dead_at;
    /* a bounded wait: generous normally, short where the dead rank is missing; no timing asserted */
    struct timespec dl = in_ms(dead_ep ? (R.late || R.lost ? 1000 : 1500) : 60000);
    int unbounded = dead_ep && ((R.late && R.rank != 0) || (R.lost && R.rank != R.dead_rank));
    const struct timespec *dlp = unbounded ? NULL : &dl;
    if (!R.split)
        return (k & 1) || dead_ep ? ag_mpi_barrier_wait_until(R.b, tid, dlp) : ag_mpi_barrier_wait(R.b, tid);
    ag_token_t tok;
    int rc = ag_mpi_barrier_arrive(R.b, tid, &tok);
    if (rc)
        return rc;
    if (R.delay && rand_r(seed) % 4 == 0)
        usleep(rand_r(seed) % 200); /* work between arrive and depart */
    return ag_mpi_barrier_depart(R.b, tid, tok, dlp);
}

static void *thread(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg, g = R.gbase + tid;
    unsigned seed = (unsigned)R.rank * 7919u + tid;
    mpi_watch_thread(tid);
    for (unsigned k = 0; k < R.episodes; k++) {
        if (R.rank == R.dead_rank && (int)k == R.dead_at && !R.late && (!R.lost || tid == R.tpr - 1))
            return NULL; /* "dies" (the rank, or with --lost one thread): never arrives again */
        if (R.rank == R.dead_rank && (int)k == R.dead_at && R.late)
            sleep(3); /* late, past rank 0's deadline */
        if (R.delay && rand_r(&seed) % 4 == 0)
            usleep(rand_r(&seed) % 300);
        if (R.rotate && k % R.tpr == tid && R.tpr > 1)
            usleep(2000); /* this rank's last arriver, most likely */
        atomic_store_explicit(&R.data[g], k, memory_order_relaxed); /* published by the barrier */
        atomic_fetch_add(R.arrived, 1);
        int rc = one_wait(tid, k, &seed);
        if (R.dead_rank >= 0 && (int)k == R.dead_at) {
            if (rc == ETIMEDOUT || rc == AG_EBROKEN)
                atomic_fetch_add(&R.broke_at_dead, 1);
            else
                fail(tid, k, "expected ETIMEDOUT or AG_EBROKEN with a rank missing or late", rc);
            return NULL;
        }
        if (rc != 0 && rc != AG_SERIAL) {
            fail(tid, k, ag_mpi_strerror(rc), rc);
            return NULL;
        }
        if (rc == AG_SERIAL)
            atomic_fetch_add(&R.serial[k], 1);
        uint64_t a = atomic_load(R.arrived);
        if (a < (k + 1) * (uint64_t)R.J || a > (k + 2) * (uint64_t)R.J)
            fail(tid, k, "arrival count outside [(k+1)J, (k+2)J]", (long long)a);
        for (unsigned long j = 0; j < R.J; j++) {
            uint64_t d = atomic_load_explicit(&R.data[j], memory_order_relaxed);
            if (d != k && d != k + 1)
                fail(tid, k, "a write made before arriving is not visible", (long long)d);
        }
    }
    return NULL;
}

static unsigned pick_threads(const char *list, int rank)
{
    unsigned v[64], n = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save))
        v[n++] = (unsigned)atoi(t);
    free(copy);
    return n ? v[(unsigned)rank % n] : 2;
}

static void options(int argc, char **argv)
{
    const char *threads = "2";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = argv[++i];
        else if (!strcmp(argv[i], "--episodes") && i + 1 < argc)
            R.episodes = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--delay"))
            R.delay = 1;
        else if (!strcmp(argv[i], "--split"))
            R.split = 1;
        else if (!strcmp(argv[i], "--rotate"))
            R.rotate = 1;
        else if (!strcmp(argv[i], "--dead") && i + 1 < argc)
            sscanf(argv[++i], "%d:%d", &R.dead_rank, &R.dead_at);
        else if (!strcmp(argv[i], "--late") && i + 1 < argc)
            R.late = sscanf(argv[++i], "%d:%d", &R.dead_rank, &R.dead_at) == 2;
        else if (!strcmp(argv[i], "--lost") && i + 1 < argc)
            R.lost = sscanf(argv[++i], "%d:%d", &R.dead_rank, &R.dead_at) == 2;
    }
    R.tpr = pick_threads(threads, R.rank);
    if (R.tpr < 1 || R.tpr > MAXT)
        R.tpr = 2;
}

/* The check area: arrived, then data[J], in a shared window over the ranks of this machine. */
static MPI_Win check_window(void)
{
    MPI_Comm shm;
    MPI_Win win;
    int nshm, nall, disp;
    MPI_Aint size;
    void *base;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &nshm);
    MPI_Comm_size(MPI_COMM_WORLD, &nall);
    if (nshm != nall) {
        printf("test_mpi needs all ranks on one machine (%d of %d share memory)\n", nshm, nall);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Aint len = (MPI_Aint)((R.J + 1) * sizeof(uint64_t));
    MPI_Win_allocate_shared(R.rank == 0 ? len : 0, 1, MPI_INFO_NULL, shm, &base, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &base);
    if (R.rank == 0)
        memset(base, 0, (size_t)len);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Win_sync(win);
    MPI_Barrier(shm);
    MPI_Win_sync(win);
    R.arrived = base;
    R.data = (_Atomic uint64_t *)base + 1;
    MPI_Comm_free(&shm);
    return win;
}

/* When mpirun bound every rank to one CPU of its own and the node's threads outnumber those CPUs, the
 * node barrier must know it (libandgate-mpi passes the placement): with wait=auto the threads of a CPU
 * meet at a counter, hybrid:group=core (src/auto.c). Else nothing to check. */
static void check_placement(int nranks)
{
    cpu_set_t set;
    int me = -1, *all = calloc((size_t)nranks, sizeof *all);
    if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) == 1)
        for (int c = 0; c < CPU_SETSIZE && me < 0; c++)
            if (CPU_ISSET(c, &set))
                me = c;
    MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int distinct = 1;
    for (int r = 0; r < nranks; r++)
        for (int q = 0; q < r; q++)
            distinct &= all[r] >= 0 && all[r] != all[q];
    free(all);
    const char *node = getenv("ANDGATE_MPI_NODE"), *algo = getenv("ANDGATE_ALGO"), *wait = getenv("ANDGATE_WAIT");
    if (!distinct || nranks < 2 || R.J <= (unsigned long)nranks || (node && strcmp(node, "shared")) ||
        (algo && *algo && strcmp(algo, "auto")) || (wait && *wait && strcmp(wait, "auto")))
        return;
    CHECK(strstr(ag_mpi_barrier_describe(R.b), "node=hybrid:group=core") != NULL,
          "ranks bound to a CPU each, %lu threads on %d CPUs: %s", R.J, nranks, ag_mpi_barrier_describe(R.b));
}

/* ANDGATE_MPI_NODE=shared:ranks=K, all ranks on one machine: nodes of K consecutive ranks (the last may
 * be smaller). With several nodes, one of several ranks takes the fixed leader (src/mpi/episode.c):
 * only tid 0 of its first rank calls MPI during the episodes, in every episode; a node of one rank the
 * completion step. */
static void check_groups(int nranks, int k)
{
    int first = R.rank / k * k, size = nranks - first < k ? nranks - first : k;
    const char *step = nranks <= k ? "step=none" : size > 1 ? "step=leader" : "step=completion";
    CHECK(strstr(ag_mpi_barrier_describe(R.b), step) != NULL, "rank %d, nodes of %d ranks: want %s: %s", R.rank, k,
          step, ag_mpi_barrier_describe(R.b));
    if (nranks <= k || size == 1)
        return;
    for (unsigned t = 0; t < R.tpr; t++) {
        int leader = R.rank == first && t == 0;
        CHECK(leader ? mpi_watch_calls(t) > 0 : mpi_watch_calls(t) == 0,
              "rank %d thread %u (node rank %d): %lu MPI calls; only the node's leader makes them", R.rank, t,
              R.rank - first, mpi_watch_calls(t));
    }
}

/* Who called MPI during the episodes (tests/mpi_watch.c). */
static void check_mpi_calls(int nranks)
{
    const char *node = getenv("ANDGATE_MPI_NODE");
    int k = 0;
    CHECK(mpi_watch_overlaps() == 0, "rank %d: %lu MPI calls overlapped another", R.rank, mpi_watch_overlaps());
    if (node && sscanf(node, "shared:ranks=%d", &k) == 1 && k > 0)
        check_groups(nranks, k);
    if (!R.rotate || nranks < 2 || !node || strcmp(node, "rank"))
        return;
    CHECK(strstr(ag_mpi_barrier_describe(R.b), "step=completion") != NULL, "a node per rank: %s",
          ag_mpi_barrier_describe(R.b));
    for (unsigned t = 0; t < R.tpr; t++)
        CHECK(mpi_watch_calls(t) > 0, "rank %d: thread %u never ran the inter-node phase", R.rank, t);
}

int main(int argc, char **argv)
{
    int provided, nranks;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options(argc, argv);
    unsigned long mine = R.tpr, before = 0;
    MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &R.J, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    R.gbase = R.rank ? (unsigned)before : 0;
    MPI_Win win = check_window();
    R.serial = calloc(R.episodes, sizeof *R.serial);

    int rc = ag_mpi_barrier_init(&R.b, MPI_COMM_WORLD, R.tpr, NULL);
    CHECK(rc == 0, "rank %d: ag_mpi_barrier_init: %s", R.rank, ag_mpi_strerror(rc));
    if (rc)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (R.rank == 0)
        printf("%d ranks, %lu threads: %s\n", nranks, R.J, ag_mpi_barrier_describe(R.b));
    check_placement(nranks);

    pthread_t th[MAXT];
    for (unsigned t = 0; t < R.tpr; t++)
        pthread_create(&th[t], NULL, thread, (void *)(size_t)t);
    for (unsigned t = 0; t < R.tpr; t++)
        pthread_join(th[t], NULL);
    if (R.rank == R.dead_rank && !R.late && !R.lost)
        sleep(3); /* stays away until the others have given up on it */
    check_mpi_calls(nranks);
    /* destroyed before the program's next MPI call: what a break left in flight (an abandoned
     * MPI_Ibarrier that a late rank joins afterwards) must not outlive what it runs on */
    rc = ag_mpi_barrier_destroy(R.b);
    CHECK(rc == 0, "ag_mpi_barrier_destroy: %s", ag_mpi_strerror(rc));

    /* exactly one AG_SERIAL per completed episode, job-wide */
    unsigned upto = R.dead_rank >= 0 ? (unsigned)R.dead_at : R.episodes;
    int *sum = calloc(R.episodes, sizeof *sum), *loc = calloc(R.episodes, sizeof *loc);
    for (unsigned k = 0; k < R.episodes; k++)
        loc[k] = atomic_load(&R.serial[k]);
    MPI_Allreduce(loc, sum, (int)R.episodes, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (unsigned k = 0; k < upto; k++)
        CHECK(sum[k] == 1, "episode %u: %d AG_SERIAL returns job-wide", k, sum[k]);
    CHECK(atomic_load(&R.errors) == 0, "rank %d: %u failed checks", R.rank, atomic_load(&R.errors));
    unsigned present = R.tpr - (R.lost && R.rank == R.dead_rank); /* threads that came to episode K */
    if (R.dead_rank >= 0 && (R.rank != R.dead_rank || R.late || R.lost))
        CHECK(atomic_load(&R.broke_at_dead) == present, "rank %d: %u of %u threads saw the break", R.rank,
              atomic_load(&R.broke_at_dead), present);

    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    int bad = check_failed, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (R.rank == 0 || bad)
        printf("rank %d: ", R.rank), check_done();
    free(sum), free(loc), free(R.serial);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
