/* coro.c — coroutine switch for the simulator (coro.h). */
#define _GNU_SOURCE
#include "coro.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Stacks of freed coroutines, kept for the next simulation (the engine is single-threaded): mapping
 * and unmapping them for every run of a test making thousands of runs costs more than the runs. */
static struct spare {
    char *stack;
    size_t size;
} spare[4096];
static unsigned nspare;

/* A stack with an inaccessible page below it: an overflow faults instead of corrupting the heap. */
static char *stack_map(size_t *size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *size = (*size + page - 1) / page * page;
    if (nspare && spare[nspare - 1].size == *size)
        return spare[--nspare].stack;
    char *m = mmap(NULL, *size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    mprotect(m, page, PROT_NONE);
    return m + page;
}

#if defined(__x86_64__) && !defined(AG_CORO_UCONTEXT)
/* void ag_coro_swap(void **save_sp, void *new_sp): the System V callee-saved registers go on the old
 * stack, its stack pointer into *save_sp; the new stack's registers are popped and `ret` resumes it. */
__asm__(".text\n"
        ".globl ag_coro_swap\n"
        ".type ag_coro_swap,@function\n"
        "ag_coro_swap:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size ag_coro_swap, .-ag_coro_swap\n"
        ".section .note.GNU-stack,\"\",@progbits\n"
        ".text\n");
void ag_coro_swap(void **save_sp, void *new_sp);

/* Where in its top page a coroutine's stack begins: one cache line further down for each coroutine made,
 * 64 positions in turn. Every stack is a whole number of pages, so without it the hot top of every
 * stack — the frames a switch pops and pushes — lies at the same offset in its page, in the same few
 * sets of the L1 and L2 caches (indexed by the address bits below 12 and a few above): at 1024
 * participants a switch missed there on the registers it pops (13-16 % of the simulator's samples). */
static size_t stack_color(void)
{
    static unsigned made;
    return (size_t)(made++ % 64) * 64;
}

static void arch_start(struct coro *c, void (*fn)(void))
{
    /* top 16-aligned and coloured; a zero return address for fn (it never returns), fn itself for `ret`,
     * then six zeroed registers: fn starts with rsp = 8 mod 16, as after a call */
    uintptr_t top = ((uintptr_t)c->stack + c->size - stack_color()) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = NULL;
    *--sp = (void *)fn;
    for (int i = 0; i < 6; i++)
        *--sp = NULL;
    c->sp = sp;
}

void coro_switch(struct coro *from, struct coro *to) { ag_coro_swap(&from->sp, to->sp); }

#else

static void arch_start(struct coro *c, void (*fn)(void))
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = c->stack;
    c->uc.uc_stack.ss_size = c->size;
    c->uc.uc_link = NULL;
    makecontext(&c->uc, fn, 0);
}

void coro_switch(struct coro *from, struct coro *to) { swapcontext(&from->uc, &to->uc); }

#endif

int coro_make(struct coro *c, size_t size, void (*fn)(void))
{
    memset(c, 0, sizeof *c);
    c->stack = stack_map(&size);
    c->size = size;
    if (!c->stack)
        return ENOMEM;
    arch_start(c, fn);
    return 0;
}

void coro_free(struct coro *c)
{
    if (c->stack && nspare < sizeof spare / sizeof *spare) {
        spare[nspare++] = (struct spare){ c->stack, c->size };
    } else if (c->stack) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        munmap(c->stack - page, c->size + page);
    }
    c->stack = NULL;
}
