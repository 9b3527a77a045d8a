/* wake.h — the notification (wake-up) phase shared by algorithms with a fixed champion.
 *
 * Source: 002_22d269b377cdac79.txt §V-C "Optimizing the Notification-Phase":
 *   global  the champion stores one global flag that every other participant polls; cost (3)
 *           T_global = ((P-1)·α + 1)·L + c·(P-1).
 *   tree    binary tree over positions: node q wakes 2q+1 and 2q+2, each on its own flag; cost (4)
 *           T_tree = ceil(log2(P+1))·(α+1)·L.
 *   numa    002's NUMA-aware tree, formula (5): participants are split into groups (the topology level
 *           that separates them: NUMA nodes, else cache groups); the first of each group is its master.
 *           Masters form a binary tree over groups (master of group g wakes the masters of groups 2g+1
 *           and 2g+2: with uniform groups of N_c that is node n waking 2n+N_c and 2n+2N_c), and inside
 *           each group a binary tree over the local index (local l wakes 2l+1 and 2l+2), so a master
 *           has up to four children, a slave up to two, and the tree depth stays that of the binary tree.
 * Positions are topology ranks (struct ag_setup.rank): the champion must be position 0 (order[0]).
 */
#ifndef AG_WAKE_H
#define AG_WAKE_H

#include "../../algo.h"

enum { AG_WAKE_GLOBAL = 0, AG_WAKE_TREE = 1, AG_WAKE_NUMA = 2 };

/* The words of an algorithm's "wake" key, in AG_WAKE_* order, so ag_word(value) is the AG_WAKE_* kind:
 * all three, or global|tree for algorithms without the NUMA-aware tree. */
extern const char *const ag_wake_words[];
extern const char *const ag_wake_words_tree[];

#define AG_WAKE_MAXCHILD 4

struct ag_wake {
    uint32_t kind;
    uint32_t global;     /* AG_WAKE_GLOBAL: the flag */
    ag_frange_t local;   /* tree, numa: one flag per participant (by tid) */
    uint32_t table;      /* byte offset, from the state block, of uint32_t[n][1 + AG_WAKE_MAXCHILD]:
                          * per tid, the number of children, then the children's tids */
};

/* Bytes the child table takes inside the algorithm's state block (0 for global). */
size_t ag_wake_table_bytes(unsigned n, uint32_t kind);

/* Allocate the flags and fill the table; state is the algorithm's state block, table_off the offset
 * where ag_wake_table_bytes() bytes were reserved for it (ag_layout_state may be called once, so size
 * the state block with ag_wake_table_bytes() before allocating it). For AG_WAKE_GLOBAL there is no
 * table and state/table_off are ignored. */
void ag_wake_setup(struct ag_wake *w, uint32_t kind, const struct ag_setup *s, struct ag_layout *L, void *state,
                   uint32_t table_off);

/* The children of each position for the numa tree, given group sizes in position order (groups are
 * contiguous ranges of positions). child[q*(1+MAXCHILD)] = count, then child positions. Exposed for
 * the unit test of formula (5). */
void ag_wake_numa_children(unsigned n, const unsigned *group_of_pos, uint32_t *child);

void ag_wake_reset(const struct ag_run *r, const struct ag_wake *w);

/* The champion (position 0) releases episode e. */
void ag_wake_release(const struct ag_run *r, const struct ag_wake *w, unsigned tid, uint64_t e);

/* Any other participant: wait to be released from episode e, then release its own children. */
int ag_wake_wait(const struct ag_run *r, const struct ag_wake *w, unsigned tid, uint64_t e, uint64_t deadline);

#endif
