/* inter.c — the inter-node phase: the node leaders meet over MPI.
 * Idea: the leader of every node has seen its whole node arrive (node phase 1) before it starts this
 * phase, so "every leader has started this phase" means "every thread of every rank has arrived".
 * Two ways, chosen by the spec "mpi:inter=...":
 *   dissemination  ceil(log2 nodes) rounds; in round r leader i sends a zero-byte message to
 *                  (i + 2^r) mod nodes and waits for one from (i - 2^r) mod nodes (002 §II-B DIS, 003's
 *                  dsmn, here with MPI messages as the flags). Tags carry the round and the episode's
 *                  parity.
 *   ibarrier       MPI_Ibarrier on the leaders' communicator: the MPI library's own algorithm.
 * Either way the leader polls (MPI_Test) instead of blocking in MPI, so it can watch its deadline, the
 * node barrier's broken flag and the break notices of other leaders. Only the leader calls MPI here
 * (the fixed one, or the completer holding the MPI lock: complete.c).
 * Sources: 000 §4.2 (a barrier across sockets is "dominated by the inter-socket latency": cross the
 * slow link once per node, with one participant), 003 §4 (dissemination among group leaders). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "mpi_internal.h"

/* Polls before the first sched_yield: the leader may share a CPU with the threads it waits for. */
#define AG_MPI_SPIN 256

static int past(const struct timespec *dl)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > dl->tv_sec || (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec);
}

/* Give up on this phase's requests. A receive is cancelled and completed; a send of zero bytes is
 * left to finish by itself (MPI_Request_free); an MPI_Ibarrier may be neither cancelled nor freed by
 * the MPI standard, so it is kept, never completed, and its barrier is never used again. */
static void abandon(struct ag_mpi_barrier *b, MPI_Request *req, const int *is_recv, int n)
{
    for (int i = 0; i < n; i++) {
        if (req[i] == MPI_REQUEST_NULL)
            continue;
        if (b->inter == AG_MPI_IBARRIER) {
            b->stale = req[i];
        } else if (is_recv[i]) {
            MPI_Cancel(&req[i]);
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        } else {
            MPI_Request_free(&req[i]);
        }
    }
}

/* Wait for req[0..n) (n <= 2) to complete. Returns 0, or an error after abandoning them (see
 * ag_mpi_inter_phase). One MPI_Testsome per poll over the break notice's receive and the phase's
 * requests: one turn of MPI's progress engine, not one per request. */
static int poll(struct ag_mpi_barrier *b, MPI_Request *req, const int *is_recv, int n, const struct timespec *dl)
{
    MPI_Request all[3] = { b->brk, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    for (int i = 0; i < n; i++)
        all[1 + i] = req[i];
    const int watching = b->brk != MPI_REQUEST_NULL;
    for (unsigned spin = 0;; spin++) {
        int some = 0, idx[3], rc = 0;
        if (MPI_Testsome(n + 1, all, &some, idx, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            rc = AG_MPI_ECALL;
        b->brk = all[0];
        for (int i = 0; i < n; i++)
            req[i] = all[1 + i];
        /* another leader's node is broken (its notice is consumed, the request is now NULL): reported
         * even where the phase completed in the same test, since the breaking leader may have sent its
         * messages before it broke */
        if (!rc && watching && b->brk == MPI_REQUEST_NULL)
            rc = AG_EBROKEN;
        if (!rc) {
            int done = 1;
            for (int i = 0; i < n; i++)
                done &= req[i] == MPI_REQUEST_NULL;
            if (done)
                return 0;
        }
        if (!rc && ag_mpi_node_broken(b)) /* a thread of this node timed out or cancelled */
            rc = AG_EBROKEN;
        if (!rc && dl && past(dl))
            rc = ETIMEDOUT;
        if (rc) {
            abandon(b, req, is_recv, n);
            return rc;
        }
        if (spin >= AG_MPI_SPIN)
            sched_yield();
    }
}

static int dissemination(struct ag_mpi_barrier *b, int parity, const struct timespec *dl)
{
    int me = b->node_index, n = b->nodes;
    static const int is_recv[2] = { 1, 0 };
    /* Invariant after round r: this leader has heard, directly or through the chain of earlier
     * rounds, from the 2^(r+1) - 1 leaders before it (mod n), all of which had begun this episode's
     * phase. After ceil(log2 n) rounds that covers every leader. A message of the next episode cannot
     * be taken for one of this episode: it has the other parity, and no leader gets two episodes ahead
     * (it would need this leader's messages of the episode in between). */
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        MPI_Request req[2];
        int tag = AG_MPI_TAG_ROUND + 2 * r + parity;
        if (MPI_Irecv(NULL, 0, MPI_BYTE, (me - dist % n + n) % n, tag, b->leaders, &req[0]) != MPI_SUCCESS)
            return AG_MPI_ECALL;
        if (MPI_Isend(NULL, 0, MPI_BYTE, (me + dist) % n, tag, b->leaders, &req[1]) != MPI_SUCCESS) {
            abandon(b, req, is_recv, 1);
            return AG_MPI_ECALL;
        }
        int rc = poll(b, req, is_recv, 2, dl);
        if (rc)
            return rc;
    }
    return 0;
}

int ag_mpi_inter_phase(struct ag_mpi_barrier *b, const struct timespec *dl)
{
    int parity = (int)(b->episode++ & 1);
    if (b->inter == AG_MPI_DISSEMINATION)
        return dissemination(b, parity, dl);
    static const int is_recv[1] = { 0 };
    MPI_Request req;
    if (MPI_Ibarrier(b->leaders, &req) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    return poll(b, &req, is_recv, 1, dl);
}

void ag_mpi_send_break(struct ag_mpi_barrier *b)
{
    if (b->leaders == MPI_COMM_NULL || b->sent_break)
        return;
    b->sent_break = 1;
    /* best effort: zero-byte notices, freed at once (they complete by themselves) */
    for (int i = 0; i < b->nodes; i++) {
        MPI_Request r;
        if (i != b->node_index && MPI_Isend(NULL, 0, MPI_BYTE, i, AG_MPI_TAG_BREAK, b->leaders, &r) == MPI_SUCCESS)
            MPI_Request_free(&r);
    }
}

int ag_mpi_break_post(struct ag_mpi_barrier *b)
{
    b->brk = MPI_REQUEST_NULL;
    if (b->leaders == MPI_COMM_NULL || b->nodes < 2)
        return 0;
    int rc = MPI_Irecv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, AG_MPI_TAG_BREAK, b->leaders, &b->brk);
    return rc == MPI_SUCCESS ? 0 : AG_MPI_ECALL;
}

void ag_mpi_break_withdraw(struct ag_mpi_barrier *b)
{
    if (b->brk == MPI_REQUEST_NULL)
        return;
    MPI_Cancel(&b->brk);
    MPI_Wait(&b->brk, MPI_STATUS_IGNORE);
}
