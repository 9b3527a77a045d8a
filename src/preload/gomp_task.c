/* gomp_task.c — what switches a served libgomp team to libgomp's barrier: deferred tasks, nowait target
 * constructs, and cancelled loops and sections (team_tasks.c says how the team switches).
 *
 * Deferred tasks (GOMP_task, GOMP_taskloop with their if clause true): only libgomp's barrier runs them.
 * Target constructs with `nowait` (GOMP_target_ext, GOMP_target_update_ext, GOMP_target_enter_exit_data
 * with GOMP_TARGET_FLAG_NOWAIT): libgomp makes each a deferred target task, on the host as on a device,
 * and the barrier must wait for it (libgomp's own testsuite, target-34.c: the results of a `master`'s
 * nowait targets were not there after an andgate `omp barrier`).
 * Cancelled worksharing constructs (GOMP_cancel of a loop or sections that returns true): libgomp's team
 * barrier clears the team's mark of a cancelled construct (work_share_cancelled) when its last thread
 * arrives; andgate's does not, and every later loop of the region read itself cancelled and was skipped
 * (cancel-for-2.c, OMP_CANCELLATION=true). The canceller switches before it arrives at the construct's
 * end, whose barrier is then libgomp's, every thread at the same one. Cancelling a region or a
 * taskgroup needs nothing: gcc makes every barrier of a region with `cancel parallel` a cancellable one
 * (GOMP_barrier_cancel, libgomp's), and a taskgroup's tasks already switched the team.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

#include "gomp.h"

#define GOMP_TASK_FLAG_IF (1u << 10)      /* gcc's gomp-constants.h: the if clause of a taskloop holds */
#define GOMP_TARGET_FLAG_NOWAIT (1u << 0) /* gomp-constants.h: a target construct with nowait */
#define GOMP_CANCEL_LOOP 2                /* libgomp.h: the constructs GOMP_cancel cancels */
#define GOMP_CANCEL_SECTIONS 4

typedef void (*fn_t)(void *);
typedef void (*cpy_t)(void *, void *);
void GOMP_task(fn_t, void *, cpy_t, long, long, bool, unsigned, void **, int, void *); /* in assembly below */
static void (*real_task)(fn_t, void *, cpy_t, long, long, bool, unsigned, void **, int,
                         void *) __asm__("ag_gomp_real_task");
static void (*real_taskloop)(fn_t, void *, cpy_t, long, long, unsigned, unsigned long, int, long, long, long);
static void (*real_taskloop_ull)(fn_t, void *, cpy_t, long, long, unsigned, unsigned long, int, unsigned long long,
                                 unsigned long long, unsigned long long);
static void (*real_target)(int, fn_t, size_t, void **, size_t *, unsigned short *, unsigned, void **, void **);
static void (*real_target_update)(int, size_t, void **, size_t *, unsigned short *, unsigned, void **);
static void (*real_target_data)(int, size_t, void **, size_t *, unsigned short *, unsigned, void **);
static bool (*real_cancel)(int, bool);

void ag_gomp_task_resolve(void)
{
    *(void **)&real_task = ag_scope_sym(AG_SIDE_GOMP, "GOMP_task");
    *(void **)&real_taskloop = ag_scope_sym(AG_SIDE_GOMP, "GOMP_taskloop");
    *(void **)&real_taskloop_ull = ag_scope_sym(AG_SIDE_GOMP, "GOMP_taskloop_ull");
    *(void **)&real_target = ag_scope_sym(AG_SIDE_GOMP, "GOMP_target_ext");
    *(void **)&real_target_update = ag_scope_sym(AG_SIDE_GOMP, "GOMP_target_update_ext");
    *(void **)&real_target_data = ag_scope_sym(AG_SIDE_GOMP, "GOMP_target_enter_exit_data");
    *(void **)&real_cancel = ag_scope_sym(AG_SIDE_GOMP, "GOMP_cancel");
}

/* ---- tasks ---- */

/* Deferred work (or a cancelled construct) in the calling thread's team: switch the team to libgomp's
 * barrier from the barrier that this precedes, when andgate serves the team. */
static inline void switch_team(bool deferred)
{
    struct ag_team_ctx *c;
    ag_gomp_resolve();
    if (deferred && (c = ag_gomp_team()))
        ag_team_task(c);
}

/* GOMP_task has nothing to do for the shim, and goes straight on to libgomp's, when the shim is resolved
 * and the task is undeferred (if clause false: most of a recursive program's tasks under a cut-off), or
 * made outside a region of the shim's (no context: the tasks that threads run in libgomp's join barrier
 * make their children there, after the region's function returned), or this thread's team already
 * knows of its deferred tasks (noted: 0 from run_region on, set by ag_team_task in a resolved
 * context). A recursive program creates millions: BOTS' uts 4 million, nearly all of them in the join.
 * The rest, rare, take task_noted. */
static __attribute__((noinline, used)) void task_noted(fn_t fn, void *data, void (*cpyfn)(void *, void *),
                                                       long arg_size, long arg_align, bool if_clause,
                                                       unsigned flags, void **depend, int priority,
                                                       void *detach) __asm__("ag_gomp_task_noted");
