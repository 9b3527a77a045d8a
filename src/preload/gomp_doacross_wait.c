/* gomp_doacross_wait.c — `ordered depend(sink: ...)` of the doacross loops gomp_doacross.c keeps: the wait
 * of a loop of the shim's, and the entry points GOMP_doacross_{,ull_}wait, which on x86-64 are written in
 * assembly so that a wait passed on to libgomp finds every index where its caller put it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>

#include "gomp_doacross.h"
#include "now.h"
#include "wait.h"

/* a waiter in a team that fits the CPUs polls this long before it yields at every poll */
#define AG_DX_SPIN_NS 100000

/* depend(sink: idx) in team thread tid: until word idx[0] has reached idx's position (acquire: see post),
 * or at once when what the thread last read of it already has (struct ag_dx_seen). */
static void wait_for(struct ag_doacross *d, unsigned tid, const uint64_t *idx)
{
    uint64_t p = position(d, idx);
    if (idx[0] >= d->count[0] || !p)
        return;
    struct ag_dx_seen *s = &d->seen[tid];
    const unsigned e = idx[0] & 1;
    if (s->index[e] == idx[0] + 1 && s->pos[e] >= p)
        return;
    _Atomic uint64_t *w = &d->posted[idx[0] * d->stride];
    uint64_t at = atomic_load_explicit(w, memory_order_acquire), since = 0;
    for (unsigned k = 1; at < p; k++, at = atomic_load_explicit(w, memory_order_acquire)) {
        if (d->crowded && k > 16) {
            sched_yield();
            continue;
        }
        ag_cpu_relax();
        if (k % 64)
            continue;
        uint64_t now = ag_now_ns();
        if (!since)
            since = now;
        else if (now - since > AG_DX_SPIN_NS)
            sched_yield(); /* the thread that posts it may be waiting for this CPU */
    }
    s->index[e] = idx[0] + 1, s->pos[e] = at;
}

/* GOMP_doacross_{,ull_}wait(first, ...): the sink's indices, as many as the loop has dimensions, the first
 * six in integer registers and the rest on the caller's stack (SysV x86-64, variadic or not). A wait that
 * goes on to libgomp (or to another runtime) must find all of them where its caller put them: a C entry
 * point can pass on only as many as it names, and one that passed on eight made libgomp's loops of nine
 * dimensions read garbage for the ninth and now and then hang (docs/results.md, thirty-fourth part). */
#define AG_DX_REG_INDICES 6 /* the indices a wait is passed in registers: rdi, rsi, rdx, rcx, r8, r9 */
static const char *const wait_names[2] = { "GOMP_doacross_wait", "GOMP_doacross_ull_wait" };

/* libgomp's two waits, once looked up (the entry points below jump to them) */
static __attribute__((used)) void *dx_real[2] __asm__("ag_gomp_dx_real");

/* The wait (ull: the unsigned long long entry) with the register indices in regs[0..5] and the stack ones
 * from rest[0], called by ret: NULL once the shim has done it, else the entry point to go on to with the
 * caller's arguments as they are. */
static __attribute__((used)) void *route_wait(const uint64_t *regs, const uint64_t *rest, const void *ret,
                                              int ull) __asm__("ag_gomp_dx_wait");
static void *route_wait(const uint64_t *regs, const uint64_t *rest, const void *ret, int ull)
{
    if (ag_scope_not_global(AG_SIDE_GOMP)) {
        void *f = ag_scope_foreign(AG_SIDE_GOMP, ret, wait_names[ull]);
        if (f)
            return f;
    }
    struct ag_doacross *d = mine();
    if (d == AG_DX_SOLO)
        return NULL;
    if (!d) {
        if (!dx_real[ull])
            dx_real[ull] = ag_scope_sym(AG_SIDE_GOMP, wait_names[ull]);
        return dx_real[ull];
    }
    uint64_t v[AG_DX_MAX_DIMS];
    for (unsigned k = 0; k < d->ndims; k++)
        v[k] = k < AG_DX_REG_INDICES ? regs[k] : rest[k - AG_DX_REG_INDICES];
    wait_for(d, ag_gomp_cur->tid, v);
    return NULL;
}

#if defined(__x86_64__) && defined(__ELF__)
/* The wait of a loop of the shim's with AG_DX_NESTED clear and at most six dimensions (mine()'s fast
 * answer), its indices the caller's six argument registers as they are: the entry points jump here. */
static __attribute__((used)) void fast_wait(uint64_t i0, uint64_t i1, uint64_t i2, uint64_t i3, uint64_t i4,
                                            uint64_t i5) __asm__("ag_gomp_dx_fast_wait");
static void fast_wait(uint64_t i0, uint64_t i1, uint64_t i2, uint64_t i3, uint64_t i4, uint64_t i5)
{
    const uint64_t v[AG_DX_REG_INDICES] = { i0, i1, i2, i3, i4, i5 };
    const struct ag_team_ctx *c = ag_gomp_cur;
    wait_for(c->loop.extra, c->tid, v);
}

/* x86-64: the entry points in assembly. When the runtime is the process's only one, a wait with no doacross
 * loop of the shim's in its thread (mine()'s first test: no context, unresolved, or no `extra`) jumps to
 * libgomp's at once if that has been looked up, one in a marked team of one (AG_DX_SOLO) returns, and one
 * in a loop of the shim's whose mark is clear and whose dimensions fit the argument registers jumps to
 * fast_wait with the registers untouched. Any other saves the six index registers (and %al,
 * the variadic callee's count of vector registers) in the order that makes them regs[0..5], points rest
 * at the caller's stack arguments above the return address, asks route_wait, restores everything and goes
 * on, or returns. The offsets the first tests read: */
