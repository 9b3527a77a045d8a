/* preload.h — what the interposed functions of libandgate-preload.so share: the configuration from the
 * environment (read and checked once) and reporting on stderr. */
#ifndef AG_PRELOAD_H
#define AG_PRELOAD_H

#include <pthread.h>
#include <stdatomic.h>

struct ag_preload_env {
    int enabled; /* ANDGATE_PRELOAD (default 1); 0 also when any ANDGATE_* value is malformed */
    int gomp;    /* ANDGATE_GOMP (default 1): serve libgomp's barriers */
    int omp;     /* ANDGATE_OMP (default 1): serve libomp's barriers */
    int omp_loops; /* ANDGATE_OMP_LOOPS (default 1): schedule the runtimes' loops (kmp_loop.c, kmp_dispatch.c,
                    * gomp_loop.c) */
    int verbose; /* ANDGATE_VERBOSE (default 0) */
};

/* The environment, read once. A malformed ANDGATE_PRELOAD / _GOMP / _OMP / _OMP_LOOPS / _VERBOSE (not 0
 * or 1), or an ANDGATE_ALGO / ANDGATE_WAIT the library's spec parser rejects, is reported in one line on
 * stderr and leaves the shim idle: every call goes to glibc's, libgomp's or libomp's own function. */
const struct ag_preload_env *ag_preload_env(void);

/* ANDGATE_PRELOAD=0 (or a bad environment): every interposition is a plain forward. */
static inline int ag_preload_enabled(void)
{
    return ag_preload_env()->enabled;
}

/* ANDGATE_VERBOSE=1: one line on stderr per barrier created. */
void ag_preload_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed, once per process: a configuration the shim could not honour. */
void ag_preload_warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* pthread_once for the interposed entry points, without its call once done: one acquire load of `done`,
 * which a caller sets after pthread_once has run fn, so a thread that reads done = 1 also sees fn's
 * writes. Entry points called for every task or chunk pay that load only (GOMP_task, entered for every
 * task a program creates, reads `done` from its assembly: gomp.c). */
struct ag_once {
    _Atomic int done;
    pthread_once_t once;
};
#define AG_ONCE_INIT { 0, PTHREAD_ONCE_INIT }

static inline int ag_once_done(struct ag_once *o)
{
    return atomic_load_explicit(&o->done, memory_order_acquire);
}

static inline void ag_once(struct ag_once *o, void (*fn)(void))
{
    if (__builtin_expect(!ag_once_done(o), 0)) {
        pthread_once(&o->once, fn);
        atomic_store_explicit(&o->done, 1, memory_order_release);
    }
}

/* Thread-local state of the shim: initial-exec, one %fs-relative load per access instead of a call to
 * __tls_get_addr (the default model for -fPIC code). Valid because the shim is loaded at process start
 * (LD_PRELOAD), when its TLS joins the static block; a dlopen() of it may fail for lack of static TLS. */
#define AG_TLS _Thread_local __attribute__((tls_model("initial-exec")))

#endif