static void task_noted(fn_t fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                       bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    /* GOMP_task jumps here: the return address is its caller's */
    AG_GOMP_FORWARD_VOID(GOMP_task, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
                         detach);
    switch_team(if_clause);
    real_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

#if defined(__x86_64__) && defined(__ELF__)
/* x86-64: GOMP_task in assembly, so that the common way is the test above and one jump, with every
 * argument where the caller put it. gcc 12's C version of the same test saved four registers and
 * copied the four stack arguments out and back before its tail jump: at 6 ns a task (fib with an if
 * cut-off) that was about 1.5 ns more per task (docs/results.md, seventh part). The offsets it reads: */
#define AG_ONCE_DONE 0    /* struct ag_once: done; an acquire load is a plain load on x86-64 */
/* ag_scope_mode[AG_SIDE_GOMP] (scope.h) is read too: anything but the global mode takes task_noted */
_Static_assert(AG_SIDE_GOMP == 0 && AG_SCOPE_GLOBAL == 0, "ag_scope_mode's GOMP entry moved: update GOMP_task");
#define AG_CTX_NOTED 52   /* struct ag_team_ctx: noted */
_Static_assert(offsetof(struct ag_once, done) == AG_ONCE_DONE, "ag_once.done moved: update GOMP_task");
_Static_assert(offsetof(struct ag_team_ctx, noted) == AG_CTX_NOTED, "ag_team_ctx.noted moved: update GOMP_task");
__asm__(".text\n\t"
        ".globl GOMP_task\n\t"
        ".type GOMP_task, @function\n\t"
        ".p2align 4\n"
        "GOMP_task:\n\t"
        ".cfi_startproc\n\t" AG_ENDBR
        "cmpl $0, ag_gomp_once+" AG_STR(AG_ONCE_DONE) "(%rip)\n\t" /* not resolved yet */
        "je 1f\n\t"
        "cmpl $0, ag_scope_mode(%rip)\n\t" /* the runtime may be another's: task_noted asks */
        "jne 1f\n\t"
        "testb %r9b, %r9b\n\t" /* if_clause false: undeferred */
        "je 2f\n\t"
        "movq ag_gomp_cur@gottpoff(%rip), %rax\n\t"
        "movq %fs:(%rax), %rax\n\t" /* ag_gomp_cur */
        "testq %rax, %rax\n\t"
        "je 2f\n\t"
        "cmpl $0, " AG_STR(AG_CTX_NOTED) "(%rax)\n\t"
        "je 1f\n"
        "2:\n\t"
        "jmp *ag_gomp_real_task(%rip)\n"
        "1:\n\t"
        "jmp ag_gomp_task_noted\n\t"
        ".cfi_endproc\n\t"
        ".size GOMP_task, .-GOMP_task");
#else
void GOMP_task(fn_t fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause,
               unsigned flags, void **depend, int priority, void *detach)
{
    struct ag_team_ctx *c = ag_gomp_cur;
    if (__builtin_expect(ag_once_done(&ag_gomp_once) && !ag_scope_not_global(AG_SIDE_GOMP) &&
                             (!if_clause || !c || c->noted), 1))
        real_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
    else
        task_noted(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}
#endif

void GOMP_taskloop(fn_t fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                   unsigned flags, unsigned long num_tasks, int priority, long start, long end, long step)
{
    AG_GOMP_FORWARD_VOID(GOMP_taskloop, fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start,
                         end, step);
    switch_team(flags & GOMP_TASK_FLAG_IF);
    real_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}

void GOMP_taskloop_ull(fn_t fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                       unsigned flags, unsigned long num_tasks, int priority, unsigned long long start,
                       unsigned long long end, unsigned long long step)
{
    AG_GOMP_FORWARD_VOID(GOMP_taskloop_ull, fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
                         start, end, step);
    switch_team(flags & GOMP_TASK_FLAG_IF);
    real_taskloop_ull(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}

/* ---- nowait target constructs, cancelled constructs ---- */

void GOMP_target_ext(int device, fn_t fn, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds,
                     unsigned flags, void **depend, void **args)
{
    AG_GOMP_FORWARD_VOID(GOMP_target_ext, device, fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
    switch_team(flags & GOMP_TARGET_FLAG_NOWAIT);
    real_target(device, fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
}

void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds,
                            unsigned flags, void **depend)
{
    AG_GOMP_FORWARD_VOID(GOMP_target_update_ext, device, mapnum, hostaddrs, sizes, kinds, flags, depend);
    switch_team(flags & GOMP_TARGET_FLAG_NOWAIT);
    real_target_update(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}

void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned short *kinds, unsigned flags, void **depend)
{
    AG_GOMP_FORWARD_VOID(GOMP_target_enter_exit_data, device, mapnum, hostaddrs, sizes, kinds, flags, depend);
    switch_team(flags & GOMP_TARGET_FLAG_NOWAIT);
    real_target_data(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}

/* true: the construct is cancelled (libgomp has marked it); the caller leaves it for its end, whose
 * barrier must be libgomp's. A cancellation point (do_cancel false) that returns true found the mark
 * of a canceller, which switches the team before it reaches that end: a thread already waiting there
 * at andgate's barrier is sent on to libgomp's (team_tasks.c). */
bool GOMP_cancel(int which, bool do_cancel)
{
    AG_GOMP_FORWARD(GOMP_cancel, which, do_cancel);
    ag_gomp_resolve();
    bool cancelled = real_cancel(which, do_cancel);
    switch_team(cancelled && do_cancel && (which & (GOMP_CANCEL_LOOP | GOMP_CANCEL_SECTIONS)));
    return cancelled;
}
