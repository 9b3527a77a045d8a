/* andgate_mpi.h — libandgate-mpi: one barrier over threads x MPI ranks.
 *
 *     ag_mpi_barrier_t *b;
 *     ag_config_t cfg = { .algo = "auto", .wait = "auto" };        // the node-local barrier's choice
 *     int err = ag_mpi_barrier_init(&b, MPI_COMM_WORLD, 4, &cfg);  // collective over the communicator
 *     ...  in thread tid (0..3) of every rank:  ag_mpi_barrier_wait(b, tid);   // 0 or AG_SERIAL
 *     ag_mpi_barrier_destroy(b);                                   // collective as well
 *
 * An episode completes when every thread of every rank of the communicator has arrived. Ranks sharing a
 * node meet in one process-shared andgate barrier (in an MPI shared window); one leader per node runs
 * the inter-node phase over MPI. Details, invariants and failure behaviour: docs/mpi.md.
 *
 * Conventions are libandgate's (andgate.h): 0 or a positive errno value, AG_SERIAL, AG_EBROKEN,
 * CLOCK_MONOTONIC absolute deadlines; the library never aborts and never prints. MPI must be
 * initialized with MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE (the MPI calls of an episode are made
 * by whichever thread uses tid 0 on the node's first rank, or, on a node of one rank, by the thread
 * that arrived last; never by two threads at once). Those calls overlap none of the application's in an
 * episode that completes; a break (a deadline passed) is told to the other ranks at once, so a program
 * that waits with deadlines while another of its threads may be inside an MPI call, or that calls MPI
 * right after a failed wait, needs MPI_THREAD_MULTIPLE (docs/mpi.md, "MPI thread level").
 */
#ifndef ANDGATE_MPI_H
#define ANDGATE_MPI_H

#include <mpi.h>

#include "andgate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ag_mpi_barrier ag_mpi_barrier_t;

/* The MPI library was initialized with a thread level below MPI_THREAD_SERIALIZED (MPI_Query_thread). */
#define AG_MPI_ETHREADS 0x4154 /* 'AT' */
/* An MPI call failed (the communicator's error handler returned an error instead of aborting). */
#define AG_MPI_ECALL 0x414d /* 'AM' */

/* Create a barrier over threads_per_rank threads in each rank of comm. Collective over comm: every
 * rank calls it; threads_per_rank may differ between ranks (the totals are agreed here). cfg (may be
 * NULL) chooses the node-local barrier's algorithm and wait policy; cfg->nthreads must be 0 or
 * threads_per_rank, cfg->cpus NULL, cfg->flags 0 or AG_PSHARED. The inter-node phase is chosen by
 * $ANDGATE_MPI (spec "mpi:inter=dissemination|ibarrier", default dissemination). $ANDGATE_MPI_NODE
 * groups ranks into nodes: shared (default) by MPI_Comm_split_type(MPI_COMM_TYPE_SHARED);
 * shared:ranks=K (K in 1..65536) cuts each of those into consecutive groups of K ranks (the last may be
 * smaller), e.g. one node per socket's ranks, or several nodes of several ranks on one machine; rank
 * makes every rank a node of its own.
 * Errors: EINVAL (comm == MPI_COMM_NULL, b NULL, threads_per_rank == 0, a bad cfg, spec or environment
 * value (ag_mpi_env_check names it), ranks that disagree on the spec or the node mode), AG_MPI_ETHREADS,
 * AG_MPI_ECALL, ENOMEM. An error found on any rank fails the call on every rank (with the largest code)
 * once comm is usable, so no rank is left waiting in a collective; comm == MPI_COMM_NULL returns at
 * once. On failure *b is untouched. */
AG_API int ag_mpi_barrier_init(ag_mpi_barrier_t **b, MPI_Comm comm, unsigned threads_per_rank,
                               const ag_config_t *cfg);

