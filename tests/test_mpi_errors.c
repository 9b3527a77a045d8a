/* test_mpi_errors.c — libandgate-mpi's bad arguments, run under mpirun (2 ranks; --grouped 5): each is
 * refused with a clear code (and, for spec strings, a message saying what was expected), on every rank
 * when only one rank is wrong, and the refused calls leave nothing behind (a good barrier works
 * afterwards).
 *   test_mpi_errors          arguments, spec strings, environment, tid, deadlines, split-phase misuse,
 *                            two threads that use one tid at once
 *   test_mpi_errors --single MPI initialized with MPI_THREAD_SINGLE: init says AG_MPI_ETHREADS
 *   test_mpi_errors --node-rank  the same, with the good barrier's ranks each a node of its own (the
 *                            completion step of src/mpi/complete.c)
 *   test_mpi_errors --grouped    the same, with the good barrier's nodes groups of 2 ranks
 *                            (ANDGATE_MPI_NODE=shared:ranks=2): under mpirun -np 4 or more, nodes of two
 *                            ranks take the fixed leader (src/mpi/episode.c), an odd last rank the
 *                            completion step */
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

static int rank, nranks;

static void spec_strings(void)
{
    char msg[256];
    CHECK(ag_mpi_spec_check("mpi:inter=dissemination", msg, sizeof msg) == 0 && !msg[0], "%s", msg);
    CHECK(ag_mpi_spec_check("mpi:inter=ibarrier", msg, sizeof msg) == 0, "%s", msg);
    CHECK(ag_mpi_spec_check("mpi", msg, sizeof msg) == 0, "%s", msg);
    CHECK(ag_mpi_spec_check(NULL, msg, sizeof msg) == 0, "%s", msg);
    const char *bad[] = { "mpi:inter=ring", "mpi:inter=", "mpi:ways=2", "dissemination", "mpi:", "mpi:inter" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        msg[0] = '\0';
        int rc = ag_mpi_spec_check(bad[i], msg, sizeof msg);
        CHECK(rc == EINVAL && strstr(msg, "expected"), "'%s': %d '%s'", bad[i], rc, msg);
    }
    CHECK(ag_mpi_spec_check("mpi:inter=ring", NULL, 0) == EINVAL, "no message buffer");
}

/* ag_mpi_env_check: a bad $ANDGATE_MPI or $ANDGATE_MPI_NODE is named, with its value and what was
 * expected, on one line (as libandgate's own ANDGATE_* checks say it) */
static void env_strings(void)
{
    static const struct {
        const char *var, *val, *head;
    } bad[] = {
        { "ANDGATE_MPI_NODE", "socket", "ANDGATE_MPI_NODE='socket': unknown node grouping 'socket'; expected "
                                        "one of: shared, rank" },
        { "ANDGATE_MPI_NODE", "shared:ranks=0", "ANDGATE_MPI_NODE='shared:ranks=0': shared: bad value '0' for "
                                                "ranks; expected one of all or an integer in 1..65536" },
        { "ANDGATE_MPI_NODE", "shared:ranks=-2", "ANDGATE_MPI_NODE='shared:ranks=-2': " },
        { "ANDGATE_MPI_NODE", "shared:ranks=65537", "ANDGATE_MPI_NODE='shared:ranks=65537': " },
        { "ANDGATE_MPI_NODE", "shared:ranks=two", "ANDGATE_MPI_NODE='shared:ranks=two': " },
        { "ANDGATE_MPI_NODE", "shared:ranks=", "ANDGATE_MPI_NODE='shared:ranks=': " },
        { "ANDGATE_MPI_NODE", "shared:group=2", "ANDGATE_MPI_NODE='shared:group=2': " },
        { "ANDGATE_MPI_NODE", "shared:", "ANDGATE_MPI_NODE='shared:': " },
        { "ANDGATE_MPI_NODE", "rank:ranks=2", "ANDGATE_MPI_NODE='rank:ranks=2': " },
        { "ANDGATE_MPI", "mpi:inter=tree", "ANDGATE_MPI='mpi:inter=tree': " },
    };
    char msg[256] = "x";
    CHECK(ag_mpi_env_check(msg, sizeof msg) == 0 && !msg[0], "nothing set: '%s'", msg);
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv(bad[i].var, bad[i].val, 1);
        msg[0] = '\0';
        int rc = ag_mpi_env_check(msg, sizeof msg);
        CHECK(rc == EINVAL && strstr(msg, bad[i].head) == msg && strstr(msg, "expected") && !strchr(msg, '\n'),
              "%s='%s': %d '%s'", bad[i].var, bad[i].val, rc, msg);
        CHECK(ag_mpi_env_check(NULL, 0) == EINVAL, "%s: no message buffer", bad[i].var);
        unsetenv(bad[i].var);
    }
    const char *good[] = { "shared", "rank", "", "shared:ranks=1", "shared:ranks=2", "shared:ranks=all" };
    for (unsigned i = 0; i < sizeof good / sizeof *good; i++) {
        setenv("ANDGATE_MPI_NODE", good[i], 1);
        CHECK(ag_mpi_env_check(msg, sizeof msg) == 0 && !msg[0], "ANDGATE_MPI_NODE='%s': '%s'", good[i], msg);
    }
    unsetenv("ANDGATE_MPI_NODE");
}

