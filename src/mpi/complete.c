/* complete.c — the completion step: on a node of one rank, the node's last arriver runs the inter-node
 * phase and then releases the node's other threads, so an episode costs one node pass instead of two.
 *
 * Which path applies when (setup.c picks it, docs/mpi.md "The hierarchy"):
 *   one node                    one episode of the node barrier NB (episode.c);
 *   several nodes, node of one  this file: the node is one process (ANDGATE_MPI_NODE=rank, or one rank
 *   rank                        per machine), so whichever of its threads arrives last is in the
 *                               leaders' communicator and may run the inter-node phase;
 *   several nodes, node of      the fixed leader (episode.c: NB episodes 2k and 2k + 1): the last
 *   several ranks               arriver may be a process that is not in the leaders' communicator.
 *
 * The node barrier here is a central counter with a gate, in process-private memory, using libandgate's
 * flag layer (flags.h) with NB's resolved wait policy (spin, hybrid with yield, futex; deadlines):
 *   COUNT  arrivals in this episode; the thread whose fetch_add makes it n is the completer;
 *   OPEN   the number of completed episodes: the others wait for it to move past the value they read
 *          before arriving (nobody can complete an episode without them, so that value is current);
 *   BROKEN libandgate's broken flag: a timeout, a failed or broken inter-node phase, a break notice.
 * Arrive only counts (it never waits, whoever is last: the split-phase meaning stays); the completer
 * learns it from its arrival, records it in the token, and runs the step in its depart. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* struct ag_barrier: NB's resolved wait policy */
#include "mpi_internal.h"

#define LINE 16 /* slots per 128 bytes: every flag on its own pair of cache lines */
enum { G_BROKEN = 0, G_COUNT = LINE, G_OPEN = 2 * LINE, G_SLOTS = 3 * LINE };

struct ag_mpi_gate {
    _Alignas(128) _Atomic uint64_t slots[G_SLOTS];
    _Atomic uint32_t sleepers[G_SLOTS];
    ag_flags_t fl;
    struct ag_waitpol wp;
    _Atomic uint64_t stalled_at; /* hybrid's stall rule (flag_wait.c) */
    _Alignas(128) atomic_int mpi; /* held by the one thread of this rank that may call MPI now */
    unsigned n;
};

int ag_mpi_gate_make(struct ag_mpi_barrier *b)
{
    size_t size = sizeof(struct ag_mpi_gate); /* a multiple of its alignment, as aligned_alloc wants */
    struct ag_mpi_gate *g = aligned_alloc(128, size);
    if (!g)
        return ENOMEM;
    memset(g, 0, size);
    g->wp = b->nb->wp; /* the node barrier's policy, as configured and resolved (auto against the node) */
    g->n = b->tpr;
    /* sleepers and asym as libandgate sets them for a private barrier (flags.h: where sleeping is rare
     * the sleeper pays the fence with membarrier(), and the release stays a plain store) */
    g->fl = (ag_flags_t){ .slots = g->slots, .sleepers = ag_wait_may_block(&g->wp) ? g->sleepers : NULL,
                          .wp = &g->wp, .stalled_at = &g->stalled_at, .pshared = 0, .broken = G_BROKEN,
                          .nslots = G_SLOTS,
                          .asym = ag_wait_sleeps_rarely(&g->wp) && ag_membarrier_ready() };
    b->gate = g;
    return 0;
}

void ag_mpi_gate_free(struct ag_mpi_barrier *b)
{
    free(b->gate);
    b->gate = NULL;
}

int ag_mpi_node_broken(const struct ag_mpi_barrier *b)
{
    return b->gate ? flag_broken(&b->gate->fl) : ag_barrier_is_broken(b->nb);
}

int ag_mpi_gate_describe(const struct ag_mpi_barrier *b, char *buf, size_t len)
{
    return ag_wait_format(&b->gate->wp, buf, len);
}

/* The right to call MPI (MPI_THREAD_SERIALIZED: one thread of the rank at a time). Held by a completer
 * for its inter-node phase and by a thread that tells the other leaders of a break. A holder never
 * waits unboundedly: the completer's polling stops at the node's broken flag, which every thread that
 * wants the lock for a break has set before asking. Under oversubscription the holder may be off its
 * CPU, so the waiter yields rather than spin. */
