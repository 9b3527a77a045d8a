/* scope.c — which runtime a call into the shim's entry points belongs to (scope.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "preload.h"
#include "scope.h"

_Atomic int ag_scope_mode[2] = { AG_SCOPE_UNKNOWN, AG_SCOPE_UNKNOWN };

/* per side: the entry point that names its runtime, and the adopted runtime (local mode) */
static const char *const marker[2] = { "GOMP_parallel", "__kmpc_fork_call" };
static struct served {
    void *handle; /* dlopen(RTLD_NOLOAD) of the adopted runtime, never closed */
    void *base;   /* its load address (dladdr's dli_fbase), which names it */
} served[2];

/* Call sites seen in the local mode: (return address, entry point) -> the caller's definition, NULL when
 * it is the served runtime's. Published with release stores, never changed or freed: readers take no
 * lock. */
struct site {
    const void *ra;
    const char *name;
    void *fn;
    struct site *next;
};
#define SITE_BUCKETS 256
static _Atomic(struct site *) sites[SITE_BUCKETS];
/* served[] and inserting sites. No dl* call is made under it: a module's constructor, run by dlopen under
 * the dynamic linker's lock, may call an entry point, and a thread here would then wait for that lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned bucket(const void *ra)
{
    return (unsigned)(((uintptr_t)ra >> 2) * 2654435761u >> 24) % SITE_BUCKETS;
}

static void *dlsym_quiet(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    if (!p)
        (void)dlerror(); /* a failed lookup allocates its message: free it */
    return p;
}

static int mode(enum ag_side side)
{
    int m = atomic_load_explicit(&ag_scope_mode[side], memory_order_acquire);
    if (m == AG_SCOPE_UNKNOWN) { /* threads racing here find the same answer */
        m = dlsym_quiet(RTLD_NEXT, marker[side]) ? AG_SCOPE_GLOBAL : AG_SCOPE_LOCAL;
        atomic_store_explicit(&ag_scope_mode[side], m, memory_order_release);
    }
    return m;
}

/* A handle of the loaded object that holds addr (dlopen without loading; close it), NULL: none; *di
 * says which object it is */
static void *object_at(const void *addr, Dl_info *di)
{
    return addr && dladdr(addr, di) && di->dli_fbase ? dlopen(di->dli_fname, RTLD_NOLOAD | RTLD_LAZY) : NULL;
}

/* The runtime at addr becomes the side's, unless it has one: its base afterwards */
static void *adopt(enum ag_side side, const void *addr)
{
    Dl_info di;
    void *h = object_at(addr, &di);
    pthread_mutex_lock(&lock);
    int now = h && !served[side].base;
    if (now)
        served[side].handle = h, served[side].base = di.dli_fbase;
    void *base = served[side].base;
    pthread_mutex_unlock(&lock);
    if (now)
        ag_preload_verbose("andgate-preload: %s: the runtime %s, outside the global scope, is served\n",
                           side == AG_SIDE_GOMP ? "GOMP_*" : "__kmpc_*", di.dli_fname);
    else if (h)
        dlclose(h); /* the served one holds its own */
    return base;
}

static int in_shim(const void *addr)
{
    Dl_info a, self;
    return dladdr(addr, &a) && dladdr((void *)in_shim, &self) && a.dli_fbase == self.dli_fbase;
}

/* The definition of `name` the caller at ra binds to without the shim: the global scope's first (after
 * the shim), else its own scope's (the caller's handle stays open: scope.h). Never the shim's own.
 * *object: the caller's file, NULL when ra is in no loaded object. */
