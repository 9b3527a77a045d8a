/* scope.h — which runtime a call into the shim's GOMP_* and __kmpc_* entry points belongs to.
 *
 * Preloaded, the shim's definitions come first in the global scope, so every object's calls to those
 * entry points reach the shim, also the calls of an object whose runtime is not in the global scope:
 * a module opened with dlopen(RTLD_LOCAL) — every Python extension — that brings its own libgomp or
 * libomp (Python wheels carry a renamed copy: scikit-learn's libgomp-<hash>.so). Without the shim such
 * a call binds to the first definition in the global scope, else to one in the caller's own scope
 * (its dependencies). Each call must go on to that runtime: the shim's lookups with dlsym(RTLD_NEXT)
 * find nothing there (a call forwarded to that NULL crashed Python running scikit-learn), and a region
 * started on another runtime's threads would read omp_get_thread_num() from the caller's runtime as 0
 * in every thread.
 *
 * Per side (the GOMP_* entry points; the __kmpc_* ones), at the first call:
 *   global  the global scope defines the side's runtime (GOMP_parallel, __kmpc_fork_call): every caller
 *           binds there, the shim serves it as it always did, and a call costs one predictable branch;
 *   local   it does not: each call site is looked up once (its caller's definition: the global scope
 *           first, as the dynamic linker does, then the caller's own scope) and kept. The side serves
 *           one runtime, adopted: the GOMP side's from the first call, the __kmpc side's from the libomp
 *           that asked for the shim's OMPT tool. Calls of any other runtime go straight on to it.
 * A module whose call sites were looked up is kept loaded (its handle is never closed), so a kept site
 * never names unmapped code. Objects opened with RTLD_DEEPBIND or in another dlmopen namespace bind
 * otherwise and are not told apart. */
#ifndef AG_PRELOAD_SCOPE_H
#define AG_PRELOAD_SCOPE_H

#include <stdatomic.h>

enum ag_side { AG_SIDE_GOMP, AG_SIDE_KMP };
enum { AG_SCOPE_UNKNOWN = -1, AG_SCOPE_GLOBAL = 0, AG_SCOPE_LOCAL = 1 };

/* per side: AG_SCOPE_UNKNOWN until the side's first call, then GLOBAL or LOCAL */
extern _Atomic int ag_scope_mode[2];

/* The caller at ra calls entry point `name` of `side`: NULL when the call is the served runtime's (the
 * shim's own way), else the caller's definition to forward to. Decides the side's mode at its first
 * call, and adopts the GOMP side's runtime from its first local call. */
void *ag_scope_foreign(enum ag_side side, const void *ra, const char *name);

/* The libomp whose code is at `addr` asks for the shim's OMPT tool: 1 when it is (or becomes) the
 * __kmpc side's runtime, 0 when the side serves another (that libomp runs without the shim). */
int ag_scope_adopt_kmp(const void *addr);

/* The definition of entry point `name` (NULL: none) that the served runtime's callers bind to:
 * dlsym(RTLD_NEXT, name) in the global mode, the adopted runtime's in the local one. */
void *ag_scope_sym(enum ag_side side, const char *name);
/* The served runtime's own definition of `name`, from the object that defines the side's entry point
 * (GOMP_parallel, __kmpc_fork_call) even where another runtime defines `name` earlier in the global
 * scope (a program with both runtimes: their omp_* routines have the same names, and the __kmpc side
 * asking libgomp's omp_get_schedule split libomp's schedule(runtime) loops by libgomp's schedule);
 * NULL: none. Every omp_* routine the shim calls comes from here. */
void *ag_scope_runtime_sym(enum ag_side side, const char *name);

static inline int ag_scope_not_global(enum ag_side side)
{
    return atomic_load_explicit(&ag_scope_mode[side], memory_order_relaxed) != AG_SCOPE_GLOBAL;
}

/* An entry point's first statement, in the entry point `name` itself (its name and type are the
 * lookup's and the forward's): a foreign call goes on to its caller's runtime and returns */
#define AG_SCOPE_FORWARD(side, name, ...)                                                          \
    do {                                                                                           \
        if (__builtin_expect(ag_scope_not_global(side), 0)) {                                      \
            __typeof__(&name) f_ = (__typeof__(&name))ag_scope_foreign(side, __builtin_return_address(0), #name); \
            if (f_)                                                                                \
                return f_(__VA_ARGS__);                                                            \
        }                                                                                          \
    } while (0)
#define AG_SCOPE_FORWARD_VOID(side, name, ...)                                                     \
    do {                                                                                           \
        if (__builtin_expect(ag_scope_not_global(side), 0)) {                                      \
            __typeof__(&name) f_ = (__typeof__(&name))ag_scope_foreign(side, __builtin_return_address(0), #name); \
            if (f_) {                                                                              \
                f_(__VA_ARGS__);                                                                   \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
