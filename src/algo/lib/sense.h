/* sense.h — the sense-reversing counter arrival that central and gate share (002 §II-B SENSE).
 * One counter and one sense flag, each on its own line; episode e's sense is e & 1. */
#ifndef AG_ALGO_LIB_SENSE_H
#define AG_ALGO_LIB_SENSE_H

#include "../../algo.h"

/* Arrive at episode e: 1 for the arrival that completed it (and released everybody), 0 otherwise. */
static inline int ag_sense_arrive(const struct ag_run *r, uint32_t count, uint32_t sense, uint64_t e)
{
    if (flag_fetch_add(&r->fl, count, 1) != r->n - 1)
        return 0;
    /* Everyone has arrived, and nobody can arrive for episode e + 1 before the sense flips: resetting
     * the counter first is race-free. */
    flag_store(&r->fl, count, 0);
    flag_store(&r->fl, sense, (e + 1) & 1);
    return 1;
}

#endif
