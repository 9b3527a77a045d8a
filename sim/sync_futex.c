/* sync_futex.c — the software primitives of a workload (workload.h): what 004 calls SW-only (PThreads on
 * Linux, §III Fig. 3), modeled as the futex algorithms glibc uses, each atomic a flag operation of the
 * coherence model (its line's transfers, queueing, invalidations) and each system call a cost of the
 * machine's os block (sim/machines/README.md; `andgate info --measure` writes it, the papers give none):
 *
 *   mutex (glibc's lowlevellock, Drepper "Futexes Are Tricky" 2011, mutex #2): word 0 free, 1 held,
 *     2 held with possible sleepers. lock: CAS 0->1 (done: "lock empty"); else exchange 2 until it
 *     returns 0, sleeping in FUTEX_WAIT(word, 2) between ("lock queued"). unlock: exchange 0; if the old
 *     value was 2, FUTEX_WAKE one.
 *   condition (a sequence word, as Drepper's condvar without requeue): wait: read the sequence, unlock,
 *     FUTEX_WAIT(seq, read value), then take the mutex as a contended locker (exchange 2), since other
 *     waiters may sleep on it. signal / broadcast: fetch-and-add the sequence, FUTEX_WAKE 1 / all.
 *     A signal between the read and the sleep changes the word: FUTEX_WAIT returns at once (no lost
 *     wake-up).
 *   barrier: the library's algorithm of --algos (the engine's ag_episode) under --wait.
 *
 * FUTEX_WAIT costs the caller os.futex_wait (when the word differs it returns then, EAGAIN); a sleeper
 * gives its hardware thread away and sleeps in the word's FIFO queue; FUTEX_WAKE costs the waker
 * os.futex_wake and the woken resume os.wakeup later on an idle hardware thread (os_sched.c: after a
 * context switch on a busy one). The value check and the queueing happen at one instant of the engine
 * (single-threaded), as the kernel does them under the futex bucket's lock. */
#define _GNU_SOURCE
#include "workload.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

struct fx {
    unsigned nmutex, nwords;
    int *head, *tail;  /* [word]: its sleepers, FIFO */
    int *next;         /* [participant] */
    double *asleep;    /* [participant]: when it fell asleep */
};

static struct fx *fx(struct sim *s) { return s->wl->sync; }

static int fx_setup(struct sim *s, unsigned nmutex, unsigned ncond, char *err, size_t len)
{
    static const int need[] = { SIM_OS_FUTEX_WAIT, SIM_OS_FUTEX_WAKE, SIM_OS_WAKEUP };
    for (unsigned k = 0; k < sizeof need / sizeof *need; k++)
        if (s->m->os_ns[need[k]] < 0)
            return snprintf(err, len, "--workload %s: the software mutex and condition need %s's os.%s (andgate "
                            "info --measure writes the os block for this host; the papers give none for theirs)",
                            s->o->workload, s->m->name, sim_os_names[need[k]]), -1;
    struct fx *f = calloc(1, sizeof *f);
    s->wl->sync = f;
    if (!f)
        return snprintf(err, len, "out of memory"), -1;
    f->nmutex = nmutex;
    f->nwords = nmutex + ncond;
    f->head = malloc((f->nwords + 1) * sizeof *f->head);
    f->tail = malloc((f->nwords + 1) * sizeof *f->tail);
    f->next = malloc(s->n * sizeof *f->next);
    f->asleep = calloc(s->n, sizeof *f->asleep);
    if (!f->head || !f->tail || !f->next || !f->asleep)
        return snprintf(err, len, "out of memory"), -1;
    for (unsigned w = 0; w <= f->nwords; w++)
        f->head[w] = f->tail[w] = -1;
    return 0;
}

static void fx_teardown(struct sim *s)
{
    struct fx *f = fx(s);
    if (f)
        free(f->head), free(f->tail), free(f->next), free(f->asleep), free(f);
    s->wl->sync = NULL;
}

/* An atomic exchange: the machine's read-modify-write (sim_charge_rmw), like a fetch-and-add. */
static uint64_t xchg(struct sim *s, uint32_t i, uint64_t v)
{
    s->res->operations++;
    uint64_t old;
    sim_charge_rmw(s, i, NULL, &old);
    s->slots[i] = v;
    sim_wake_line(s, i);
    sim_yield(s);
    return old;
}

