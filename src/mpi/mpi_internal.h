/* mpi_internal.h — libandgate-mpi's object and the calls between its files.
 *   spec.c     the inter-node spec string, the node grouping ANDGATE_MPI_NODE, error messages
 *   setup.c    init and destroy: the agreement between ranks, communicators, the shared window
 *   inter.c    the inter-node phase among node leaders (dissemination or MPI_Ibarrier), polled
 *   episode.c  wait, wait_until, arrive, depart: the node phases around the inter-node phase; who holds
 *              each tid (misuse refused before anything is touched)
 *   complete.c the completion step of a node of one rank: its last arriver runs the inter-node phase
 * The design and its invariants: docs/mpi.md. */
#ifndef AG_MPI_INTERNAL_H
#define AG_MPI_INTERNAL_H

#include <stdatomic.h>

#include "andgate_mpi.h"

enum ag_mpi_inter { AG_MPI_DISSEMINATION = 0, AG_MPI_IBARRIER = 1 };
enum ag_mpi_node { AG_MPI_NODE_SHARED = 0, AG_MPI_NODE_RANK = 1 };

/* Tags on the leaders' communicator (a dup of the caller's: no clash with the application). */
#define AG_MPI_TAG_BREAK 1 /* "my node is broken": zero bytes, any leader to every other */
#define AG_MPI_TAG_ROUND 2 /* dissemination round r of an episode of parity p: AG_MPI_TAG_ROUND + 2r + p */

struct ag_mpi_barrier {
    /* fixed at init */
    MPI_Comm comm;           /* dup of the caller's communicator */
    MPI_Comm node;           /* the ranks of this node: those that share memory, a group of node_group of
                              * them (ANDGATE_MPI_NODE=shared:ranks=K), or this rank alone (=rank) */
    MPI_Comm leaders;        /* node-local rank 0 of every node; MPI_COMM_NULL on the other ranks */
    MPI_Win win;             /* the shared window holding the node barrier */
    ag_barrier_t *nb;        /* this process's handle on the node barrier */
    enum ag_mpi_inter inter;
    enum ag_mpi_node mode;
    int node_group;          /* shared:ranks=K: K; 0: every rank that shares memory (or mode rank) */
    unsigned tpr;            /* threads of this rank */
    unsigned base;           /* node-barrier tid of this rank's tid 0 */
    unsigned node_threads;   /* participants of the node barrier */
    unsigned long job_threads;
    int node_rank;           /* rank in node */
    int node_size;           /* ranks in node */
    int nodes;               /* number of nodes (size of leaders) */
    int node_index;          /* this node's rank in leaders; node 0 hands out AG_SERIAL */
    char desc[512];

    struct ag_mpi_gate *gate; /* the completion step's node barrier (complete.c); NULL: NB episodes */

    /* the leader's MPI state: on the fixed-leader path touched only by the thread using tid 0 on node
     * rank 0, successive episodes ordered by the node barrier; with the completion step by whichever
     * thread holds the gate's MPI lock (complete.c) */
    unsigned long episode;   /* inter-node phases begun: its parity picks the tags */
    MPI_Request brk;         /* the pre-posted receive of a break notice from another leader */
    int sent_break;          /* this leader has told the others */
    MPI_Request stale;       /* an MPI_Ibarrier abandoned at a break (it cannot be cancelled) */

    atomic_uint inside;      /* this rank's threads inside a wait or between arrive and depart */
    atomic_uchar *held;      /* per tid: free, arrived or inside; claimed by one CAS (episode.c) */
};

/* complete.c: a node of one rank in a job of several nodes. make: after NB (its wait policy is the
 * gate's); arrive counts the calling thread in (never waits) and marks the token of the last arriver;
 * depart runs the completion step in that one and waits for it in the others: 0, AG_SERIAL (node 0's
 * completer), ETIMEDOUT, AG_EBROKEN, AG_MPI_ECALL. The caller holds its tid (b->held, episode.c): the
 * misuse of tids is refused there. */
int ag_mpi_gate_make(struct ag_mpi_barrier *b);
void ag_mpi_gate_free(struct ag_mpi_barrier *b);
int ag_mpi_gate_arrive(struct ag_mpi_barrier *b, ag_token_t *tok);
int ag_mpi_gate_depart(struct ag_mpi_barrier *b, ag_token_t tok, const struct timespec *dl);
int ag_mpi_gate_describe(const struct ag_mpi_barrier *b, char *buf, size_t len); /* the gate's wait policy */
/* Whether this node is broken: the gate's flag with the completion step, else NB's. */
int ag_mpi_node_broken(const struct ag_mpi_barrier *b);

/* spec.c */
int ag_mpi_spec_parse(const char *s, enum ag_mpi_inter *out, char *msg, size_t msglen);
int ag_mpi_node_mode(const char *s, enum ag_mpi_node *out, int *ranks, char *msg, size_t msglen);
int ag_mpi_node_format(enum ag_mpi_node mode, int ranks, char *buf, size_t len);
const char *ag_mpi_inter_name(enum ag_mpi_inter k);

/* inter.c: the leader's inter-node phase. 0 once every leader has begun this episode's phase;
 * ETIMEDOUT past the deadline; AG_EBROKEN when another leader's break notice arrives or the node
 * barrier is broken meanwhile; AG_MPI_ECALL when MPI fails. On an error the phase is abandoned. */
int ag_mpi_inter_phase(struct ag_mpi_barrier *b, const struct timespec *deadline);
/* Tell every other leader this node is broken (once; no-op off the leaders). */
void ag_mpi_send_break(struct ag_mpi_barrier *b);
/* Post the receive of break notices (init) and withdraw it (destroy). */
int ag_mpi_break_post(struct ag_mpi_barrier *b);
void ag_mpi_break_withdraw(struct ag_mpi_barrier *b);

#endif