#define AG_DX_CTX_RESOLVED 28
#define AG_DX_CTX_EXTRA 184
_Static_assert(offsetof(struct ag_team_ctx, resolved) == AG_DX_CTX_RESOLVED, "update AG_DX_CTX_RESOLVED");
_Static_assert(offsetof(struct ag_team_ctx, loop.extra) == AG_DX_CTX_EXTRA, "update AG_DX_CTX_EXTRA");
_Static_assert(offsetof(struct ag_doacross, ndims) == 0, "WAIT_ENTRY reads ndims at offset 0");
_Static_assert(AG_SIDE_GOMP == 0 && AG_SCOPE_GLOBAL == 0,
               "ag_scope_mode's GOMP entry moved: update WAIT_ENTRY");
#define PUSH(r) "pushq %" r "\n\t.cfi_adjust_cfa_offset 8\n\t"
#define POP(r) "popq %" r "\n\t.cfi_adjust_cfa_offset -8\n\t"
#define WAIT_ENTRY(name, ull)                                                                              \
    __asm__(".text\n\t.globl " name "\n\t.type " name ", @function\n\t.p2align 4\n" name ":\n\t"           \
            ".cfi_startproc\n\t" AG_ENDBR                                                                  \
            "cmpl $0, ag_scope_mode(%rip)\n\t"                                                             \
            "jne 2f\n\t"                                                                                   \
            "movq ag_gomp_cur@gottpoff(%rip), %r11\n\t"                                                    \
            "movq %fs:(%r11), %r11\n\t"                                                                    \
            "testq %r11, %r11\n\t"                                                                         \
            "je 3f\n\t"                                                                                    \
            "cmpl $0, " AG_STR(AG_DX_CTX_RESOLVED) "(%r11)\n\t"                                            \
            "je 3f\n\t"                                                                                    \
            "movq " AG_STR(AG_DX_CTX_EXTRA) "(%r11), %r11\n\t"                                             \
            "testq %r11, %r11\n\t"                                                                         \
            "je 3f\n\t"                                                                                    \
            "testq $" AG_STR(AG_DX_MARKS) ", %r11\n\t"                                                     \
            "jnz 4f\n\t"                                                                                   \
            "cmpl $" AG_STR(AG_DX_REG_INDICES) ", (%r11)\n\t" /* ndims */                                  \
            "ja 2f\n\t"                                                                                    \
            "jmp ag_gomp_dx_fast_wait\n"                                                                   \
            "4:\n\t"                                                                                       \
            "cmpq $" AG_STR(AG_DX_SOLO_WORD) ", %r11\n\t"                                                  \
            "jne 2f\n\t"                                                                                   \
            "ret\n"                                                                                        \
            "3:\n\t"                                                                                       \
            "movq ag_gomp_dx_real+8*" #ull "(%rip), %r11\n\t"                                              \
            "testq %r11, %r11\n\t"                                                                         \
            "je 2f\n\t"                                                                                    \
            "jmp *%r11\n"                                                                                  \
            "2:\n\t"                                                                                       \
            PUSH("rax") PUSH("r9") PUSH("r8") PUSH("rcx") PUSH("rdx") PUSH("rsi") PUSH("rdi")              \
            "movq %rsp, %rdi\n\t"     /* regs; 7 pushes on the entry's 8 mod 16: aligned for the call */   \
            "leaq 64(%rsp), %rsi\n\t" /* rest: past the 7 words and the return address */                  \
            "movq 56(%rsp), %rdx\n\t" /* ret */                                                            \
            "movl $" #ull ", %ecx\n\t"                                                                     \
            "call ag_gomp_dx_wait\n\t"                                                                     \
            "movq %rax, %r11\n\t"                                                                          \
            POP("rdi") POP("rsi") POP("rdx") POP("rcx") POP("r8") POP("r9") POP("rax")                     \
            "testq %r11, %r11\n\t"                                                                         \
            "je 1f\n\t"                                                                                    \
            "jmp *%r11\n"                                                                                  \
            "1:\n\t"                                                                                       \
            "ret\n\t"                                                                                      \
            ".cfi_endproc\n\t"                                                                             \
            ".size " name ", .-" name)
WAIT_ENTRY("GOMP_doacross_wait", 0);
WAIT_ENTRY("GOMP_doacross_ull_wait", 1);
#else
/* Elsewhere in C: the first eight indices are passed on (a loop of libgomp's with more dimensions is not
 * waited for right), the shim's loops read theirs from the variadic area. */
#define WAIT(sfx, T, ULL)                                                                                  \
    void GOMP_doacross_##sfx(T first, ...)                                                                 \
    {                                                                                                      \
        uint64_t v[AG_DX_MAX_DIMS] = { (uint64_t)first };                                                  \
        va_list ap;                                                                                        \
        va_start(ap, first);                                                                               \
        for (unsigned k = 1; k < AG_DX_MAX_DIMS; k++)                                                      \
            v[k] = (uint64_t)va_arg(ap, T);                                                                \
        va_end(ap);                                                                                        \
        void (*f)(T, ...) = (void (*)(T, ...))route_wait(v, v + 6, __builtin_return_address(0), ULL);      \
        if (f)                                                                                             \
            f(first, (T)v[1], (T)v[2], (T)v[3], (T)v[4], (T)v[5], (T)v[6], (T)v[7]);                       \
    }
WAIT(wait, long, 0)
WAIT(ull_wait, ull, 1)
#endif

