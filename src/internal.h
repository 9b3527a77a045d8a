/* internal.h — the barrier object, shared by barrier.c and white-box tests. Not installed. */
#ifndef AG_INTERNAL_H
#define AG_INTERNAL_H

#include <stdint.h>

#include "algo.h"
#include "andgate.h"
#include "spec.h"
#include "wait.h"

struct ag_barrier {
    const struct ag_algo *algo;
    struct ag_run run;
    struct ag_waitpol wp;
    long params[AG_MAXKEYS];
    ag_frange_t self;             /* per participant: episode number, inside marker */
    _Atomic uint64_t *slots;      /* the flag arena */
    _Atomic uint32_t *sleepers;   /* futex sleepers per flag, when the policy may block */
    uint32_t nslots;
    void *state;
    char desc[256];
    char tsan_sync[2];            /* ThreadSanitizer sync objects, by episode parity (barrier.c) */
};

/* ag_barrier_init with every participant's episode counter starting at epoch0 instead of 0, so tests
 * can cross the 2^32 (futex word) and 2^64 wrap-arounds in a few episodes. */
int ag_barrier_init_at(ag_barrier_t **out, const ag_config_t *cfg, uint64_t epoch0);

#endif
