/* barwait_isa.c — the semantics of the barrier ISA of 000 §4.1 ("ISA and kernel integration", seed
 * 000_15c0f7e7309a66d9), with the HBS state of 000 §4.2: a step-driven model in virtual time.
 *
 * Idea: the kernel vets create_barrier(thread_list, timeout) and writes a group MSR (participation mask
 * P, timeout t); every thread executes the privileged barinit; the unprivileged barwait records the
 * executing hardware thread's arrival in the group's state mask S and blocks it; when every participant
 * has arrived (000 §4.2: the AND of S) all of them are released and S is copied back from P. If a waiting
 * thread reaches the timeout point the kernel interrupts every participant and, of 000 §4.1's two
 * alternatives, we take "raise a signal to the application": every member's barwait fails (or, for a
 * member not in barwait, a signal), and the group stays broken until every member has executed barinit.
 * A context switch keeps the arrival in S (the HBS is shared, not context) and the kernel keeps, in the
 * saved context, whether its barwait has completed or failed meanwhile; a resumed barwait that is still
 * pending re-sets its own bit, which is idempotent: nothing is lost or counted twice.
 *
 * Invariants (checked by tests/sim/test_barwait_isa.c):
 *   I1  a thread's bit is set in S exactly while it is inside a barwait on that group whose episode has
 *       not ended (WAITING, or OFF with its barwait saved and pending);
 *   I2  an episode ends once, either completed (S == all ones: every member arrived in it) or timed out;
 *       at its end every member gets exactly one event for it;
 *   I3  threads whose bit is clear in P (P has 1 there) are never touched by the group.
 * Assumptions (none of them numbers fitted to timings): docs/sim-hw.md, "hw-barwait: the ISA's semantics".
 */
#include <stdlib.h>

#include "barwait_isa.h"

#define BIT(hw) ((uint64_t)1 << (hw))

static void emit(struct bwi *b, enum bwi_event_kind k, unsigned hw, unsigned g, uint64_t ep, uint64_t time,
                 int last, int waiting)
{
    struct bwi_event ev = {k, hw, g, ep, time, last, waiting};
    if (b->emit)
        b->emit(b->arg, &ev);
}

int bwi_init(struct bwi *b, unsigned n, unsigned m, uint64_t tmax, bwi_emit_fn fn, void *arg)
{
    if (n == 0 || n > BWI_MAX_THREADS || m == 0 || tmax == 0)
        return -1;
    *b = (struct bwi){.n = n, .m = m, .tmax = tmax, .emit = fn, .arg = arg};
    b->ones = n == 64 ? ~(uint64_t)0 : BIT(n) - 1;
    b->grp = calloc(m, sizeof *b->grp);
    return b->grp ? 0 : -1;
}

void bwi_free(struct bwi *b)
{
    free(b->grp);
    b->grp = NULL;
}

uint64_t bwi_members(const struct bwi *b, unsigned id)
{
    return id < b->m && b->grp[id].used ? ~b->grp[id].p & b->ones : 0;
}

uint64_t bwi_arrived(const struct bwi *b, unsigned id)
{
    return id < b->m && b->grp[id].used ? b->grp[id].s & ~b->grp[id].p : 0;
}

int bwi_broken(const struct bwi *b, unsigned id)
{
    return id < b->m && b->grp[id].used && b->grp[id].need_init != 0;
}

int bwi_set_process(struct bwi *b, unsigned hw, unsigned proc)
{
    if (hw >= b->n)
        return -1;
    for (unsigned i = 0; i < b->m; i++)
        if (bwi_members(b, i) & BIT(hw))
            return -1; /* the kernel moves a thread between processes only when no group names it */
    b->th[hw].proc = proc;
    return 0;
}

/* The end of group g's episode by completion: S == all ones, i.e. every member's bit set (I1: every
 * member is inside a barwait of this episode). Each member gets one RELEASE: at once if it waits on the
 * core, at its resume if switched out (recorded in its saved context). S := P starts the next episode. */
static void complete(struct bwi *b, unsigned g, unsigned last)
{
    struct bwi_group *G = &b->grp[g];
    uint64_t mem = ~G->p & b->ones;
    for (unsigned hw = 0; hw < b->n; hw++) {
        struct bwi_thread *T = &b->th[hw];
        if (!(mem & BIT(hw)))
            continue; /* I3: a non-member is not looked at */
        if (T->run == BWI_WAITING && T->g == g) {
            T->run = BWI_RUNNING;
            emit(b, BWI_EV_RELEASE, hw, g, G->episode, b->now, 0, 0);
        } else if (T->run == BWI_OFF && T->wait_saved && T->g == g && T->saved == 0) {
            T->saved = 1;
        } else if (hw == last) {
            emit(b, BWI_EV_RELEASE, hw, g, G->episode, b->now, 1, 0);
        }
    }
    G->s = G->p; /* 000 §4.2: "copies the P participation bitmask back to the S state bitmask" */
    G->armed = 0;
    G->episode++;
}

