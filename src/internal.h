/* internal.h — the barrier object, shared by barrier.c and white-box tests. Not installed. */
#ifndef AG_INTERNAL_H
#define AG_INTERNAL_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

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
    unsigned line;
    void *state;                  /* process-local, also for process-shared barriers */
    int owns_memory;              /* 0: attached to a process-shared segment */
    _Atomic uint64_t stalled_at;  /* hybrid's stall rule: this process's last stalled yield (flag_wait.c) */
    char desc[256];
    /* an adaptive algorithm's description once it has decided: desc and " chose=<spec>", written by the
     * first ag_barrier_describe to see the decision (0 none, 1 being written, 2 written) */
    _Atomic int chosen_state;
    char desc_chosen[512];
    char tsan_sync[2];            /* ThreadSanitizer sync objects, by episode parity (barrier.c) */
    struct ag_lane lanes[];       /* per participant (algo.h) */
};

/* A zeroed handle with lanes for n participants; NULL on ENOMEM. Free it with free(). */
ag_barrier_t *ag_handle_alloc(unsigned n);

struct ag_shape;
struct ag_spec;

/* The ANDGATE_* variables a barrier's configuration reads besides the spec strings (ANDGATE_TOPOLOGY,
 * ANDGATE_MEMBARRIER): 0, or EINVAL with a message naming the variable. ag_resolve checks them; the
 * shim asks before it makes any barrier. */
int ag_env_check(char *msg, size_t msglen);
/* Every ANDGATE_* variable a barrier reads: ag_env_check's, then ANDGATE_ALGO and ANDGATE_WAIT, each
 * checked alone. 0, or the first one's code with a message that names it (the shim and the CLI say it
 * before they make any barrier). */
int ag_env_verify(char *msg, size_t msglen);

/* Check and resolve a configuration: algorithm spec (auto resolved), wait policy, participant shape
 * (free it with ag_shape_free on success). 0, or EINVAL/ENOMEM with a message. */
int ag_resolve(const ag_config_t *cfg, struct ag_spec *algo, struct ag_waitpol *wp, struct ag_shape *sh,
               char *msg, size_t msglen);

/* Lay a barrier out: algorithm (index into ag_algos), parameters, wait policy, participant shape; fills
 * the handle's algorithm fields and the layout L (arena size, a malloc'd state block). */
int ag_plan(ag_barrier_t *b, unsigned n, unsigned algo, const long *params, const struct ag_waitpol *wp,
            const struct ag_shape *sh, struct ag_layout *L);
/* Point a planned handle at its arena and sleeper counts (private or in a shared segment). */
void ag_place(ag_barrier_t *b, unsigned n, _Atomic uint64_t *slots, _Atomic uint32_t *sleepers,
              const struct ag_layout *L, uint64_t epoch0, int pshared);
/* Every flag to its initial state (nobody inside). */
void ag_reset_state(ag_barrier_t *b);
/* How many participants are inside a wait now (their inside markers; tests wait on it instead of sleeping). */
unsigned ag_inside_count(const ag_barrier_t *b);

/* ag_barrier_init with every participant's episode counter starting at epoch0 instead of 0, so tests
 * can cross the 2^32 (futex word) and 2^64 wrap-arounds in a few episodes. */
int ag_barrier_init_at(ag_barrier_t **out, const ag_config_t *cfg, uint64_t epoch0);

/* A CLOCK_MONOTONIC deadline as ns (NULL: AG_NO_DEADLINE; far ones clamp below it); EINVAL for a
 * malformed one. Served to libandgate-mpi too. */
static inline int ag_deadline_ns(const struct timespec *ts, uint64_t *ns)
{
    if (!ts) {
        *ns = AG_NO_DEADLINE;
        return 0;
    }
    if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
        return EINVAL;
    if ((uint64_t)ts->tv_sec >= (AG_NO_DEADLINE - 1000000000u) / 1000000000u) {
        *ns = AG_NO_DEADLINE - 1;
        return 0;
    }
    *ns = (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
    return 0;
}

#endif
