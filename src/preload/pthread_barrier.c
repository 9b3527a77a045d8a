/* pthread_barrier.c — pthread_barrier_init / _wait / _destroy served by andgate, for unmodified
 * programs under LD_PRELOAD=libandgate-preload.so (the software side of Subutai's legacy
 * compatibility, 004_bffc6c40a88a61a2.txt §III: same API, new implementation).
 *
 * POSIX lets any `count` threads meet in an episode, with no registration, while andgate wants a
 * participant index, used by one thread at a time. Each index has a state word: 2K means "free for
 * episode K", 2K+1 "taken, in episode K"; a thread takes a free index with one compare-and-swap (even
 * to odd) and frees it for the next episode (odd to the next even) once andgate's wait has returned.
 * All free indices are free for the same episode: index j can be free for K+1 only after its holder
 * left episode K, which needed every index taken for K. So any free index is a right one, and a thread
 * never shares an index with another. A thread remembers (thread-local) the index it had last time on
 * this barrier: in a stable set of threads that index is free again when it comes back, and its CAS on
 * a line nobody else touches is the fast path; only a thread whose index went to another scans.
 *
 * The andgate object lives outside the 32-byte pthread_barrier_t, which holds a pointer to it and a
 * magic word. Anything the shim cannot honour goes to glibc's own functions (dlsym(RTLD_NEXT)):
 * PTHREAD_PROCESS_SHARED attributes (the state would have to live in shared memory the caller did not
 * give us), a configuration ANDGATE_ALGO / ANDGATE_WAIT rejects (reported once on stderr), or memory
 * exhaustion. Nothing is silently changed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "andgate.h"
#include "preload.h"
#include "topo.h"

#define SHIM_MAGIC UINT64_C(0x4147505245424152) /* "AGPREBAR" */
#define SHIM_DEAD UINT64_C(0x4147444541444241)  /* "AGDEADBA": destroyed by the shim */

struct claim {
    _Alignas(64) _Atomic uint64_t state; /* 2K: free for episode K; 2K+1: taken in episode K */
};

struct shim {
    ag_barrier_t *ag;
    unsigned count;
    uint64_t id; /* unique per init: thread caches of a destroyed barrier go stale */
    struct claim claimed[];
};

/* What pthread_barrier_t holds when the shim serves it; glibc's own state (forwarded barriers) uses
 * the first 20 bytes and never the last 8, where the magic lives (cleared when forwarding). */
struct handle {
    struct shim *s;
    uint64_t unused[2];
    uint64_t magic;
};
_Static_assert(sizeof(struct handle) <= sizeof(pthread_barrier_t), "pthread_barrier_t too small");

static _Atomic uint64_t next_id = 1;

/* glibc's functions */
static int (*real_init)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
static int (*real_wait)(pthread_barrier_t *);
static int (*real_destroy)(pthread_barrier_t *);
static struct ag_once real_once = AG_ONCE_INIT;

static void find_real(void)
{
    real_init = (int (*)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned))dlsym(
        RTLD_NEXT, "pthread_barrier_init");
    real_wait = (int (*)(pthread_barrier_t *))dlsym(RTLD_NEXT, "pthread_barrier_wait");
    real_destroy = (int (*)(pthread_barrier_t *))dlsym(RTLD_NEXT, "pthread_barrier_destroy");
}

static struct handle *handle_of(pthread_barrier_t *b)
{
    return (struct handle *)(void *)b;
}

static struct shim *served(pthread_barrier_t *b)
{
    struct handle *h = handle_of(b);
    return h->magic == SHIM_MAGIC ? h->s : NULL;
}

/* A barrier the shim served and destroyed: waiting on it or destroying it again is undefined in POSIX;
 * glibc's functions would read the shim's handle as their own state (a zero count: SIGFPE), so the
 * handle keeps a mark that makes both return EINVAL until the barrier is initialised again. */
static int destroyed(pthread_barrier_t *b)
{
    return handle_of(b)->magic == SHIM_DEAD;
}

