/* gomp_doacross.h — what gomp_doacross.c (the loops and their posts) and gomp_doacross_wait.c (the
 * waits, their x86-64 entry points in assembly) share: a loop's posts, the marks of its context's
 * `loop.extra`, the thread's loop (mine) and an iteration's position. */
#ifndef AG_PRELOAD_GOMP_DOACROSS_H
#define AG_PRELOAD_GOMP_DOACROSS_H

#include <stdint.h>

#include "gomp.h"

#define AG_DX_MAX_DIMS 8

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

/* `loop.extra` of the context of a team of one while a doacross loop of libgomp's runs there. Its one
 * thread runs every iteration in order, so each sink has run before its wait, and the wait returns at once
 * (gomp_doacross_wait.c's entry points): libgomp's wait would only find it posted, at twice the cost of
 * the iteration in a one-flop wavefront (docs/results.md, thirty-fifth part). Its posts return at once
 * too: libgomp sees none of the loop's posts and waits, so none of its waits can miss a post (with
 * AG_DX_NESTED, below, those of the loop's level are still its). */
#define AG_DX_SOLO_WORD 1 /* its value, which the assembly entry points compare with */
#define AG_DX_SOLO ((void *)AG_DX_SOLO_WORD)
/* The bit set in `loop.extra` (the posts of a loop of the shim's, 64-aligned, or AG_DX_SOLO) once a
 * doacross loop of libgomp's has begun in the thread while that loop runs: a loop in a region libgomp
 * entered without the shim (GOMP_parallel_reductions, a target region on the host), inside the body. While
 * the bit is clear, every post and wait of the thread is the shim's loop's: the thread is inside that loop
 * (`extra` is set when it begins and cleared when the thread's last chunk is taken, ag_loop_finish), so a
 * post or wait of another loop comes from a loop nested in its body, which begins at one of
 * gomp_doacross.c's start entry points (each calls solo_mark when the loop is not the shim's) — or from
 * another runtime, which the entry points tell apart first (ag_scope_mode). Once set, posts and waits ask
 * libgomp for the level (mine()), as every one did before the thirty-sixth part: that call and the C path
 * around it made a one-flop wavefront's waits 5-40 % slower than libgomp's (docs/results.md). */
#define AG_DX_NESTED 2u
#define AG_DX_MARKS 3 /* the low bits of `extra` that are not a pointer's (the assembly tests them) */

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
static inline uint64_t position(const struct ag_doacross *d, const uint64_t *idx)
{
    uint64_t p = 0;
    for (unsigned k = 1; k < d->ndims; k++) {
        if (idx[k] >= d->count[k])
            return 0;
        p = p * d->count[k] + idx[k];
    }
    return p + 1;
}

#endif