/* The end of group g's episode by timeout at virtual time `when`: the kernel interrupts every member
 * (000 §4.1). Waiters' barwaits fail (a switched-out waiter's at its resume), the others are signalled;
 * S := P drops the arrivals (I1 holds: nobody is inside a barwait of g any more) and the group is broken
 * until every member has executed barinit. */
static void time_out(struct bwi *b, unsigned g, uint64_t when)
{
    struct bwi_group *G = &b->grp[g];
    uint64_t mem = ~G->p & b->ones;
    for (unsigned hw = 0; hw < b->n; hw++) {
        struct bwi_thread *T = &b->th[hw];
        if (!(mem & BIT(hw)))
            continue;
        if (T->run == BWI_WAITING && T->g == g) {
            T->run = BWI_RUNNING;
            emit(b, BWI_EV_FAIL, hw, g, G->episode, when, 0, 1);
        } else if (T->run == BWI_OFF && T->wait_saved && T->g == g && T->saved == 0) {
            T->saved = -1;
        } else { /* not in barwait, or switched out after its own episode ended: a signal */
            emit(b, BWI_EV_FAIL, hw, g, G->episode, when, 0, 0);
        }
    }
    G->s = G->p;
    G->armed = 0;
    G->need_init = mem;
    G->episode++;
}

void bwi_advance(struct bwi *b, uint64_t now)
{
    if (now > b->now)
        b->now = now;
    for (;;) { /* due timeouts in deadline order, lowest group index on ties */
        unsigned best = b->m;
        for (unsigned g = 0; g < b->m; g++) {
            const struct bwi_group *G = &b->grp[g];
            if (G->used && G->armed && G->deadline <= b->now &&
                (best == b->m || G->deadline < b->grp[best].deadline))
                best = g;
        }
        if (best == b->m)
            return;
        time_out(b, best, b->grp[best].deadline);
    }
}

enum bwi_status bwi_create(struct bwi *b, uint64_t now, unsigned proc, uint64_t mask, uint64_t t, unsigned *id)
{
    bwi_advance(b, now);
    /* 000 §4.1 (a): "determine if the application's desired timeout is acceptable" */
    if (t == 0 || t > b->tmax)
        return BWI_E_TIMEOUT;
    /* assumed vetting: the list names existing threads, all allotted to the calling process */
    if (mask == 0 || (mask & ~b->ones))
        return BWI_E_MASK;
    for (unsigned hw = 0; hw < b->n; hw++)
        if ((mask & BIT(hw)) && b->th[hw].proc != proc)
            return BWI_E_MASK;
    /* 000 §4.1 (b): "attempt to find an unused barrier group MSR" (the lowest free index, assumed) */
    unsigned g = 0;
    while (g < b->m && b->grp[g].used)
        g++;
    if (g == b->m)
        return BWI_E_NOSPACE;
    /* wrmsr + barrier-create (000 §4.2): P = 0 at participants, 1 elsewhere; S := P. The kernel then has
     * every thread execute barinit (000 §4.1), which clears the member's S bit: already clear here. */
    b->grp[g] = (struct bwi_group){.used = 1, .owner = proc, .p = ~mask & b->ones, .t = t};
    b->grp[g].s = b->grp[g].p;
    *id = g;
    return BWI_OK;
}

/* A group of the thread's process at index id, or NULL (#GP: NOGROUP). */
static struct bwi_group *group_of(struct bwi *b, unsigned proc, unsigned id)
{
    if (id >= b->m || !b->grp[id].used || b->grp[id].owner != proc)
        return NULL;
    return &b->grp[id];
}

enum bwi_status bwi_destroy(struct bwi *b, uint64_t now, unsigned proc, unsigned id)
{
    bwi_advance(b, now);
    struct bwi_group *G = group_of(b, proc, id);
    if (!G)
        return BWI_E_NOGROUP;
    for (unsigned hw = 0; hw < b->n; hw++) {
        const struct bwi_thread *T = &b->th[hw];
        if ((T->run == BWI_WAITING || (T->run == BWI_OFF && T->wait_saved)) && T->g == id)
            return BWI_E_BUSY; /* a barwait still inside the group: freeing it would lose its outcome */
    }
    *G = (struct bwi_group){0};
    return BWI_OK;
}

