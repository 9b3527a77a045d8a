/* gomp_doacross.c — libgomp's doacross loops (`for ordered(n)` with `ordered depend(sink: ...)` and
 * `ordered depend(source)`, OpenMP 5.0 §2.17.9; 5.2's doacross clause) in the teams gomp.c serves: the
 * shim hands out their chunks (loops.c, as for dynamic loops) and keeps their posts itself.
 *
 * Why: libgomp's GOMP_doacross_wait polls without end, never yielding the CPU or sleeping. With more
 * threads than CPUs a waiter keeps the CPU that the thread it waits for needs, until the scheduler's
 * time slice ends: a 1,000-iteration wavefront took seconds at 4 threads on 2 CPUs (docs/results.md,
 * thirty-third part), against milliseconds at 2.
 *
 * How: gcc numbers a doacross loop's iterations itself (index 0 .. counts[0]-1 of the workshared first
 * dimension, then those of the ordered(n) inner dimensions), starts it with GOMP_loop_doacross_*_start
 * and asks for further chunks with the plain GOMP_loop_*_next. Here the start begins a loop of the
 * shim's that takes a team instance even when static (ag_loop_begin_shared), and the instance's extra
 * state is one word per index of the first dimension: the position (flattened, plus one) of the last
 * inner iteration posted for it, 0 before any. One thread runs all the inner iterations of a first index,
 * in order, so the word only grows and has one writer; a sink (i, j...) is done once word i has passed
 * j's position, whichever thread ran it and whatever the schedule. Waits spin for a while and then
 * yield at every poll (at once in a team whose threads outnumber the CPUs), so a waiter gives the CPU
 * back to the thread it waits for.
 * In a team of one (not served: no barrier) the loop is libgomp's, and its waits return at once (one thread
 * runs the iterations in order; AG_DX_SOLO below).
 * Left to libgomp: loops outside a served team, those GOMP_loop_doacross_start begins (gcc's generic entry,
 * used with task reductions; wrapped only to mark a team of one), more than AG_DX_MAX_INDICES
 * first-dimension indices (a word each) or AG_DX_MAX_DIMS dimensions, inner dimensions whose product
 * passes 2^63, everything ANDGATE_OMP_LOOPS=0 or OMP_CANCELLATION=true leave to it (gomp_loop.c). Such a
 * loop's posts and waits find no loop of the shim's and go on to libgomp.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "now.h"
#include "wait.h"

#define AG_DX_MAX_DIMS 8
#define AG_DX_MAX_INDICES (1u << 22) /* 32 MB of words */
/* up to this many indices, a cache line each: the words of neighbouring indices are mostly posted by
 * different threads (every chunk boundary; each index under schedule(static, 1)), and sharing a line
 * made each post move it away from the waiter next door too (2 threads, a 600 x 600 wavefront of
 * static chunks of 2 rows) */
#define AG_DX_PADDED_INDICES (1u << 16) /* 4 MB */
#define AG_DX_LINE_WORDS 8
/* a waiter in a team that fits the CPUs polls this long before it yields at every poll */
#define AG_DX_SPIN_NS 100000

/* What a thread last read of the words of two indices (picked by parity: a wavefront's sinks on the row
 * before and on its own keep one each): index + 1 (0: none), position. A word only grows (one thread
 * posts an index's iterations in order), so a sink at or below that is posted and the waiter need not
 * touch the line, which every post takes away: behind its producer it reads the word once for many
 * sinks (libgomp's wait reads it every time). The acquire that read it pairs with that post's release. */
struct ag_dx_seen {
    _Alignas(64) uint64_t index[2];
    uint64_t pos[2];
};

struct ag_doacross {
    unsigned ndims, stride; /* the word of index i is posted[i * stride] */
    int crowded;
    struct ag_dx_seen *seen; /* one per team thread, after the posts */
    uint64_t count[AG_DX_MAX_DIMS];
    _Alignas(64) _Atomic uint64_t posted[]; /* count[0] * stride words */
};

typedef unsigned long long ull;

/* The loop's shape as gcc passes it, or 0 when the shim cannot keep its posts (the same answer in every
 * thread: they all see the same counts). */
