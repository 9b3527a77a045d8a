/* ctree.h — a tree of arrival counters whose winners are decided at run time: the last participant to
 * arrive at a node climbs to its parent, the last at the root is the champion. Shared by `combining`
 * (fixed arity K, counters reset by each node's winner; 002 §II-B CMB, 003 §3 ct) and `dtour` (balanced
 * rounds, reset-free arrival counts; 002 §II-B DTOUR, 003 §3 dtn), which differ only in the shape of the
 * tree and in how a node's counter tells its winner.
 *
 * Release: one global flag (wake=global, 003's "gs"), or a release flag per node (wake=tree, 003's
 * "ls"): the champion, and every winner once released, stores the release flags of the nodes it won,
 * top down, so the release fans out down the tree the arrivals climbed.
 */
#ifndef AG_CTREE_H
#define AG_CTREE_H

#include "../../algo.h"

#define AG_CTREE_NONE UINT32_MAX

enum {
    AG_CTREE_RESET = 0, /* counter counts arrivals from 0; the winner (count - 1 seen) resets it */
    AG_CTREE_COUNT = 1, /* counter is never reset: e·count before episode e; winner makes it (e+1)·count */
};

struct ag_cnode {
    uint32_t parent; /* node index, AG_CTREE_NONE at the root */
    uint32_t count;  /* arrivals per episode (participants or child nodes), 1..64 */
};

struct ag_ctree {
    uint32_t mode, tree_wake;
    uint32_t global;      /* wake=global: the release flag */
    ag_frange_t ctr, rel; /* per node: arrival counter; release flag (tree_wake) */
    uint32_t nnodes, n;
    struct ag_cnode node[]; /* followed by uint32_t leaf[n]: each participant's first node */
};

/* Bytes of state for a tree of nnodes nodes and n participants. */
size_t ag_ctree_size(uint32_t nnodes, unsigned n);
/* The per-participant leaf table (fill it in setup). */
uint32_t *ag_ctree_leaf(struct ag_ctree *t);
/* Allocate the flags once node[] is filled; mode, tree_wake, nnodes and n must be set. */
void ag_ctree_flags(struct ag_ctree *t, struct ag_layout *L);
/* The algorithm's reset and wait, for an algorithm whose whole state block is the ag_ctree. */
void ag_ctree_reset(const struct ag_run *r);
int ag_ctree_wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline);
/* Split phase: arrival climbs as far as it wins and never waits (the champion releases everybody). */
void ag_ctree_arrive(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok);
int ag_ctree_depart(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline);

#endif