/* init must fail with want on every rank; mine_tpr is this rank's threads_per_rank */
static void refused(const char *what, unsigned tpr, const ag_config_t *cfg, const char *spec, int want)
{
    ag_mpi_barrier_t *b = (ag_mpi_barrier_t *)&rank; /* must stay untouched */
    int rc = ag_mpi_barrier_init_spec(&b, MPI_COMM_WORLD, tpr, cfg, spec);
    CHECK(rc == want && b == (ag_mpi_barrier_t *)&rank, "rank %d, %s: got %d (%s), want %d", rank, what, rc,
          ag_mpi_strerror(rc), want);
}

static void bad_init(void)
{
    ag_mpi_barrier_t *b = NULL;
    CHECK(ag_mpi_barrier_init(&b, MPI_COMM_NULL, 2, NULL) == EINVAL && !b, "MPI_COMM_NULL");
    CHECK(ag_mpi_barrier_init(NULL, MPI_COMM_WORLD, 2, NULL) == EINVAL, "NULL out");
    /* a NULL out on rank 1 alone: every rank is told, none is left in a collective */
    ag_mpi_barrier_t *keep = NULL;
    int rc = ag_mpi_barrier_init(rank == 1 ? NULL : &keep, MPI_COMM_WORLD, 2, NULL);
    CHECK(rc == EINVAL && !keep, "rank %d, NULL out on rank 1: %d", rank, rc);
    refused("threads_per_rank 0 everywhere", 0, NULL, NULL, EINVAL);
    refused("threads_per_rank 0 on rank 1 only", rank == 1 ? 0 : 2, NULL, NULL, EINVAL);
    int cpus[2] = { 0, 0 };
    ag_config_t with_cpus = { .cpus = cpus };
    refused("cfg->cpus", 2, &with_cpus, NULL, EINVAL);
    ag_config_t wrong_n = { .nthreads = 5 };
    refused("cfg->nthreads != threads_per_rank", 2, &wrong_n, NULL, EINVAL);
    ag_config_t bad_algo = { .algo = "stour:fanin=99" };
    refused("bad node algorithm", 2, &bad_algo, NULL, EINVAL);
    ag_config_t bad_flags = { .flags = 0x80 };
    refused("unknown flags", 2, &bad_flags, NULL, EINVAL);
    refused("bad spec", 2, NULL, "mpi:inter=ring", EINVAL);
    const char *mine = rank ? "mpi:inter=ibarrier" : "mpi:inter=dissemination";
    refused("ranks disagree on the spec", 2, NULL, mine, EINVAL);
    setenv("ANDGATE_MPI", "mpi:inter=tree", 1);
    refused("bad $ANDGATE_MPI", 2, NULL, NULL, EINVAL);
    unsetenv("ANDGATE_MPI");
    setenv("ANDGATE_MPI_NODE", "socket", 1);
    refused("bad $ANDGATE_MPI_NODE", 2, NULL, NULL, EINVAL);
    setenv("ANDGATE_MPI_NODE", rank ? "rank" : "shared", 1);
    refused("ranks disagree on ANDGATE_MPI_NODE", 2, NULL, NULL, EINVAL);
    setenv("ANDGATE_MPI_NODE", rank ? "shared:ranks=2" : "shared:ranks=1", 1);
    refused("ranks disagree on ANDGATE_MPI_NODE's ranks=K", 2, NULL, NULL, EINVAL);
    setenv("ANDGATE_MPI_NODE", rank ? "shared:ranks=2" : "shared", 1);
    refused("ranks disagree: shared:ranks=K against shared", 2, NULL, NULL, EINVAL);
    unsetenv("ANDGATE_MPI_NODE");
}

/* The path this rank's episodes take with ANDGATE_MPI_NODE=node (NULL: shared), all ranks on one
 * machine: ranks 0..K-1 are the first node, K..2K-1 the next, ... (K: 1 for "rank", all for "shared"). */
