/* andgate.h — the one public header of libandgate.
 *
 * "Fundamentally, a barrier primitive is an AND gate" (Hetland et al., HPDC 2019).
 * libandgate offers every barrier algorithm of the andgate source papers behind one small API:
 *
 *     ag_barrier_t *b;
 *     ag_config_t cfg = { .nthreads = 8, .algo = "stour:fanin=4", .wait = "auto" };
 *     int err = ag_barrier_init(&b, &cfg);          // 0 or an errno-style code
 *     ...  in participant tid (0..7):  ag_barrier_wait(b, tid);   // 0 or AG_SERIAL
 *     ag_barrier_destroy(b);
 *
 * Conventions (libuv style): every function returns 0 or a positive errno value (EINVAL, ENOMEM, EBUSY,
 * ENOTSUP, ...); the library never aborts and never prints; there is no global state apart from the
 * read-only algorithm table and a lazily read topology. Strings returned by the library are owned by it.
 */
#ifndef ANDGATE_H
#define ANDGATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ANDGATE_VERSION_MAJOR 0
#define ANDGATE_VERSION_MINOR 1
#define ANDGATE_VERSION_PATCH 0
#define ANDGATE_VERSION_STRING "0.1.0"

#if defined(__GNUC__)
#define AG_API __attribute__((visibility("default")))
#else
#define AG_API
#endif

typedef struct ag_barrier ag_barrier_t;

/* ag_config_t.flags */
#define AG_PSHARED 0x1u /* process-shared: made with ag_barrier_init_shm, not ag_barrier_init */

typedef struct ag_config {
    unsigned    nthreads; /* participants, >= 1 */
    const char *algo;     /* algorithm spec string; NULL: $ANDGATE_ALGO or "auto"; "auto": library choice */
    const char *wait;     /* wait-policy spec string; NULL: $ANDGATE_WAIT or "auto" */
    const int  *cpus;     /* optional: cpus[i] = the CPU participant i runs on (shapes trees/groups) */
    unsigned    flags;    /* AG_PSHARED, ... */
} ag_config_t;

/* Returned by exactly one participant per episode, like PTHREAD_BARRIER_SERIAL_THREAD. */
#define AG_SERIAL (-1)

/* The barrier is broken (cancelled or timed out; ag_barrier_reset repairs it). Outside the errno range. */
#define AG_EBROKEN 0x4142 /* 'AB' */

/* Create a barrier. On success *out owns it and 0 is returned; on failure *out is untouched.
 * EINVAL: nthreads == 0, NULL out/cfg, bad spec string, bad cpus[] entry, unknown flags, AG_PSHARED
 * (process-shared barriers are made with ag_barrier_init_shm). ENOMEM: allocation failed. */
AG_API int ag_barrier_init(ag_barrier_t **out, const ag_config_t *cfg);

/* Participant tid (0..nthreads-1, distinct within an episode) waits until all nthreads arrived.
 * Returns AG_SERIAL in exactly one participant per episode, 0 in the others, EINVAL for a NULL
 * barrier or tid >= nthreads. Writes made before arriving are visible to every participant after.
 * A tid may pass to another thread between episodes once its holder has returned; EBUSY (call again)
 * while that holder is still on its way out. */
AG_API int ag_barrier_wait(ag_barrier_t *b, unsigned tid);

/* Free the barrier. EBUSY (and nothing freed) while a participant is inside ag_barrier_wait (or between
 * arrive and depart); for a handle from ag_barrier_attach_shm, while a participant of this process is. */
AG_API int ag_barrier_destroy(ag_barrier_t *b);

/* ---- robustness: timeouts, cancellation, reset ---- */

/* ag_barrier_wait with an absolute CLOCK_MONOTONIC deadline (NULL: none). Past the deadline the caller
 * gets ETIMEDOUT and the barrier is broken: every participant waiting now or arriving later gets
 * AG_EBROKEN (sleepers are woken), until ag_barrier_reset. EINVAL for a malformed timespec. */
AG_API int ag_barrier_wait_until(ag_barrier_t *b, unsigned tid, const struct timespec *abs_deadline);

/* Break the barrier from any thread, participant or not: waiters return AG_EBROKEN promptly. */
AG_API int ag_barrier_cancel(ag_barrier_t *b);

/* Make a broken (or any idle) barrier usable again, as freshly initialized. EBUSY while a participant
 * is still inside a wait: let every participant return first, and let none enter until reset returns.
 * Process-shared barriers recover like robust mutexes: a participant whose process has died inside a
 * wait, or between arrive and depart, is not inside (its slot is freed; a dead process is one that no
 * longer exists or is a zombie, told apart from a later process with the same pid by its start time).
 * So once the survivors have returned (ETIMEDOUT/AG_EBROKEN), reset succeeds and a new process may
 * take the dead one's tid. A participant whose state cannot be read (another pid namespace, /proc
 * hidden or absent) counts as inside. */
AG_API int ag_barrier_reset(ag_barrier_t *b);

/* ---- split phase ---- */