/* FUTEX_WAIT(word w, val): 0 after a sleep and a wake, -1 (EAGAIN) when the word was not val. */
static int futex_wait(struct sim *s, unsigned w, uint64_t val)
{
    struct fx *f = fx(s);
    unsigned me = s->cur;
    struct part *p = &s->part[me];
    double down = p->clock + s->m->os_ns[SIM_OS_FUTEX_WAIT];
    if (s->slots[sim_sync_slot(s, w)] != val) {
        p->clock = down;
        return -1;
    }
    f->next[me] = -1;
    if (f->tail[w] >= 0)
        f->next[f->tail[w]] = (int)me;
    else
        f->head[w] = (int)me;
    f->tail[w] = (int)me;
    f->asleep[me] = down;
    p->state = WAITING;
    sim_os_leave(s, down);
    sim_yield(s);
    return 0;
}

/* FUTEX_WAKE(word w, k): the waker pays os.futex_wake; up to k sleepers, oldest first, resume a wake-up
 * later (not before they finished falling asleep). entering: they go on to take a mutex (CSA). */
static void futex_wake(struct sim *s, unsigned w, int k, int entering)
{
    struct fx *f = fx(s);
    struct part *p = &s->part[s->cur];
    double t = p->clock;
    p->clock += s->m->os_ns[SIM_OS_FUTEX_WAKE];
    while (k-- > 0 && f->head[w] >= 0) {
        int q = f->head[w];
        f->head[w] = f->next[q];
        if (f->head[w] < 0)
            f->tail[w] = -1;
        double from = t > f->asleep[q] ? t : f->asleep[q], up = s->m->os_ns[SIM_OS_WAKEUP];
        if (!s->os) /* the OS model counts time off the CPU itself */
            s->part[q].slept += from + up - f->asleep[q];
        if (entering)
            wl_entering(s, (unsigned)q);
        sim_os_wake(s, (unsigned)q, from, up);
    }
}

/* the contended path: exchange 2 until the mutex was free, sleeping while it is held */
static void lock_contended(struct sim *s, unsigned m)
{
    uint32_t i = sim_sync_slot(s, m);
    while (xchg(s, i, 2) != 0)
        futex_wait(s, m, 2);
}

static int fx_lock(struct sim *s, unsigned m)
{
    uint64_t expected = 0;
    if (sim_cas(&s->run.fl, sim_sync_slot(s, m), &expected, 1) || s->o->broken_sync == 1)
        return 0;
    if (expected == 2)
        futex_wait(s, m, 2);
    lock_contended(s, m);
    return 1;
}

static void fx_unlock(struct sim *s, unsigned m)
{
    if (xchg(s, sim_sync_slot(s, m), 0) == 2)
        futex_wake(s, m, 1, 1);
}

static void fx_cond_wait(struct sim *s, unsigned c, unsigned m)
{
    unsigned w = fx(s)->nmutex + c;
    uint64_t seq = sim_load(&s->run.fl, sim_sync_slot(s, w));
    fx_unlock(s, m);
    futex_wait(s, w, seq);
    lock_contended(s, m);
}

static void fx_wake_cond(struct sim *s, unsigned c, int k)
{
    unsigned w = fx(s)->nmutex + c;
    sim_fetch_add(&s->run.fl, sim_sync_slot(s, w), 1);
    futex_wake(s, w, s->o->broken_sync == 2 ? 0 : k, 1);
}

static void fx_signal(struct sim *s, unsigned c, unsigned m)
{
    (void)m;
    fx_wake_cond(s, c, 1);
}

static void fx_broadcast(struct sim *s, unsigned c, unsigned m)
{
    (void)m;
    fx_wake_cond(s, c, INT_MAX);
}

static int fx_barrier(struct sim *s)
{
    return ag_episode(s->algo, &s->run, s->self, s->cur, AG_NO_DEADLINE, &s->part[s->cur].lane);
}

const struct sim_sync sim_sync_futex = {
    .name = "futex",
    .setup = fx_setup,
    .lock = fx_lock,
    .unlock = fx_unlock,
    .cond_wait = fx_cond_wait,
    .signal = fx_signal,
    .broadcast = fx_broadcast,
    .barrier = fx_barrier,
    .teardown = fx_teardown,
};