static int servable(unsigned ndims, const uint64_t *count)
{
    if (ndims < 1 || ndims > AG_DX_MAX_DIMS || count[0] > AG_DX_MAX_INDICES)
        return 0;
    uint64_t inner = 1; /* a count of 0: no iteration, so no post or wait */
    for (unsigned d = 1; d < ndims && count[d]; d++) {
        if (inner > (UINT64_MAX / 2) / count[d])
            return 0;
        inner *= count[d];
    }
    return 1;
}

/* The instance's posts: made by the first thread of the team to begin it (the others free their copy),
 * with every word 0; a thread out of memory tries again until another's copy or its own is in place.
 * The acquire pairs with the installer's release: the zeroed words and the counts are visible. */
static struct ag_doacross *attach(struct ag_loop_slot *s, unsigned ndims, const uint64_t *count,
                                  int crowded, unsigned threads)
{
    void *x = atomic_load_explicit(&s->extra, memory_order_acquire);
    while (!x) {
        const unsigned stride = count[0] <= AG_DX_PADDED_INDICES ? AG_DX_LINE_WORDS : 1;
        const size_t words = count[0] * stride;
        const size_t posts = (sizeof(struct ag_doacross) + words * sizeof(uint64_t) + 63) / 64 * 64;
        const size_t bytes = posts + threads * sizeof(struct ag_dx_seen);
        struct ag_doacross *d = aligned_alloc(64, bytes);
        if (!d) {
            sched_yield();
            x = atomic_load_explicit(&s->extra, memory_order_acquire);
            continue;
        }
        memset(d, 0, bytes);
        d->ndims = ndims, d->stride = stride, d->crowded = crowded;
        d->seen = (struct ag_dx_seen *)((char *)d + posts);
        for (unsigned k = 0; k < ndims; k++)
            d->count[k] = count[k];
        if (atomic_compare_exchange_strong_explicit(&s->extra, &x, d, memory_order_acq_rel,
                                                    memory_order_acquire))
            x = d;
        else
            free(d);
    }
    return x;
}

/* `loop.extra` of the context of a team of one while a doacross loop of libgomp's runs there. Its one
 * thread runs every iteration in order, so each sink has run before its wait, and the wait returns at once
 * (the entry points below): libgomp's wait would only find it posted, at twice the cost of the iteration
 * in a one-flop wavefront (docs/results.md, thirty-fifth part). Its posts return at once too: libgomp sees
 * none of the loop's posts and waits, so none of its waits can miss a post (with AG_DX_NESTED, below,
 * those of the loop's level are still its). */
#define AG_DX_SOLO_WORD 1 /* its value, which the assembly entry points compare with */
#define AG_DX_SOLO ((void *)AG_DX_SOLO_WORD)
/* The bit set in `loop.extra` (the posts of a loop of the shim's, 64-aligned, or AG_DX_SOLO) once a
 * doacross loop of libgomp's has begun in the thread while that loop runs: a loop in a region libgomp
 * entered without the shim (GOMP_parallel_reductions, a target region on the host), inside the body. While
 * the bit is clear, every post and wait of the thread is the shim's loop's: the thread is inside that loop
 * (`extra` is set when it begins and cleared when the thread's last chunk is taken, ag_loop_finish), so a
 * post or wait of another loop comes from a loop nested in its body, which begins at one of the entry
 * points below (each calls solo_mark when the loop is not the shim's) — or from another runtime, which the
 * entry points tell apart first (ag_scope_mode). Once set, posts and waits ask libgomp for the level
 * (mine()), as every one did before the thirty-sixth part: that call and the C path around it made a
 * one-flop wavefront's waits 5-40 % slower than libgomp's (docs/results.md). */
#define AG_DX_NESTED 2u
#define AG_DX_MARKS 3 /* the low bits of `extra` that are not a pointer's (the assembly tests them) */