static void mpi_lock(struct ag_mpi_gate *g)
{
    for (unsigned spin = 0; atomic_exchange_explicit(&g->mpi, 1, memory_order_acquire); spin++) {
        if (spin >= 64)
            sched_yield();
        else
            ag_cpu_relax();
    }
}

static void mpi_unlock(struct ag_mpi_gate *g)
{
    atomic_store_explicit(&g->mpi, 0, memory_order_release);
}

/* Break this node (every waiter gets AG_EBROKEN) and tell the other nodes' leaders, once. */
static void spread(struct ag_mpi_barrier *b)
{
    ag_flags_break(&b->gate->fl);
    mpi_lock(b->gate);
    ag_mpi_send_break(b);
    mpi_unlock(b->gate);
}

/* The caller holds its tid (episode.c: arrive twice, a wait between arrive and depart and two calls
 * through one tid at once are refused there), so every arrival here is a distinct thread's. */
int ag_mpi_gate_arrive(struct ag_mpi_barrier *b, ag_token_t *tok)
{
    struct ag_mpi_gate *g = b->gate;
    if (flag_broken(&g->fl))
        return AG_EBROKEN;
    uint64_t e = flag_load(&g->fl, G_OPEN);
    /* acq_rel: this thread's writes before arriving are released to the completer, whose own fetch_add
     * reads the end of the release sequence every arrival of the episode is part of. A rank of one
     * thread needs no count: its thread is always the last. */
    uint64_t before = g->n == 1 ? 0 : flag_fetch_add(&g->fl, G_COUNT, 1);
    *tok = e << 1 | (before + 1 == g->n);
    return 0;
}

/* The completer of episode e: every thread of this rank has arrived (its fetch_add acquired their
 * writes). It runs the inter-node phase, then opens the gate. */
static int complete(struct ag_mpi_barrier *b, uint64_t e, const struct timespec *dl)
{
    struct ag_mpi_gate *g = b->gate;
    /* Reset before the release below: nobody arrives at episode e + 1 before OPEN moves past e (the
     * arrivals load OPEN with acquire after waiting on it), so every next arrival sees the 0. */
    if (g->n > 1)
        flag_put(&g->fl, G_COUNT, 0);
    /* MPI_THREAD_SERIALIZED with a dynamic leader. The leader's MPI state (b->episode and its parity,
     * the pre-posted break receive b->brk, b->sent_break, an abandoned Ibarrier in b->stale) and Open
     * MPI's own per-process state pass from thread to thread between episodes; every access to them is
     * made under g->mpi. mpi_unlock's release store pairs with the next holder's acquiring exchange in
     * mpi_lock, so each holder's MPI calls happen before the next holder's, and no two overlap. (In a
     * good run the chain is also completer k's release store to OPEN -> the acquire load of OPEN by
     * completer k + 1 before it arrived -> its fetch_add on COUNT.) */
    mpi_lock(g);
    int rc = flag_broken(&g->fl) ? AG_EBROKEN : ag_mpi_inter_phase(b, dl);
    if (!rc && flag_broken(&g->fl))
        rc = AG_EBROKEN; /* a waiter timed out meanwhile: it may have left, so the episode is broken */
    if (rc) {
        ag_flags_break(&g->fl); /* release this node's waiters, broken */
        ag_mpi_send_break(b);
    }
    mpi_unlock(g);
    if (rc)
        return rc;
    /* Every thread of every rank has arrived (inter.c). The release store publishes the writes the
     * completer acquired from its node's arrivals; the waiters acquire it in flag_wait. */
    flag_store(&g->fl, G_OPEN, e + 1);
    /* node 0's completer is the one thread job-wide with AG_SERIAL */
    return b->node_index == 0 ? AG_SERIAL : 0;
}

int ag_mpi_gate_depart(struct ag_mpi_barrier *b, ag_token_t tok, const struct timespec *dl)
{
    struct ag_mpi_gate *g = b->gate;
    uint64_t dl_ns;
    if (ag_deadline_ns(dl, &dl_ns))
        return EINVAL; /* not reached: episode.c refuses a malformed deadline before arriving or departing */
    uint64_t e = tok >> 1;
    if (tok & 1)
        return complete(b, e, dl);
    int rc = flag_wait(&g->fl, G_OPEN, AG_NE, e, dl_ns);
    if (rc == ETIMEDOUT)
        spread(b); /* the completer, if any, sees the broken flag at its next poll and stops */
    return rc;
}