enum bwi_status bwi_barinit(struct bwi *b, uint64_t now, unsigned hw, unsigned id, int privileged)
{
    bwi_advance(b, now);
    if (hw >= b->n)
        return BWI_E_BUSY;
    if (!privileged)
        return BWI_E_PRIV; /* 000 §4.1: "a privileged barrier init instruction" */
    struct bwi_thread *T = &b->th[hw];
    if (T->run == BWI_WAITING || (T->run == BWI_OFF && T->wait_saved))
        return BWI_E_BUSY; /* clearing its S bit would cancel a recorded arrival (I1) */
    struct bwi_group *G = group_of(b, T->proc, id);
    if (!G)
        return BWI_E_NOGROUP;
    if (G->p & BIT(hw))
        return BWI_E_NOTMEMBER;
    /* 000 §4.2: barrier-init "store[s] 0 at the corresponding S location": a no-op by I1 (the thread is not
     * inside a barwait); it also counts toward re-arming a broken group. */
    G->s &= ~BIT(hw);
    G->need_init &= ~BIT(hw);
    return BWI_OK;
}

enum bwi_status bwi_barwait(struct bwi *b, uint64_t now, unsigned hw, unsigned id)
{
    bwi_advance(b, now);
    if (hw >= b->n || b->th[hw].run != BWI_RUNNING)
        return BWI_E_BUSY; /* a blocked or switched-out thread issues nothing */
    struct bwi_thread *T = &b->th[hw];
    struct bwi_group *G = group_of(b, T->proc, id);
    if (!G)
        return BWI_E_NOGROUP;
    if (G->p & BIT(hw))
        return BWI_E_NOTMEMBER; /* I3: the refusal leaves S untouched */
    if (G->need_init)
        return BWI_E_BROKEN;
    /* I1: a running thread is inside no barwait, so its bit is clear; setting it is its one arrival */
    G->s |= BIT(hw);
    if (!G->armed) { /* the first arrival of the episode starts the timeout (000 §4.1: t in cycles) */
        G->armed = 1;
        G->deadline = b->now + G->t;
    }
    if (G->s == b->ones) { /* 000 §4.2: the AND over S; every member has arrived in this episode */
        complete(b, id, hw);
        return BWI_OK;
    }
    T->run = BWI_WAITING;
    T->g = id;
    return BWI_BLOCKED;
}

enum bwi_status bwi_deschedule(struct bwi *b, uint64_t now, unsigned hw)
{
    bwi_advance(b, now);
    if (hw >= b->n || b->th[hw].run == BWI_OFF)
        return BWI_E_BUSY;
    struct bwi_thread *T = &b->th[hw];
    /* Inside barwait: the interrupted instruction is to be restarted (000 §4.1); its arrival stays in S,
     * the kernel saves which group and episode it waits in. */
    T->wait_saved = T->run == BWI_WAITING;
    T->saved = 0;
    T->saved_ep = T->wait_saved ? b->grp[T->g].episode : 0;
    T->run = BWI_OFF;
    return BWI_OK;
}

enum bwi_status bwi_resume(struct bwi *b, uint64_t now, unsigned hw)
{
    bwi_advance(b, now);
    if (hw >= b->n || b->th[hw].run != BWI_OFF)
        return BWI_E_BUSY;
    struct bwi_thread *T = &b->th[hw];
    T->run = BWI_RUNNING;
    if (!T->wait_saved)
        return BWI_OK;
    T->wait_saved = 0;
    if (T->saved == 1) /* the episode completed while switched out: barwait returns success, once */
        emit(b, BWI_EV_RELEASE, hw, T->g, T->saved_ep, b->now, 0, 0);
    else if (T->saved == -1) /* it timed out meanwhile: barwait returns failure, once */
        emit(b, BWI_EV_FAIL, hw, T->g, T->saved_ep, b->now, 0, 1);
    else /* still pending: the restarted barwait sets a bit that is already set (I1), and waits */
        T->run = BWI_WAITING;
    return BWI_OK;
}

const char *bwi_status_name(enum bwi_status s)
{
    static const char *const names[] = {"OK", "BLOCKED", "E_NOGROUP", "E_NOTMEMBER", "E_BROKEN",
                                        "E_PRIV", "E_BUSY", "E_TIMEOUT", "E_MASK", "E_NOSPACE"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}
