/* flag_wait.h — the slow paths of the native primitive layer (flag_wait.c), called from the inline fast
 * paths in flags.h: waiting with the barrier's wait policy, futex wake-up, breaking a barrier. */
#ifndef AG_FLAG_WAIT_H
#define AG_FLAG_WAIT_H

#include <stddef.h>
#include <stdint.h>

struct ag_flags;

/* Whether the kernel offers membarrier() for asymmetric fences (queried once; the process registers when
 * the library is loaded single-threaded, else at its first sleep: flag_wait.c). */
int ag_membarrier_ready(void);
/* ANDGATE_MEMBARRIER is unset, empty, 0 or 1: 0; else EINVAL and the message (ag_env_check) */
int ag_membarrier_env_check(char *msg, size_t msglen);
/* Wait until flag i satisfies cond against v, with f's wait policy: 0, ETIMEDOUT or AG_EBROKEN. */
int  ag_flag_wait_slow(const struct ag_flags *f, uint32_t i, int cond, uint64_t v, uint64_t deadline);
/* The same for a group leader: a paused spin for the policy's lead_ns first (wait.h). */
int  ag_flag_wait_lead_slow(const struct ag_flags *f, uint32_t i, int cond, uint64_t v, uint64_t deadline);
/* How many of the calling thread's futex wake-ups (ag_flag_wake) found a sleeper: counted per thread,
 * wrapping; compare two readings for equality (barrier.c, hand_on). */
unsigned ag_flag_wakes_issued(void);
/* Wake every futex sleeper on flag i. */
void ag_flag_wake(const struct ag_flags *f, uint32_t i);
/* Break the barrier: set the broken flag and wake every waiter, spinning or asleep. */
void ag_flags_break(const struct ag_flags *f);

#endif