static const char *expected_step(const char *node)
{
    int k = !node ? nranks : !strcmp(node, "rank") ? 1 : atoi(strchr(node, '=') + 1);
    int nodes = (nranks + k - 1) / k, first = rank / k * k, mine = nranks - first < k ? nranks - first : k;
    return nodes == 1 ? "step=none" : mine == 1 ? "step=completion" : "step=leader";
}

/* A good barrier (one thread per rank): bad tids, NULL, malformed deadlines, split-phase misuse,
 * destroy while inside; none of them breaks it. node: ANDGATE_MPI_NODE for it (NULL: unset): "rank"
 * makes every rank its own node, so the episodes take the completion step (src/mpi/complete.c)
 * instead of one node-barrier episode; "shared:ranks=2" nodes of two ranks, the fixed leader. */
static void bad_calls(const char *node)
{
    ag_mpi_barrier_t *b = NULL;
    if (node)
        setenv("ANDGATE_MPI_NODE", node, 1);
    int rc = ag_mpi_barrier_init(&b, MPI_COMM_WORLD, 1, NULL);
    unsetenv("ANDGATE_MPI_NODE");
    CHECK(rc == 0, "init: %s", ag_mpi_strerror(rc));
    if (rc)
        return;
    ag_token_t tok;
    struct timespec bad_ts = { .tv_sec = 1, .tv_nsec = 2000000000L };
    CHECK(ag_mpi_barrier_wait(b, 1) == EINVAL, "tid out of range");
    CHECK(ag_mpi_barrier_wait(NULL, 0) == EINVAL, "NULL barrier");
    CHECK(ag_mpi_barrier_wait_until(b, 7, NULL) == EINVAL, "wait_until tid");
    CHECK(ag_mpi_barrier_arrive(b, 1, &tok) == EINVAL, "arrive tid");
    CHECK(ag_mpi_barrier_arrive(b, 0, NULL) == EINVAL, "arrive NULL token");
    CHECK(ag_mpi_barrier_depart(b, 0, 0, NULL) == EINVAL, "depart without arrive");
    CHECK(ag_mpi_barrier_wait_until(b, 0, &bad_ts) == EINVAL, "malformed deadline");
    CHECK(ag_mpi_barrier_destroy(NULL) == EINVAL, "destroy NULL");
    int a = ag_mpi_barrier_wait(b, 0);
    CHECK(a == 0 || a == AG_SERIAL, "a wait after the refused calls: %s", ag_mpi_strerror(a));
    CHECK(ag_mpi_barrier_arrive(b, 0, &tok) == 0, "arrive");
    CHECK(ag_mpi_barrier_destroy(b) == EBUSY, "destroy between arrive and depart");
    ag_token_t again;
    CHECK(ag_mpi_barrier_arrive(b, 0, &again) == EINVAL, "arrive twice");
    CHECK(ag_mpi_barrier_wait(b, 0) == EINVAL, "a plain wait between arrive and depart");
    CHECK(ag_mpi_barrier_depart(b, 0, tok, &bad_ts) == EINVAL, "depart with a malformed deadline");
    rc = ag_mpi_barrier_depart(b, 0, tok, NULL);
    CHECK(rc == 0 || rc == AG_SERIAL, "depart: %s", ag_mpi_strerror(rc));
    int serial = (a == AG_SERIAL) + (rc == AG_SERIAL), total = 0;
    MPI_Allreduce(&serial, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == 2, "AG_SERIAL returns in two episodes: %d", total);
    CHECK(strstr(ag_mpi_barrier_describe(b), "mpi:inter=dissemination") != NULL, "%s", ag_mpi_barrier_describe(b));
    /* one node (no inter-node phase), nodes of one rank (the completion step), or of two (the leader) */
    const char *step = expected_step(node);
    CHECK(strstr(ag_mpi_barrier_describe(b), step) != NULL, "want %s: %s", step, ag_mpi_barrier_describe(b));
    char grouping[64]; /* the grouping, in its canonical form */
    snprintf(grouping, sizeof grouping, " grouping=%s ", !node ? "shared:ranks=all" : node);
    CHECK(strstr(ag_mpi_barrier_describe(b), grouping) != NULL, "want%s: %s", grouping,
          ag_mpi_barrier_describe(b));
    CHECK(ag_mpi_barrier_destroy(b) == 0, "destroy");
}

