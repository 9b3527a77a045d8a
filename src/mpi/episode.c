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

/* Who holds each tid of this rank (b->held[tid]). libandgate refuses a call through a tid that another
 * call is inside (ag_refuse: EBUSY, or EINVAL between arrive and depart) by a marker in the barrier,
 * set on entry and cleared at the end of the episode. Here that marker would not do: on the fixed-leader
 * path NB's marker is clear between phase 1 and phase 2 (a second caller would then enter NB episode
 * 2k + 1 and release the node before the inter-node phase), and the completion step's gate has none
 * after arrive. A refusal reported by NB on the leader would moreover be taken for a break and told to
 * the other nodes. So the MPI layer holds the tid itself, from the start of the call to its end (split
 * phase: from arrive to the end of depart), for every path, and refuses before touching anything: the
 * refused call breaks nothing. The claim is one compare-and-swap, so of two calls at once exactly one
 * wins (libandgate's load and store catch only a call that finds the other already inside). The
 * release store at the end pairs with the next holder's acquiring claim: a tid handed to another thread
 * after its holder returned is ordered after everything that holder did. */
enum { FREE = 0, ARRIVED = 1, INSIDE = 2 };

static int claim(struct ag_mpi_barrier *b, unsigned tid, unsigned char from, unsigned char to)
{
    unsigned char was = from;
    if (atomic_compare_exchange_strong_explicit(&b->held[tid], &was, to, memory_order_acquire,
                                                memory_order_relaxed))
        return 0;
    return was == ARRIVED ? EINVAL : EBUSY;
}

/* The end of a call that held tid: b->inside (destroy's EBUSY while a thread of this rank is inside a
 * wait or between arrive and depart) is raised right after the claim of a wait or an arrive and lowered
 * here, before the tid is free again. */
static int leave(struct ag_mpi_barrier *b, unsigned tid, int rc)
{
    atomic_fetch_sub(&b->inside, 1);
    atomic_store_explicit(&b->held[tid], FREE, memory_order_release);
    return rc;
}

int ag_mpi_barrier_wait_until(ag_mpi_barrier_t *b, unsigned tid, const struct timespec *dl)
{
    uint64_t ns;
    if (check(b, tid) || ag_deadline_ns(dl, &ns))
        return EINVAL; /* a malformed deadline: refused before anything, it leaves nothing behind */
    int rc = claim(b, tid, FREE, INSIDE); /* EINVAL between this tid's arrive and depart, else EBUSY */
    if (rc)
        return rc;
    atomic_fetch_add(&b->inside, 1);
    if (b->gate) {
        ag_token_t tok;
        rc = ag_mpi_gate_arrive(b, &tok);
        if (!rc)
            rc = ag_mpi_gate_depart(b, tok, dl);
    } else {
        rc = finish(b, tid, ag_barrier_wait_until(b->nb, b->base + tid, dl), dl);
    }
    return leave(b, tid, rc);
}

int ag_mpi_barrier_wait(ag_mpi_barrier_t *b, unsigned tid)
{
    return ag_mpi_barrier_wait_until(b, tid, NULL);
}

/* Split phase: arrive is phase 1's arrival (it returns at once for the node algorithms whose arrival
 * never waits); depart completes phase 1 and runs the rest. The tid is held, and the thread counts as
 * inside, from arrive to the end of depart. */
int ag_mpi_barrier_arrive(ag_mpi_barrier_t *b, unsigned tid, ag_token_t *tok)
{
    if (check(b, tid) || !tok)
        return EINVAL;
    int rc = claim(b, tid, FREE, ARRIVED); /* EINVAL: arrive twice; EBUSY: another call is inside */
    if (rc)
        return rc;
    atomic_fetch_add(&b->inside, 1);
    rc = b->gate ? ag_mpi_gate_arrive(b, tok) : ag_barrier_arrive(b->nb, b->base + tid, tok);
    return rc ? leave(b, tid, b->gate ? rc : broken(b, tid, rc)) : 0;
}

int ag_mpi_barrier_depart(ag_mpi_barrier_t *b, unsigned tid, ag_token_t tok, const struct timespec *dl)
{
    uint64_t ns;
    if (check(b, tid))
        return EINVAL;
    if (ag_deadline_ns(dl, &ns))
        return EINVAL; /* not departed: still arrived */
    if (claim(b, tid, ARRIVED, INSIDE))
        return EINVAL; /* depart without arrive (or while another depart of this tid runs) */
    if (b->gate)
        return leave(b, tid, ag_mpi_gate_depart(b, tok, dl));
    return leave(b, tid, finish(b, tid, ag_barrier_depart(b->nb, b->base + tid, tok, dl), dl));
}