static void *callers(const void *ra, const char *name, const char **object)
{
    void *d = dlsym_quiet(RTLD_NEXT, name);
    Dl_info ci;
    *object = dladdr(ra, &ci) ? ci.dli_fname : NULL;
    if (!d && *object) {
        void *h = dlopen(ci.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
        d = h ? dlsym_quiet(h, name) : NULL;
    }
    return d && in_shim(d) ? NULL : d;
}

static void *served_base(enum ag_side side)
{
    pthread_mutex_lock(&lock);
    void *base = served[side].base;
    pthread_mutex_unlock(&lock);
    return base;
}

/* ra is where the call returns to, which for a tail call is the caller's caller: an outlined region
 * function that ends in a call to GOMP_barrier returns to whatever ran it — its runtime (whose own scope
 * names the runtime), or a trampoline of the shim's (gomp.c), which runs only the served runtime's
 * regions. A function that tail-calls an entry point and is called from an object with another runtime
 * is taken for that object's. A return address in no loaded object — code a JIT made, or the return
 * trampoline a uretprobe puts in place of every return address of a probed function (perf probe
 * '%return', bpftrace's uretprobe) — names no scope: the call is taken for the served runtime's, as it
 * is in the usual process with one runtime (until 2026-12-01 the shim aborted as if no runtime defined
 * it). */
static void *look_up(enum ag_side side, const void *ra, const char *name)
{
    if (in_shim(ra))
        return NULL;
    const char *object;
    void *d = callers(ra, name, &object);
    Dl_info di;
    if (!d && !object) {
        if (!served_base(side)) {
            fprintf(stderr, "andgate-preload: %s called from %p, outside every loaded object, before any OpenMP "
                            "runtime was seen: its runtime is unknown\n", name, ra);
            abort();
        }
        ag_preload_verbose("andgate-preload: %s called from %p, outside every loaded object (JIT code, a "
                           "uretprobe): taken for the served runtime's\n", name, ra);
        return NULL;
    }
    if (!d || !dladdr(d, &di)) {
        /* without the shim the dynamic linker would have stopped here: "undefined symbol" */
        fprintf(stderr, "andgate-preload: %s called from %s, which has no OpenMP runtime defining it\n", name,
                object ? object : "?");
        abort();
    }
    void *base = side == AG_SIDE_GOMP ? adopt(side, d) : served_base(side);
    return di.dli_fbase == base ? NULL : d;
}

void *ag_scope_foreign(enum ag_side side, const void *ra, const char *name)
{
    if (mode(side) == AG_SCOPE_GLOBAL)
        return NULL;
    unsigned b = bucket(ra);
    for (struct site *s = atomic_load_explicit(&sites[b], memory_order_acquire); s; s = s->next)
        if (s->ra == ra && s->name == name)
            return s->fn;
    void *fn = look_up(side, ra, name);
    struct site *s = malloc(sizeof *s);
    if (s) { /* out of memory: the next call looks it up again */
        pthread_mutex_lock(&lock);
        *s = (struct site){ ra, name, fn, atomic_load_explicit(&sites[b], memory_order_relaxed) };
        atomic_store_explicit(&sites[b], s, memory_order_release);
        pthread_mutex_unlock(&lock);
    }
    return fn;
}

int ag_scope_adopt_kmp(const void *addr)
{
    Dl_info di;
    if (mode(AG_SIDE_KMP) == AG_SCOPE_GLOBAL)
        return 1;
    return dladdr(addr, &di) && di.dli_fbase && adopt(AG_SIDE_KMP, addr) == di.dli_fbase;
}

void *ag_scope_runtime_sym(enum ag_side side, const char *name)
{
    if (mode(side) != AG_SCOPE_GLOBAL)
        return ag_scope_sym(side, name);
    Dl_info di;
    void *h = object_at(dlsym_quiet(RTLD_NEXT, marker[side]), &di);
    if (!h)
        return NULL;
    void *d = dlsym_quiet(h, name);
    dlclose(h); /* the runtime stays loaded: the global scope holds it */
    return d;
}

void *ag_scope_sym(enum ag_side side, const char *name)
{
    if (mode(side) == AG_SCOPE_GLOBAL)
        return dlsym_quiet(RTLD_NEXT, name);
    pthread_mutex_lock(&lock);
    void *h = served[side].handle;
    pthread_mutex_unlock(&lock);
    return h ? dlsym_quiet(h, name) : NULL;
}