/* Two threads of a rank use tid 0 at once (misuse: tids are distinct within an episode). As in
 * libandgate (ag_refuse, docs/guide.md "Participants"), a call through a tid that another call is
 * inside is refused with EBUSY and touches nothing: the other call completes the episode, nothing breaks
 * on any rank, one AG_SERIAL job-wide, and the next episode works. Threads per rank: A through tid 0, B
 * through tid 0 too (the second caller), C through tid 1. Three episodes:
 *   now    on every rank A and B start together; C arrives only once every rank's refusal has
 *          happened (a counter in a shared window: all ranks are on this machine), so the episode is
 *          open while they race and the refused call cannot come after the other's end;
 *   later  (several nodes) on node 0 A and C arrive, and B calls 100 ms after A: node 0 has then, most
 *          likely, closed its node phase and its leader is in the inter-node phase, since the other
 *          ranks arrive only after B's refusal (between the fixed leader's node phases NB's own marker
 *          is clear, and the completion step's gate has none);
 *   plain  A and C.
 * After each episode C checks that every rank's C had arrived at it (no thread left early). */
static struct {
    ag_mpi_barrier_t *b;
    _Atomic int *refused, *arrived; /* in a shared window: racers refused, C's arrivals, job-wide */
    pthread_barrier_t go;
    int with_b, b_ms, hold_a, hold_c; /* this episode's plan on this rank: B runs, its delay, holds */
    int rc[3], seen;                  /* per thread its return code; C's count of arrivals after */
} race;

/* Wait (bounded, only against a hang) until n racers have been refused job-wide. */
static void hold(int n)
{
    for (int ms = 0; ms < 60000 && atomic_load(race.refused) < n; ms++)
        usleep(1000);
}

static void *racer(void *arg)
{
    unsigned i = (unsigned)(size_t)arg; /* 0 A, 1 B, 2 C */
    if (i < 2 && race.with_b)
        pthread_barrier_wait(&race.go);
    if (i == 1)
        usleep(1000 * (unsigned)race.b_ms);
    hold(i == 0 ? race.hold_a : i == 2 ? race.hold_c : 0);
    if (i == 2)
        atomic_fetch_add(race.arrived, 1);
    struct timespec dl = in_ms(60000); /* only against a hang: nothing here waits that long */
    race.rc[i] = ag_mpi_barrier_wait_until(race.b, i == 2, &dl);
    if (race.rc[i] == EBUSY)
        atomic_fetch_add(race.refused, 1);
    if (i == 2)
        race.seen = atomic_load(race.arrived);
    return NULL;
}

/* One episode as planned in race; returns how many AG_SERIAL this rank got. */
static int race_episode(void)
{
    pthread_t th[3];
    race.rc[0] = race.rc[1] = race.rc[2] = -100;
    pthread_barrier_init(&race.go, NULL, 2);
    for (unsigned i = 0; i < 3; i++)
        if (i != 1 || race.with_b)
            pthread_create(&th[i], NULL, racer, (void *)(size_t)i);
    for (unsigned i = 0; i < 3; i++)
        if (i != 1 || race.with_b)
            pthread_join(th[i], NULL);
    pthread_barrier_destroy(&race.go);
    return (race.rc[0] == AG_SERIAL) + (race.rc[1] == AG_SERIAL) + (race.rc[2] == AG_SERIAL);
}

static int ok(int rc)
{
    return rc == 0 || rc == AG_SERIAL;
}

/* The three episodes on a barrier of 2 threads per rank; k: ranks per node (0: one node). */
static void race_episodes(int k)
{
    int serial[3], total[3], n = 0, late = k && nranks > k, in0 = rank < k;
    race.with_b = 1, race.b_ms = 0, race.hold_a = 0, race.hold_c = nranks;
    serial[n++] = race_episode();
    int won = race.rc[race.rc[0] == EBUSY];
    CHECK((race.rc[0] == EBUSY) + (race.rc[1] == EBUSY) == 1 && ok(won) && ok(race.rc[2]),
          "rank %d, A and B at once: A %d, B %d, C %d; want one EBUSY (%s)", rank, race.rc[0], race.rc[1],
          race.rc[2], ag_mpi_barrier_describe(race.b));
    CHECK(race.seen >= nranks, "rank %d, A and B at once: C left after %d arrivals", rank, race.seen);
    if (late) {
        race.with_b = in0, race.b_ms = 100, race.hold_c = race.hold_a = in0 ? 0 : nranks + k;
        serial[n++] = race_episode();
        CHECK(ok(race.rc[0]) && ok(race.rc[2]) && (!in0 || race.rc[1] == EBUSY),
              "rank %d, B later on node 0: A %d, B %d, C %d", rank, race.rc[0], race.rc[1], race.rc[2]);
        CHECK(race.seen >= 2 * nranks, "rank %d, B later on node 0: C left after %d arrivals", rank, race.seen);
    }
    race.with_b = race.hold_a = race.hold_c = 0;
    serial[n++] = race_episode();
    CHECK(ok(race.rc[0]) && ok(race.rc[2]) && race.seen >= n * nranks, "rank %d, after: A %d, C %d, %d arrivals",
          rank, race.rc[0], race.rc[2], race.seen);
    MPI_Allreduce(serial, total, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int e = 0; e < n; e++)
        CHECK(total[e] == 1, "episode %d of the race: %d AG_SERIAL job-wide", e, total[e]);
}

