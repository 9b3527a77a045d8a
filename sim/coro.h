/* coro.h — the coroutines of andgate sim: one per simulated participant, switched by the engine.
 *
 * On x86-64 the switch is six register pushes, a stack-pointer exchange and six pops (coro.c): no
 * signal mask is saved, so no system call is made (glibc's swapcontext makes one per switch, which
 * cost about a microsecond per simulated memory operation). Elsewhere, or built with
 * -DAG_CORO_UCONTEXT (how the fallback is tested on x86-64), ucontext is used. */
#ifndef AG_SIM_CORO_H
#define AG_SIM_CORO_H

#include <stddef.h>

#if !defined(__x86_64__) || defined(AG_CORO_UCONTEXT)
#include <ucontext.h>
#endif

struct coro {
    void *sp;     /* saved stack pointer while switched out */
    char *stack;  /* NULL for the main (scheduler) context; a guard page lies below it */
    size_t size;
#if !defined(__x86_64__) || defined(AG_CORO_UCONTEXT)
    ucontext_t uc;
#endif
};

/* A coroutine that starts in fn() on its own stack of `size` bytes (rounded up to pages, with an
 * inaccessible guard page below); fn must never return.
 * 0 or ENOMEM. */
int coro_make(struct coro *c, size_t size, void (*fn)(void));
void coro_free(struct coro *c);
/* Saves the running context into `from` and resumes `to`. */
void coro_switch(struct coro *from, struct coro *to);

#endif
