/* test_mpi_errors.c — libandgate-mpi's bad arguments, run under mpirun with 2 ranks: each is refused
 * with a clear code (and, for spec strings, a message saying what was expected), on every rank when
 * only one rank is wrong, and the refused calls leave nothing behind (a good barrier works afterwards).
 *   test_mpi_errors          arguments, spec strings, environment, tid, deadlines, split-phase misuse
 *   test_mpi_errors --single MPI initialized with MPI_THREAD_SINGLE: init says AG_MPI_ETHREADS
 *   test_mpi_errors --node-rank  the same, with the good barrier's ranks each a node of its own (the
 *                            completion step of src/mpi/complete.c)
 *   test_mpi_errors --grouped    the same, with the good barrier's nodes groups of 2 ranks
 *                            (ANDGATE_MPI_NODE=shared:ranks=2): under mpirun -np 4 or more, nodes of two
 *                            ranks take the fixed leader (src/mpi/episode.c), an odd last rank the
 *                            completion step */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