static void tid_race(const char *node)
{
    MPI_Comm shm;
    MPI_Win win;
    MPI_Aint size;
    int disp, local;
    void *base;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &local);
    CHECK(local == nranks, "the test needs every rank on one machine");
    MPI_Win_allocate_shared(rank == 0 ? 2 * (MPI_Aint)sizeof(int) : 0, 1, MPI_INFO_NULL, shm, &base, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &base);
    race.refused = base;
    race.arrived = (_Atomic int *)base + 1;
    if (rank == 0)
        atomic_store(race.refused, 0), atomic_store(race.arrived, 0);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Win_sync(win);
    MPI_Barrier(shm);
    MPI_Win_sync(win);
    if (node)
        setenv("ANDGATE_MPI_NODE", node, 1);
    int rc = ag_mpi_barrier_init(&race.b, MPI_COMM_WORLD, 2, NULL);
    unsetenv("ANDGATE_MPI_NODE");
    CHECK(rc == 0, "init: %s", ag_mpi_strerror(rc));
    if (!rc) {
        race_episodes(!node ? 0 : !strcmp(node, "rank") ? 1 : atoi(strchr(node, '=') + 1));
        CHECK(ag_mpi_barrier_destroy(race.b) == 0, "destroy after the race");
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&shm);
}

/* A communicator of one rank with one thread (MPI_COMM_SELF): one node, a node barrier of one
 * participant; the split-phase misuse is refused there as anywhere. */
static void comm_of_one(void)
{
    ag_mpi_barrier_t *b = NULL;
    int rc = ag_mpi_barrier_init(&b, MPI_COMM_SELF, 1, NULL);
    CHECK(rc == 0, "MPI_COMM_SELF: %s", ag_mpi_strerror(rc));
    if (rc)
        return;
    ag_token_t tok;
    CHECK(ag_mpi_barrier_wait(b, 0) == AG_SERIAL, "one thread job-wide: AG_SERIAL");
    CHECK(ag_mpi_barrier_arrive(b, 0, &tok) == 0, "arrive");
    CHECK(ag_mpi_barrier_wait(b, 0) == EINVAL, "one thread: a plain wait between arrive and depart");
    CHECK(ag_mpi_barrier_destroy(b) == EBUSY, "one thread: destroy between arrive and depart");
    CHECK(ag_mpi_barrier_depart(b, 0, tok, NULL) == AG_SERIAL, "depart");
    CHECK(strstr(ag_mpi_barrier_describe(b), "step=none") != NULL, "%s", ag_mpi_barrier_describe(b));
    CHECK(ag_mpi_barrier_destroy(b) == 0, "destroy");
}

int main(int argc, char **argv)
{
    int single = argc > 1 && !strcmp(argv[1], "--single"), provided;
    const char *node = NULL;
    if (argc > 1 && !strcmp(argv[1], "--node-rank"))
        node = "rank";
    if (argc > 1 && !strcmp(argv[1], "--grouped"))
        node = "shared:ranks=2";
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (single) {
        refused("MPI_THREAD_SINGLE", 2, NULL, NULL, AG_MPI_ETHREADS);
        CHECK(strstr(ag_mpi_strerror(AG_MPI_ETHREADS), "MPI_THREAD_SERIALIZED") != NULL, "message");
    } else {
        spec_strings();
        env_strings();
        bad_init();
        bad_calls(node);
        tid_race(node);
        comm_of_one();
        CHECK(strcmp(ag_mpi_strerror(AG_MPI_ECALL), ag_mpi_strerror(EINVAL)) != 0, "messages differ");
        CHECK(strlen(ag_mpi_strerror(ETIMEDOUT)) > 0, "libandgate codes too");
        /* there is no ag_mpi_barrier_reset: a broken barrier is destroyed and made anew (docs/mpi.md) */
        const char *broken = ag_mpi_strerror(AG_EBROKEN);
        CHECK(!strstr(broken, "reset it") && strstr(broken, "destroy"), "AG_EBROKEN: '%s'", broken);
    }
    int bad = check_failed, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    printf("rank %d: ", rank);
    check_done();
    MPI_Finalize();
    return anybad ? 1 : 0;
}