/* ag_mpi_barrier_init with an explicit inter-node spec (NULL: $ANDGATE_MPI, else the default). */
AG_API int ag_mpi_barrier_init_spec(ag_mpi_barrier_t **b, MPI_Comm comm, unsigned threads_per_rank,
                                    const ag_config_t *cfg, const char *mpi_spec);

/* Thread tid (0..threads_per_rank-1 of this rank, distinct within an episode) waits until every thread
 * of every rank arrived. AG_SERIAL to exactly one thread of the whole job per episode, 0 to the others,
 * EINVAL for a NULL barrier or tid out of range (or between tid's arrive and depart), AG_EBROKEN once the
 * barrier is broken, EBUSY — at once, nothing broken — while another call through tid is inside (of two
 * at once exactly one is refused; as andgate.h's). */
AG_API int ag_mpi_barrier_wait(ag_mpi_barrier_t *b, unsigned tid);

/* With an absolute CLOCK_MONOTONIC deadline (NULL: none). The thread past its deadline gets ETIMEDOUT
 * and breaks the barrier: every thread of its node gets AG_EBROKEN, and a node leader that times out
 * while waiting on MPI breaks its node too; a rank that stops arriving (dead, hung) leaves every other
 * thread that waits with a deadline returning ETIMEDOUT or AG_EBROKEN (docs/mpi.md says how the break
 * spreads). A broken barrier stays broken: destroy it and create another. */
AG_API int ag_mpi_barrier_wait_until(ag_mpi_barrier_t *b, unsigned tid, const struct timespec *deadline);

/* Split phase, as ag_barrier_arrive/depart: arrive announces tid's arrival on its node (it never waits
 * for the inter-node phase); depart completes the episode (the inter-node phase runs in the depart of
 * the node's leader, or of its last arriver on a node of one rank) and returns 0 or AG_SERIAL. */
AG_API int ag_mpi_barrier_arrive(ag_mpi_barrier_t *b, unsigned tid, ag_token_t *tok);
AG_API int ag_mpi_barrier_depart(ag_mpi_barrier_t *b, unsigned tid, ag_token_t tok,
                                 const struct timespec *deadline);

/* Free the barrier. Collective over comm (it frees an MPI shared window and communicators). EBUSY (and
 * nothing freed, no collective entered) while a thread of this rank is inside a wait. */
AG_API int ag_mpi_barrier_destroy(ag_mpi_barrier_t *b);

/* "mpi:inter=dissemination grouping=shared:ranks=2 nodes=3 node_ranks=2 node_threads=5 job_threads=10
 * step=leader node=<the node barrier's describe>": grouping is $ANDGATE_MPI_NODE in canonical form
 * (shared:ranks=all, shared:ranks=K, rank); node_ranks and step are this rank's node's: step=none (one
 * node), leader (a node of several ranks: a fixed leader) or completion (a node of one rank: its last
 * arriver runs the inter-node phase; then "node=central wait=<policy>"). Owned by the barrier. */
AG_API const char *ag_mpi_barrier_describe(const ag_mpi_barrier_t *b);

/* Check an inter-node spec without MPI: 0 or EINVAL with a message saying what was expected. */
AG_API int ag_mpi_spec_check(const char *spec, char *msg, size_t msglen);

/* Check libandgate-mpi's environment without MPI: $ANDGATE_MPI, then $ANDGATE_MPI_NODE. 0, or EINVAL
 * with a one-line message naming the first bad variable, its value and what was expected, e.g.
 * "ANDGATE_MPI_NODE='shared:ranks=0': shared: bad value '0' for ranks; expected one of all or an integer
 * in 1..65536" (msg may be NULL when msglen is 0). What init would refuse in them is refused here; the
 * node barrier's ANDGATE_ALGO, ANDGATE_WAIT, ... are libandgate's (ag_config_check). */
AG_API int ag_mpi_env_check(char *msg, size_t msglen);

/* A message for any code returned by this library (never NULL). */
AG_API const char *ag_mpi_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif /* ANDGATE_MPI_H */