/* A doacross loop of libgomp's begins in the calling thread: its context marked AG_DX_SOLO when it is a
 * team of one at the current level and the shim hands out loops, unmarked otherwise. One that begins at
 * another level while a loop of the thread's runs (in a team that libgomp entered without the shim,
 * GOMP_parallel_reductions or a target region run on the host, inside the body) is multi-threaded or
 * another team's and must wait for real: the running loop, the shim's (`extra` its posts) or a team of
 * one's (AG_DX_SOLO, which stays after such a loop ends: the next loop at its level marks again), gets
 * AG_DX_NESTED, and its posts and waits check the level from then on. */
static void solo_mark(void)
{
    (void)ag_gomp_loop_ctx(); /* resolves a context of the current level (NULL in a team of one) */
    struct ag_team_ctx *c = ag_gomp_cur;
    if (!c || !c->resolved)
        return;
    const uintptr_t x = (uintptr_t)c->loop.extra;
    const int here = c->level == ag_gomp_omp_level();
    if (x && (x & ~(uintptr_t)AG_DX_MARKS || !here)) {
        c->loop.extra = (void *)(x | AG_DX_NESTED);
        return;
    }
    c->loop.extra = c->n == 1 && ag_gomp_loops_on() && here ? AG_DX_SOLO : NULL;
}

/* Begin the doacross loop in the calling thread's served team and take its first chunk: true or false
 * (none), or -1 when libgomp must run it. */
static int start(unsigned ndims, const uint64_t *count, int kind, uint64_t chunk, uint64_t *istart,
                 uint64_t *iend)
{
    struct ag_team_ctx *c = ag_gomp_loop_ctx();
    if (!c || kind < 0 || !servable(ndims, count) ||
        !ag_gomp_doacross_begin(c, kind, count[0], chunk ? chunk : 1)) {
        solo_mark();
        return -1;
    }
    c->loop.extra = attach(c->loop.slot, ndims, count, c->loops->crowded, c->n);
    return ag_gomp_loop_next(&c->loop, istart, iend);
}

/* The calling thread's doacross loop of the shim's, AG_DX_SOLO (a team of one's: the post or wait is
 * done), or NULL (the loop is libgomp's). A thread whose loop is not the shim's (a loop left to libgomp)
 * is told so by one thread-local load and goes on to libgomp at once, one inside a loop of the shim's or a
 * team of one's is given it (AG_DX_NESTED clear: the post or wait is that loop's); with the bit set the
 * level is checked: the context may be that of an enclosing team, this loop in a region libgomp entered
 * without the shim. */
static inline __attribute__((always_inline)) struct ag_doacross *mine(void)
{
    struct ag_team_ctx *c = ag_gomp_cur;
    if (!c || !c->resolved || !c->loop.extra) /* NULL but while its doacross loop of the shim's runs */
        return NULL;
    uintptr_t x = (uintptr_t)c->loop.extra;
    if (!(x & AG_DX_MARKS) || x == AG_DX_SOLO_WORD)
        return (struct ag_doacross *)x;
    if (x == (AG_DX_SOLO_WORD | AG_DX_NESTED))
        return c->level == ag_gomp_omp_level() ? AG_DX_SOLO : NULL;
    return ag_gomp_loop_team() ? (struct ag_doacross *)(x & ~(uintptr_t)AG_DX_MARKS) : NULL;
}

/* The position of the inner indices idx[1..] (count[d] each), plus one; 0 when one is out of range (a
 * sink outside the iteration space, which OpenMP says to ignore). */
static uint64_t position(const struct ag_doacross *d, const uint64_t *idx)
{
    uint64_t p = 0;
    for (unsigned k = 1; k < d->ndims; k++) {
        if (idx[k] >= d->count[k])
            return 0;
        p = p * d->count[k] + idx[k];
    }
    return p + 1;
}

/* depend(source) of iteration idx: its position in word idx[0]. The release pairs with the acquire of
 * a waiter that sees it, so the iteration's writes before the post are visible to the sink's code. */
static void post(struct ag_doacross *d, const uint64_t *idx)
{
    uint64_t p = position(d, idx);
    if (idx[0] < d->count[0] && p)
        atomic_store_explicit(&d->posted[idx[0] * d->stride], p, memory_order_release);
}

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

