/* dissem.h — the n-way dissemination exchange, shared by `dissemination` (over participants) and
 * `hybrid` (over group leaders).
 *
 * Source: 003_614c4f6f0a5e5869.txt §3 (dsmn: n-way dissemination), 002_22d269b377cdac79.txt §II-B (DIS),
 *         after Hensgen, Finkel and Manber's dissemination barrier.
 *
 * R = ceil(log_{W+1} N) rounds for N nodes and W ways. In round r node q signals nodes
 * q + j·(W+1)^r (mod N) for j = 1..W and waits for the W signals of nodes q - j·(W+1)^r. After round r
 * a node has heard, directly or transitively, from its (W+1)^(r+1) - 1 predecessors, so after R rounds
 * from all of them. A signal with j·(W+1)^r >= N adds nothing (the j-1 signal already completed the
 * coverage) and is skipped by sender and receiver alike.
 * Every (receiver, round, j) has its own flag holding the number of the next episode; a sender can be at
 * most one episode ahead of its receiver, so receivers wait for "e + 1 or later" (AG_GE) and no flag is
 * ever reset.
 * Layout: AG_PAD_LINE gives every flag its own cache line (002 §V-B1's padding); AG_PAD_RECORD keeps a
 * node's flags of all rounds together in one line-aligned record, the per-processor record
 * (`myflags[parity][round]`) of the published algorithm as Mellor-Crummey and Scott give it (TOCS 1991,
 * 002's ref. [13]) — early partners' stores then land on the line its owner is polling for an earlier
 * round.
 */
#ifndef AG_DISSEM_H
#define AG_DISSEM_H

#include "../../algo.h"

struct ag_dissem {
    uint32_t nodes, ways, rounds, record;
    ag_frange_t flags; /* LINE: element ((q * rounds) + r) * ways + (j - 1); RECORD: element q, slot r * ways + j - 1 */
};

void ag_dissem_setup(struct ag_dissem *d, unsigned nodes, unsigned ways, int layout, struct ag_layout *L);
void ag_dissem_reset(const struct ag_run *r, const struct ag_dissem *d);
/* Node q's part of episode e; 0 or the error a wait returned. lead: the nodes are group leaders whose
 * groups have all arrived (hybrid), who wait with flag_wait_lead. */
int ag_dissem_run(const struct ag_run *r, const struct ag_dissem *d, unsigned q, uint64_t e, uint64_t deadline,
                  int lead);

#endif