static int forward_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count)
{
    handle_of(b)->magic = 0;
    return real_init(b, attr, count);
}

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count)
{
    ag_once(&real_once, find_real);
    if (!real_init)
        return ENOSYS;
    if (count == 0)
        return EINVAL;
    int pshared = PTHREAD_PROCESS_PRIVATE;
    if (attr && pthread_barrierattr_getpshared(attr, &pshared) == 0 && pshared == PTHREAD_PROCESS_SHARED)
        return forward_init(b, attr, count);
    if (!ag_preload_enabled())
        return forward_init(b, attr, count);
    struct shim *s = calloc(1, sizeof *s + (size_t)count * sizeof s->claimed[0]);
    if (!s)
        return forward_init(b, attr, count);
    s->count = count;
    s->id = atomic_fetch_add(&next_id, 1);
    ag_config_t cfg = { .nthreads = count }; /* algo, wait: ANDGATE_ALGO / ANDGATE_WAIT or auto */
    int rc = ag_barrier_init(&s->ag, &cfg);
    if (rc) {
        char msg[256];
        ag_config_check(&cfg, msg, sizeof msg);
        ag_preload_warn_once("andgate-preload: %s; pthread barriers stay glibc's\n", msg);
        free(s);
        return forward_init(b, attr, count);
    }
    if (ag_preload_env()->verbose) /* the arguments cost a budget's reads: only when it prints */
        ag_preload_verbose("andgate-preload: pthread_barrier %p, count %u: %s (CPUs %u, usable CPUs %u, "
                           "topology %s)\n", (void *)b, count, ag_barrier_describe(s->ag), ag_process_cpu_count(),
                           ag_usable_cpus(), ag_topo_get()->source);
    struct handle *h = handle_of(b);
    h->s = s;
    h->magic = SHIM_MAGIC;
    return 0;
}

/* The thread's last index per barrier: a few entries, most recently used first. */
#define CACHE 8
struct cached {
    uint64_t id;
    unsigned idx;
};
static AG_TLS struct cached cache[CACHE];

static int try_take(struct shim *s, unsigned i)
{
    uint64_t v = atomic_load_explicit(&s->claimed[i].state, memory_order_relaxed);
    return !(v & 1) && atomic_compare_exchange_strong_explicit(&s->claimed[i].state, &v, v + 1,
                                                               memory_order_acq_rel, memory_order_relaxed);
}

static unsigned take_index(struct shim *s)
{
    struct cached *c = NULL;
    for (unsigned k = 0; k < CACHE; k++)
        if (cache[k].id == s->id) {
            c = &cache[k];
            break;
        }
    if (c && try_take(s, c->idx))
        return c->idx; /* fast path: my index from last time is free again */
    for (;;) {
        for (unsigned i = 0; i < s->count; i++)
            if (try_take(s, i)) {
                if (!c) { /* remember it: evict the oldest entry */
                    memmove(&cache[1], &cache[0], (CACHE - 1) * sizeof cache[0]);
                    c = &cache[0];
                    c->id = s->id;
                }
                c->idx = i;
                return i;
            }
        sched_yield(); /* all taken: more than count threads; wait for a departure */
    }
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
    ag_once(&real_once, find_real);
    struct shim *s = served(b);
    if (!s)
        return destroyed(b) ? EINVAL : real_wait ? real_wait(b) : ENOSYS;
    unsigned idx = take_index(s);
    int rc = ag_barrier_wait(s->ag, idx);
    /* free the index for the next episode: the last touch of the barrier by this thread */
    atomic_fetch_add_explicit(&s->claimed[idx].state, 1, memory_order_release);
    return rc == AG_SERIAL ? PTHREAD_BARRIER_SERIAL_THREAD : rc;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
    ag_once(&real_once, find_real);
    struct shim *s = served(b);
    if (!s)
        return destroyed(b) ? EINVAL : real_destroy ? real_destroy(b) : ENOSYS;
    /* glibc lets the serial thread destroy the barrier as soon as it returns, while the others may
     * still be leaving; they have all been released, so this waits only for them to step out (every
     * index free again) */
    for (unsigned i = 0; i < s->count; i++)
        while (atomic_load_explicit(&s->claimed[i].state, memory_order_acquire) & 1)
            sched_yield();
    int rc;
    while ((rc = ag_barrier_destroy(s->ag)) == EBUSY)
        sched_yield();
    struct handle *h = handle_of(b);
    h->s = NULL;
    h->magic = SHIM_DEAD;
    free(s);
    return rc;
}