/* What ag_barrier_arrive hands to ag_barrier_depart; opaque. */
typedef uint64_t ag_token_t;

/* Announce tid's arrival and return at once (0), so the caller can work while the others arrive;
 * then ag_barrier_depart waits until the episode is complete and returns 0 or AG_SERIAL (exactly one
 * participant per episode) or an error. Between the two calls the participant counts as inside
 * (destroy and reset say EBUSY). Writes made before arrive are visible to everybody after depart.
 * EINVAL: arrive twice, depart without arrive, a plain wait between the two. AG_EBROKEN: broken.
 * Algorithms whose arrival never waits (central, counting, ticket, combining, dtour) do their whole
 * arrival in arrive; the others do it in depart (`andgate list` says which). */
AG_API int ag_barrier_arrive(ag_barrier_t *b, unsigned tid, ag_token_t *token);
AG_API int ag_barrier_depart(ag_barrier_t *b, unsigned tid, ag_token_t token, const struct timespec *abs_deadline);

/* ---- process-shared barriers ---- */

/* Bytes of shared memory a barrier for cfg needs (0 for an invalid cfg; cfg->flags may hold
 * AG_PSHARED). Everything lives in that memory, with offsets instead of pointers and shared futexes,
 * so processes may map it at different addresses. */
AG_API size_t ag_barrier_shm_size(const ag_config_t *cfg);

/* Lay a barrier out in mem (len bytes, 64-byte aligned, shared between the processes: a MAP_SHARED
 * mapping of a file or of shm_open). Call once, before any process attaches. EINVAL: bad cfg, len too
 * small, misaligned mem. */
AG_API int ag_barrier_init_shm(void *mem, size_t len, const ag_config_t *cfg);

/* A handle on a barrier in shared memory, for this process (each process attaches, the initializing
 * one too). The segment is checked first: a wrong magic, version or size, a bad checksum, or a layout
 * that does not follow from its configuration is refused with EINVAL, and nothing outside [mem,
 * mem + len) is ever read or written. ag_barrier_destroy on such a handle detaches this process only:
 * EBUSY while one of this process's participants is inside (its threads run on the handle; where /proc
 * cannot identify processes, while any participant is), 0 while only other processes' participants are.
 * A participant process that dies leaves the others able to time out (ag_barrier_wait_until) and see
 * AG_EBROKEN; ag_barrier_reset then repairs the barrier for a replacement process. */
AG_API int ag_barrier_attach_shm(ag_barrier_t **out, void *mem, size_t len);

/* Why ag_barrier_attach_shm would refuse [mem, mem + len), without attaching: 0, or EINVAL (ENOMEM) and a
 * one-line message in msg (NUL-terminated, truncated to msglen; msg may be NULL when msglen is 0): not an
 * andgate segment, a layout version of another libandgate, a mapping shorter than the segment, a
 * checksum mismatch (corrupt, or not yet laid out), a layout its configuration does not give. With cfg
 * (may be NULL) also EINVAL when the segment holds another barrier than cfg describes: another
 * nthreads, or, where cfg->algo is a spec rather than NULL or "auto", another algorithm or parameter,
 * e.g. "the segment holds a barrier of 3 participants; expected 4". */
AG_API int ag_barrier_shm_check(const void *mem, size_t len, const ag_config_t *cfg, char *msg, size_t msglen);

/* Nonzero when the barrier is broken. */
AG_API int ag_barrier_is_broken(const ag_barrier_t *b);

/* The resolved configuration, e.g.
 * "dissemination:ways=1,pad=line,line=64 wait=hybrid:spin_ns=20000,yield_ns=0". */
AG_API const char *ag_barrier_describe(const ag_barrier_t *b);

/* A message for any code returned by this library (never NULL). */
AG_API const char *ag_strerror(int err);

/* Validate a configuration without creating a barrier. Returns what ag_barrier_init would return for
 * a bad configuration (EINVAL, ENOTSUP) or 0 — with AG_PSHARED in cfg->flags, what ag_barrier_init_shm
 * would (ag_barrier_init refuses the flag itself) — and writes a message saying what was wrong and what
 * was expected into msg (NUL-terminated, truncated to msglen; msg may be NULL when msglen is 0). */
AG_API int ag_config_check(const ag_config_t *cfg, char *msg, size_t msglen);

/* The number of CPUs this process may use: the CPUs it may run on — the union of the affinity mask it
 * was loaded with and its threads' masks now (a program or OpenMP runtime that pins each thread to one
 * CPU is not confined to one), within its cgroup cpuset — capped by the cgroup CPU quota (v2 cpu.max
 * or v1 cfs quota, the smallest up the cgroup tree). Worked out at each call, from the cgroup's files as
 * read at most 100 ms before. wait=auto compares nthreads with the CPUs before the quota (a quota takes
 * time, not CPUs: docs/guide.md). */
AG_API unsigned ag_usable_cpus(void);

#ifdef __cplusplus
}
#endif
#endif /* ANDGATE_H */
