/* episode.c — one episode of the job-wide barrier: node phase 1, the leader's inter-node phase, node
 * phase 2. A node of one rank in a job of several nodes takes the completion step instead (complete.c:
 * the last arriver runs the inter-node phase, one node pass); everything below is the other paths.
 *
 * Every rank's threads are participants base + tid of their node's barrier NB (process-shared, in the
 * node's MPI shared window). The leader is the participant using tid 0 on node rank 0 (NB tid 0), a
 * designated thread rather than NB's AG_SERIAL thread: only node rank 0 belongs to the leaders'
 * communicator. With one node the episode is one NB episode. With several, episode k is NB episodes 2k
 * and 2k + 1:
 *   phase 1  everybody waits on NB: on return every thread of the node has arrived (NB's release on
 *            arrival / acquire on departure: their writes are visible to the leader);
 *   inter    the leader alone meets the other leaders over MPI (inter.c): on return every leader has
 *            finished phase 1, i.e. every thread of every rank has arrived;
 *   phase 2  everybody waits on NB again. The non-leaders enter at once; the leader enters only after
 *            the inter-node phase, so NB episode 2k + 1 — and with it the release of every thread of
 *            the node — cannot complete before the inter-node phase has. No thread leaves episode k
 *            before every thread of every rank arrived at it.
 * AG_SERIAL: with one node NB hands out exactly one; with several, only the node whose leader is rank 0
 * of the leaders' communicator passes on phase 2's AG_SERIAL (one node, one per NB episode): one thread
 * job-wide per episode.
 * Breaks: any error of a phase ends the episode with that error. A leader that fails in the inter-node
 * phase breaks NB (ag_barrier_cancel), so its node's threads waiting in phase 2 get AG_EBROKEN; a
 * leader that sees its node broken tells the other leaders (inter.c), whose polling breaks their nodes. */
#include <errno.h>

#include "internal.h" /* ag_deadline_ns */
#include "mpi_internal.h"

static int is_leader(const struct ag_mpi_barrier *b, unsigned tid)
{
    return b->node_rank == 0 && tid == 0;
}

/* rc ended the episode: a break (ETIMEDOUT, AG_EBROKEN, AG_MPI_ECALL) is reported to the other leaders;
 * EINVAL (a malformed deadline) breaks nothing. */
static int broken(struct ag_mpi_barrier *b, unsigned tid, int rc)
{
    if (rc != EINVAL && is_leader(b, tid))
        ag_mpi_send_break(b);
    return rc;
}

/* After phase 1 returned rc1 (0 or AG_SERIAL, else an error): the rest of the episode. */
static int finish(struct ag_mpi_barrier *b, unsigned tid, int rc1, const struct timespec *dl)
{
    if (rc1 != 0 && rc1 != AG_SERIAL)
        return broken(b, tid, rc1);
    if (b->nodes == 1)
        return rc1;
    if (is_leader(b, tid)) {
        int rc = ag_mpi_inter_phase(b, dl);
        if (rc) {
            ag_barrier_cancel(b->nb); /* release this node's threads from phase 2, broken */
            return broken(b, tid, rc);
        }
    }
    int rc2 = ag_barrier_wait_until(b->nb, b->base + tid, dl);
    if (rc2 == AG_SERIAL)
        return b->node_index == 0 ? AG_SERIAL : 0;
    return rc2 ? broken(b, tid, rc2) : 0;
}

static int check(const struct ag_mpi_barrier *b, unsigned tid)
{
    return b && tid < b->tpr ? 0 : EINVAL;
}

int ag_mpi_barrier_wait_until(ag_mpi_barrier_t *b, unsigned tid, const struct timespec *dl)
{
    if (check(b, tid))
        return EINVAL;
    if (b->gate) {
        ag_token_t tok;
        uint64_t ns;
        if (ag_deadline_ns(dl, &ns))
            return EINVAL; /* before arriving: a refused wait leaves nothing behind */
        int rc = ag_mpi_barrier_arrive(b, tid, &tok);
        return rc ? rc : ag_mpi_barrier_depart(b, tid, tok, dl);
    }
    atomic_fetch_add(&b->inside, 1);
    int rc = finish(b, tid, ag_barrier_wait_until(b->nb, b->base + tid, dl), dl);
    atomic_fetch_sub(&b->inside, 1);
    return rc;
}

int ag_mpi_barrier_wait(ag_mpi_barrier_t *b, unsigned tid)
{
    return ag_mpi_barrier_wait_until(b, tid, NULL);
}

/* Split phase: arrive is phase 1's arrival (it returns at once for the node algorithms whose arrival
 * never waits); depart completes phase 1 and runs the rest. The thread counts as inside in between. */
int ag_mpi_barrier_arrive(ag_mpi_barrier_t *b, unsigned tid, ag_token_t *tok)
{
    if (check(b, tid) || !tok)
        return EINVAL;
    atomic_fetch_add(&b->inside, 1);
    int rc = b->gate ? ag_mpi_gate_arrive(b, tid, tok) : ag_barrier_arrive(b->nb, b->base + tid, tok);
    if (rc) {
        atomic_fetch_sub(&b->inside, 1);
        return b->gate ? rc : broken(b, tid, rc);
    }
    return 0;
}

int ag_mpi_barrier_depart(ag_mpi_barrier_t *b, unsigned tid, ag_token_t tok, const struct timespec *dl)
{
    if (check(b, tid))
        return EINVAL;
    if (b->gate) {
        int rc = ag_mpi_gate_depart(b, tid, tok, dl);
        if (rc != EINVAL) /* EINVAL: not departed (depart without arrive, malformed deadline) */
            atomic_fetch_sub(&b->inside, 1);
        return rc;
    }
    int rc1 = ag_barrier_depart(b->nb, b->base + tid, tok, dl);
    if (rc1 == EINVAL) /* depart without arrive, malformed deadline: not inside because of this call */
        return EINVAL;
    int rc = finish(b, tid, rc1, dl);
    atomic_fetch_sub(&b->inside, 1);
    return rc;
}