/* libgomp's own fn, looked up once */
#define REAL(fn)                                                                                           \
    static __typeof__(&fn) real;                                                                           \
    if (!real)                                                                                             \
    *(void **)&real = ag_scope_sym(AG_SIDE_GOMP, #fn)

/* GOMP_loop_{,ull_}doacross_*_start: the shim's loop, or libgomp's */
#define START(sfx, T, KIND)                                                                                \
    bool GOMP_loop_##sfx##_start(unsigned n, T *counts, T chunk, T *istart, T *iend)                       \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_start, n, counts, chunk, istart, iend);                          \
        int r = start(n, (const uint64_t *)counts, KIND, (uint64_t)chunk, (uint64_t *)istart,              \
                      (uint64_t *)iend);                                                                   \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL(GOMP_loop_##sfx##_start);                                                                     \
        return real(n, counts, chunk, istart, iend);                                                       \
    }
START(doacross_static, long, chunk > 0 ? AG_LOOP_STATIC_CHUNKED : AG_LOOP_STATIC)
START(doacross_dynamic, long, AG_LOOP_DYNAMIC)
START(doacross_guided, long, AG_LOOP_GUIDED)
START(ull_doacross_static, ull, chunk > 0 ? AG_LOOP_STATIC_CHUNKED : AG_LOOP_STATIC)
START(ull_doacross_dynamic, ull, AG_LOOP_DYNAMIC)
START(ull_doacross_guided, ull, AG_LOOP_GUIDED)

/* schedule(runtime): the run-sched-var's kind, in iteration order (doacross loops are monotonic) */
static int runtime_start(unsigned n, const uint64_t *counts, uint64_t *istart, uint64_t *iend)
{
    int64_t chunk = 0;
    const int kind = ag_gomp_loop_ctx() ? ag_gomp_runtime_kind(0, &chunk) : -1;
    return start(n, counts, kind, chunk > 0 ? (uint64_t)chunk : 0, istart, iend);
}

#define RUNTIME(sfx, T)                                                                                    \
    bool GOMP_loop_##sfx##_start(unsigned n, T *counts, T *istart, T *iend)                                \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_start, n, counts, istart, iend);                                 \
        int r = runtime_start(n, (const uint64_t *)counts, (uint64_t *)istart, (uint64_t *)iend);          \
        if (r >= 0)                                                                                        \
            return r;                                                                                      \
        REAL(GOMP_loop_##sfx##_start);                                                                     \
        return real(n, counts, istart, iend);                                                              \
    }
RUNTIME(doacross_runtime, long)
RUNTIME(ull_doacross_runtime, ull)

/* GOMP_loop_{,ull_}doacross_start: gcc's generic entry (a doacross loop with a task reduction), libgomp's
 * loop; a team of one's waits skipped as above. */
#define GENERIC(sfx, T)                                                                                    \
    bool GOMP_loop_##sfx##_start(unsigned n, T *counts, long sched, T chunk, T *istart, T *iend,           \
                                 uintptr_t *reductions, void **mem)                                        \
    {                                                                                                      \
        AG_GOMP_FORWARD(GOMP_loop_##sfx##_start, n, counts, sched, chunk, istart, iend, reductions, mem);  \
        solo_mark();                                                                                       \
        REAL(GOMP_loop_##sfx##_start);                                                                     \
        return real(n, counts, sched, chunk, istart, iend, reductions, mem);                               \
    }
GENERIC(doacross, long)
GENERIC(ull_doacross, ull)

/* GOMP_doacross_{,ull_}post(counts): the iteration's indices, one per dimension */
#define POST(sfx, T)                                                                                       \
    void GOMP_doacross_##sfx(T *counts)                                                                    \
    {                                                                                                      \
        AG_GOMP_FORWARD_VOID(GOMP_doacross_##sfx, counts);                                                 \
        struct ag_doacross *d = mine();                                                                    \
        if (d) {                                                                                           \
            if (d != AG_DX_SOLO)                                                                           \
                post(d, (const uint64_t *)counts);                                                         \
            return;                                                                                        \
        }                                                                                                  \
        REAL(GOMP_doacross_##sfx);                                                                         \
        real(counts);                                                                                      \
    }
POST(post, long)
POST(ull_post, ull)

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
