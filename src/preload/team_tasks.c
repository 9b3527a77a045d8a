/* team_tasks.c — deferred tasks in a served team: the switch to the runtime's barrier (see team.h).
 *
 * The runtimes run pending tasks at their barriers (a thread waiting there executes or steals them);
 * andgate's barrier cannot. A team therefore switches to the runtime's barrier for the rest of its
 * region at the first barrier that a deferred task precedes, and every thread must switch at the same
 * barrier. Barrier k of a region is the k-th (from 0) the team runs in it; every thread counts its own.
 *
 * The creator. A thread that creates a deferred task in phase k (after barrier k - 1, before its
 * arrival at barrier k) lowers the set's first_task to k, then breaks the andgate barrier
 * (ag_barrier_cancel): threads already waiting at barrier k would otherwise wait there, idle, while
 * the tasks pile up (a `single` that spawns a task tree while the others wait at its end ran the whole
 * tree in one thread). It will itself run the runtime's barrier k. Only a thread's first deferred task
 * of a region does this (ctx->noted): first_task stays at or below its phase from then on, so a later
 * task of the thread has nothing to lower, and the set's `tasked` is set (a thread that spawns a task
 * tree inside the region makes thousands to millions).
 *
 * Barrier k, in every thread:
 *   - first_task <= k already: the runtime's barrier (the creator's write reached this thread).
 *   - else the andgate barrier. Returning 0 or AG_SERIAL: every creation before an arrival at k
 *     happened before the episode completed (release on arrival, acquire on departure), so every
 *     thread now reads the same verdict, first_task <= k or not.
 *   - returning AG_EBROKEN: a creator broke the barrier; its first_task write came before the break
 *     and this thread's wait saw the break (seq_cst), so first_task now reads f <= the creator's k'.
 *     f == k: the creator had not arrived at k, so the episode is not complete: the runtime's barrier.
 *     f > k: the creator was past barrier k (k' = k + 1: it left k, so all had arrived at k), so the
 *     episode is complete and this thread leaves it; at barrier k + 1 it reads first_task <= k + 1
 *     and takes the runtime's barrier, never the broken andgate one. (f < k cannot be: at barrier f
 *     every thread switched for the rest of the region.)
 * The broken barrier is reset by the master before the set's next region starts (team.c,
 * ag_team_begin): the region has joined, nobody is inside it.
 *
 * Memory: a region that created deferred tasks the last time it ran starts with first_task = 0 (team.c,
 * ag_team_region, from the region's record): every thread takes the runtime's barrier from barrier 0,
 * and a creator finds nothing to break. A region whose run created none gets andgate's barriers back
 * the run after. The cost of a wrong guess is one region: a break and a repair, or a region of the
 * runtime's barriers.
 */
#define _GNU_SOURCE
#include "team.h"

int ag_team_wait(struct ag_team_ctx *c)
{
    if (c->tasking)
        return 1;
    const uint64_t k = c->episodes++;
    _Atomic uint64_t *first = ag_team_first_task(c->set);
    if (atomic_load_explicit(first, memory_order_relaxed) > k) {
        int rc = ag_barrier_wait(c->bar, c->tid);
        uint64_t f = atomic_load_explicit(first, memory_order_acquire);
        if ((rc == 0 || rc == AG_SERIAL || rc == AG_EBROKEN) && f > k) /* completed (broken: by a later creator) */
            return 0;
    }
    c->tasking = 1;
    return 1;
}

void ag_team_task(struct ag_team_ctx *c)
{
    if (!c->bar || c->noted)
        return; /* the runtime's barriers already, or this thread's first task did what follows */
    c->noted = 1;
    ag_team_note_task(c->set);
    if (c->tasking)
        return;
    _Atomic uint64_t *first = ag_team_first_task(c->set);
    uint64_t f = atomic_load_explicit(first, memory_order_relaxed);
    while (c->episodes < f)
        if (atomic_compare_exchange_weak_explicit(first, &f, c->episodes, memory_order_release,
                                                  memory_order_relaxed)) {
            /* after this the waiters at barrier c->episodes leave it for the runtime's, where the
             * task can be run by any of them */
            ag_team_broke(c->set);
            ag_barrier_cancel(c->bar);
            return;
        }
}
