/* subutai_fsm.c — one Subutai-HW: FSM + 1 KiB SPM (004, seed 004_bffc6c40a88a61a2: §V-A architecture,
 * Figures 6-7 structures, §V-A "two scenarios where the SPM cannot handle a request", §V-B and Tables
 * III-IV latencies, the text after Table IV for the barrier's release loop). Layout and API: subutai_fsm.h.
 *
 * Cost: each SPM access of a state is one m (004 §V-B: "Each memory operation can either be a write or read
 * operation in a given m cycle"), each FSM cycle without an SPM access one c, and FSMentry + FSMexit once per
 * request (004 §V-B). The operation lists below are the model's; 004 gives one in words (Mutex Lock, §V-B:
 * read the value; if free rewrite it and notify the NI; else allocate an entry "up to 4" accesses, then 6 to
 * write the thread and link it at the tail) and the barrier's per-thread period (11m + 3c, text after Table
 * IV). The others are reconstructed from Table III's counts with the same sub-steps (alloc, enqueue, dequeue,
 * free) everywhere; where the reconstruction does not reach Table III's figure, tests/sim/test_subutai_fsm.c
 * prints both and docs/sim-hw.md says why. Nothing is padded to meet a published figure.
 *
 * Sub-steps (accesses; the larger count when a neighbour entry exists):
 *   alloc  (1..4)  pop the free head e: read e; if e has a next f: read f, write f (prev = nil), write e
 *                  (detached, allocated). 1 when e is the last free entry.
 *   enq    (4..6)  read C1; write e (F, prev = tail); write e's thread word; if a tail: read, write its next;
 *                  write C1 (tail = e).
 *   deq    (2..4)  (C1 already read) read head h; write C1 (head = h's next); if a next n: read, write
 *                  n's prev = nil.
 *   free   (1..3)  write e (F = 0, next = free head); if a free head: read, write its prev = e.
 * Requests refused before the FSM (fsm = 0, no time): unknown id, wrong kind, unlock or cond wait by a
 * non-owner, a cond used with a second mutex, dealloc of a busy primitive. These need facts no Table III
 * path reads (an unlock's best case is 2 accesses: the queue word and the value write, no owner read), so
 * the model assumes Subutai-SW (004 §IV: library and driver, which allocated the id, know its type, and
 * delivered the mutex grant) refuses them; the statuses follow POSIX.
 */
#include "subutai_fsm.h"

#include <stdio.h>
#include <string.h>

#include "machine.h"

#define C0(i) (3u * (i))
#define C1(i) (3u * (i) + 1u)
#define C2(i) (3u * (i) + 2u)
#define E0(e) (3u * SUF_NCTRL + 2u * (e))
#define E1(e) (3u * SUF_NCTRL + 2u * (e) + 1u)
#define HI(v) (((v) >> 16) & 0xffffu)
#define LO(v) ((v) & 0xffffu)
#define PAIR(h, l) (((uint32_t)(h) << 16) | ((uint32_t)(l) & 0xffffu))
#define E_PREV(v) (((v) >> 16) & SUF_NIL)
#define E_NEXT(v) ((v) & SUF_NIL)
#define E_WORD(f, prev, next) (((uint32_t)(f) << 31) | ((uint32_t)(prev) << 16) | (uint32_t)(next))
#define EMPTYQ PAIR(SUF_NIL, SUF_NIL)

static uint32_t rd(struct suf *s, unsigned w)
{
    s->r->mops++;
    return s->spm[w];
}

static void wr(struct suf *s, unsigned w, uint32_t v)
{
    s->r->mops++;
    s->spm[w] = v;
}

/* One FSM cycle that hands a packet for `thread` to the NI (004 §V-B: "the NI is notified that a new
 * packet can be injected (latency = c)"); its injection time counts FSMentry and everything so far. */
static void inject(struct suf *s, unsigned thread)
{
    struct suf_res *r = s->r;
    r->cyc++;
    if (r->npkt < SUF_MAXPKT)
        r->pkt[r->npkt++] = (struct suf_pkt){thread, s->p.entry + r->mops * s->p.m + r->cyc * s->p.c};
}

int suf_params_load(const struct sim_machine *m, struct suf_params *p, char *err, size_t errlen)
{
    double nc, ne;
    if (sim_machine_param(m, "devices.subutai_ni.c", &p->c, err, errlen) ||
        sim_machine_param(m, "devices.subutai_ni.m", &p->m, err, errlen) ||
        sim_machine_param(m, "devices.subutai_ni.fsm_entry", &p->entry, err, errlen) ||
        sim_machine_param(m, "devices.subutai_ni.fsm_exit", &p->exit, err, errlen) ||
        sim_machine_param(m, "devices.subutai_ni.spm_control_structures", &nc, err, errlen) ||
        sim_machine_param(m, "devices.subutai_ni.spm_queue_entries", &ne, err, errlen))
        return -1;
    if (nc != SUF_NCTRL || ne != SUF_NENT) {
        snprintf(err, errlen, "subutai FSM: the SPM model holds %d control structures and %d entries, the machine "
                 "says %g and %g", SUF_NCTRL, SUF_NENT, nc, ne);
        return -1;
    }
    return 0;
}

void suf_init(struct suf *s, const struct suf_params *p, unsigned nent)
{
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->nent = nent > SUF_NENT ? SUF_NENT : nent;
    /* the driver's initialisation (004 §V-A): every control structure free, entries 0..nent-1 in a
     * doubly linked free list (untimed) */
    for (unsigned e = 0; e < s->nent; e++)
        s->spm[E0(e)] = E_WORD(0, e == 0 ? SUF_NIL : e - 1, e + 1 == s->nent ? SUF_NIL : e + 1);
    s->fh = s->nent ? 0 : SUF_NIL;
}

/* Invariant on return: e is off the free list, prev = next = nil, F = 1; fh is the free list's head. */
static unsigned alloc_entry(struct suf *s)
{
    unsigned e = s->fh;
    unsigned f = E_NEXT(rd(s, E0(e)));
    if (f != SUF_NIL) {
        wr(s, E0(f), E_WORD(0, SUF_NIL, E_NEXT(rd(s, E0(f)))));
        wr(s, E0(e), E_WORD(1, SUF_NIL, SUF_NIL));
    }
    s->fh = f;
    return e;
}

/* Invariant on return: e heads the free list (F = 0), its old head's prev names e. */
static void free_entry(struct suf *s, unsigned e)
{
    if (s->brk == SUF_BRK_LEAK)
        return;
    wr(s, E0(e), E_WORD(0, SUF_NIL, s->fh));
    if (s->fh != SUF_NIL)
        wr(s, E0(s->fh), E_WORD(0, e, E_NEXT(rd(s, E0(s->fh)))));
    s->fh = e;
}

/* Appends e (its thread word written when who_new) at id's tail: FIFO order is arrival order. */
static void enq(struct suf *s, unsigned id, unsigned e, unsigned thread, int who_new)
{
    uint32_t q = rd(s, C1(id));
    unsigned t = LO(q);
    wr(s, E0(e), E_WORD(1, t, SUF_NIL));
    if (who_new)
        wr(s, E1(e), PAIR(thread, 0));
    if (t != SUF_NIL)
        wr(s, E0(t), E_WORD(1, E_PREV(rd(s, E0(t))), e));
    wr(s, C1(id), PAIR(t == SUF_NIL ? e : HI(q), e));
}

/* Removes the oldest entry of id's queue (q = its C1 word, already read) and returns it; the queue's
 * remaining entries keep their order. SUF_BRK_LIFO takes the newest instead (tests). */
static unsigned deq(struct suf *s, unsigned id, uint32_t q)
{
    if (s->brk == SUF_BRK_LIFO) {
        unsigned t = LO(q), p = E_PREV(rd(s, E0(t)));
        wr(s, C1(id), p == SUF_NIL ? EMPTYQ : PAIR(HI(q), p));
        if (p != SUF_NIL)
            wr(s, E0(p), E_WORD(1, E_PREV(rd(s, E0(p))), SUF_NIL));
        return t;
    }
    unsigned h = HI(q), n = E_NEXT(rd(s, E0(h)));
    wr(s, C1(id), n == SUF_NIL ? EMPTYQ : PAIR(n, LO(q)));
    if (n != SUF_NIL)
        wr(s, E0(n), E_WORD(1, SUF_NIL, E_NEXT(rd(s, E0(n)))));
    return h;
}

/* Allocation (Table III: best 4m + c, worst (n x m) + (3m + c), packet at (k x m) + (m + c)): read F of
 * control structure 0, 1, ... until a free one (k reads), claim it, answer with the id, clear its queue and
 * set its value (a barrier's participant count in "max value", Fig. 6). */
static void st_alloc(struct suf *s, const struct suf_req *q)
{
    unsigned k = 0;
    while (k < SUF_NCTRL && rd(s, C0(k)) >> 31)
        k++;
    if (k == SUF_NCTRL) { /* no control structure left: SW-only fallback (004 §V-A) */
        inject(s, q->thread);
        s->r->st = SUF_ENOSPC;
        return;
    }
    wr(s, C0(k), (1u << 31) | k); /* F, NI ID 0 (one NI modelled), self pointer */
    inject(s, q->thread);
    wr(s, C1(k), EMPTYQ);
    wr(s, C2(k), PAIR(q->kind == SUF_MUTEX ? SUF_NONE : 0, q->kind == SUF_BARRIER ? q->max : 0));
    s->kind[k] = q->kind;
    s->cv_mx[k] = SUF_NONE;
    s->r->id = k;
}

/* Mutex Lock (004 §V-B in words): read the value; free: write the owner and answer (2m + c); owned:
 * queue the caller (1 + alloc + enq = 6..11m, no packet). Owner itself: EDEADLK; no entry: EAGAIN. */
static void st_lock(struct suf *s, unsigned id, unsigned who)
{
    uint32_t v = rd(s, C2(id));
    if (HI(v) == SUF_NONE) {
        wr(s, C2(id), PAIR(who, LO(v)));
        inject(s, who);
        return;
    }
    if (HI(v) == who || s->fh == SUF_NIL) {
        inject(s, who); /* the error answer */
        s->r->st = HI(v) == who ? SUF_EDEADLK : SUF_EAGAIN;
        return;
    }
    enq(s, id, alloc_entry(s), who, 1);
    s->r->st = SUF_QUEUED;
}

/* Mutex Unlock: read the queue word; empty: write "no owner" (2m, nothing to send); else hand the mutex
 * to the oldest waiter: read its thread, write it as owner, answer it, dequeue and free its entry
 * (1 + 1 + 1 + deq + free = 6..10m, + c). Ownership was checked before the FSM. */
static void st_unlock(struct suf *s, unsigned id)
{
    uint32_t q = rd(s, C1(id));
    if (HI(q) == SUF_NIL) {
        wr(s, C2(id), PAIR(SUF_NONE, 0));
        return;
    }
    unsigned h = s->brk == SUF_BRK_LIFO ? LO(q) : HI(q);
    unsigned who = HI(rd(s, E1(h)));
    wr(s, C2(id), PAIR(who, 0));
    inject(s, who);
    deq(s, id, q);
    free_entry(s, h);
}

/* Condition Wait (Table III: 5m + c + Mutex Unlock .. 10m + c + Mutex Unlock): queue the caller on the
 * cond (alloc + enq = 5..10m), one cycle to chain into Mutex Unlock, then Mutex Unlock's own accesses. The
 * caller leaves when a signal/broadcast makes it the mutex's owner. No entry: EAGAIN, nothing changed. */
static void st_cond_wait(struct suf *s, unsigned cv, unsigned mx, unsigned who)
{
    if (s->fh == SUF_NIL) {
        inject(s, who);
        s->r->st = SUF_EAGAIN;
        return;
    }
    enq(s, cv, alloc_entry(s), who, 1);
    s->r->cyc++; /* into the Mutex Unlock state */
    st_unlock(s, mx);
    s->cv_mx[cv] = mx;
    s->r->st = SUF_QUEUED;
}

/* Condition Signal: read the cond's queue word (empty: m, 004's best); take its oldest waiter (deq), read
 * the mutex's value; free mutex: the waiter becomes owner and is answered, its entry freed; owned: the
 * entry moves to the mutex queue's tail as it is (its thread word kept), 004's no-thundering-herd queueing
 * (§V-A). Up to 11m + c (004 Table III: 29m + 2c; docs/sim-hw.md). */
static void st_signal(struct suf *s, unsigned cv, unsigned mx)
{
    uint32_t q = rd(s, C1(cv));
    if (HI(q) == SUF_NIL)
        return;
    unsigned h = deq(s, cv, q);
    uint32_t v = rd(s, C2(mx));
    if (HI(v) == SUF_NONE) {
        unsigned who = HI(rd(s, E1(h)));
        wr(s, C2(mx), PAIR(who, 0));
        inject(s, who);
        free_entry(s, h);
    } else {
        enq(s, mx, h, 0, 0);
    }
}

/* Condition Broadcast: empty: m. Free mutex: the oldest waiter becomes owner (read it, its thread, write
 * owner, answer), the rest become the mutex's queue (fix the new head's prev, write the mutex's queue word),
 * its entry freed, the cond emptied: up to 12m + c. Owned mutex: the whole cond queue is spliced onto the
 * mutex queue's tail (read mutex queue word; link tail <-> head: 4; write both queue words): 9m. Only one
 * thread runs, the owner (004 §V-B after Table IV). 004 Table III: 18m + c (docs/sim-hw.md). */
static void st_broadcast(struct suf *s, unsigned cv, unsigned mx)
{
    uint32_t q = rd(s, C1(cv));
    if (HI(q) == SUF_NIL)
        return;
    unsigned h = HI(q);
    uint32_t v = rd(s, C2(mx));
    if (HI(v) == SUF_NONE) {
        unsigned n = E_NEXT(rd(s, E0(h)));
        unsigned who = HI(rd(s, E1(h)));
        wr(s, C2(mx), PAIR(who, 0));
        inject(s, who);
        if (n != SUF_NIL) { /* a free mutex has an empty queue: the rest becomes its queue */
            wr(s, E0(n), E_WORD(1, SUF_NIL, E_NEXT(rd(s, E0(n)))));
            wr(s, C1(mx), PAIR(n, LO(q)));
        }
        free_entry(s, h);
    } else {
        uint32_t mq = rd(s, C1(mx));
        unsigned mt = LO(mq);
        if (mt != SUF_NIL) {
            wr(s, E0(mt), E_WORD(1, E_PREV(rd(s, E0(mt))), h));
            wr(s, E0(h), E_WORD(1, mt, E_NEXT(rd(s, E0(h)))));
        }
        wr(s, C1(mx), PAIR(mt == SUF_NIL ? h : HI(mq), LO(q)));
    }
    wr(s, C1(cv), EMPTYQ);
}

/* One thread of a barrier's release (004 text after Table IV: one packet per 11m + 3c): read the count and
 * the queue word, dequeue the oldest, read its thread, free its entry, write count - 1; a cycle for the loop
 * test, one to advance, one to answer. 11m + 3c while a next waiter exists, 9m + 3c for the last one. */
static void release_one(struct suf *s, unsigned id)
{
    uint32_t v = rd(s, C2(id));
    uint32_t q = rd(s, C1(id));
    unsigned h = deq(s, id, q);
    unsigned who = HI(rd(s, E1(h)));
    free_entry(s, h);
    wr(s, C2(id), PAIR(HI(v) - 1, LO(v)));
    s->r->cyc += 2;
    inject(s, who);
}

/* Barrier Wait: read the value word (count | max). Not the last: count + 1, queue the caller (2 + alloc +
 * enq = 7..12m; 004's best 7m). The last: answer it (m + c, 004's first packet), then release every queued
 * thread oldest first. No entry for a non-last arrival: EAGAIN, not counted. */
static void st_barrier(struct suf *s, unsigned id, unsigned who)
{
    uint32_t v = rd(s, C2(id));
    unsigned need = LO(v) - (s->brk == SUF_BRK_BARRIER_EARLY && LO(v) > 2);
    if (HI(v) + 1 < need) {
        if (s->fh == SUF_NIL) {
            inject(s, who);
            s->r->st = SUF_EAGAIN;
            return;
        }
        wr(s, C2(id), PAIR(HI(v) + 1, LO(v)));
        enq(s, id, alloc_entry(s), who, 1);
        s->r->st = SUF_QUEUED;
        return;
    }
    inject(s, who);
    for (unsigned k = 0; k < HI(v); k++)
        release_one(s, id);
}

static int has_waiters(const struct suf *s, unsigned id)
{
    return HI(s->spm[C1(id)]) != SUF_NIL;
}

/* The refusals assumed in Subutai-SW (head comment): 0 to go on into the FSM. */
static enum suf_status sw_check(const struct suf *s, const struct suf_req *q)
{
    static const enum suf_kind need[] = {[SUF_LOCK] = SUF_MUTEX, [SUF_UNLOCK] = SUF_MUTEX,
                                         [SUF_BARRIER_WAIT] = SUF_BARRIER, [SUF_COND_WAIT] = SUF_COND,
                                         [SUF_SIGNAL] = SUF_COND, [SUF_BROADCAST] = SUF_COND};
    if (q->thread >= SUF_NONE)
        return SUF_EINVAL;
    if (q->op == SUF_ALLOC)
        return q->kind == SUF_BARRIER && (q->max == 0 || q->max >= SUF_NONE) ? SUF_EINVAL : SUF_OK;
    if (q->id >= SUF_NCTRL || !(s->spm[C0(q->id)] >> 31))
        return SUF_EINVAL;
    if (q->op == SUF_DEALLOC)
        return has_waiters(s, q->id) || (s->kind[q->id] == SUF_MUTEX && HI(s->spm[C2(q->id)]) != SUF_NONE) ||
                       (s->kind[q->id] != SUF_MUTEX && HI(s->spm[C2(q->id)]) != 0)
                   ? SUF_EBUSY
                   : SUF_OK;
    if (s->kind[q->id] != need[q->op])
        return SUF_EINVAL;
    if (q->op == SUF_UNLOCK)
        return HI(s->spm[C2(q->id)]) == q->thread ? SUF_OK : SUF_EPERM;
    if (q->op == SUF_LOCK || q->op == SUF_BARRIER_WAIT)
        return SUF_OK;
    /* cond ops: the mutex must be a mutex; a cond with waiters keeps its mutex (POSIX) */
    if (q->mutex >= SUF_NCTRL || !(s->spm[C0(q->mutex)] >> 31) || s->kind[q->mutex] != SUF_MUTEX)
        return SUF_EINVAL;
    if (has_waiters(s, q->id) && s->cv_mx[q->id] != q->mutex)
        return SUF_EINVAL;
    if (q->op == SUF_COND_WAIT && HI(s->spm[C2(q->mutex)]) != q->thread)
        return SUF_EPERM;
    return SUF_OK;
}

enum suf_status suf_request(struct suf *s, const struct suf_req *q, struct suf_res *r)
{
    memset(r, 0, sizeof *r);
    s->r = r;
    r->st = sw_check(s, q);
    if (r->st != SUF_OK)
        return r->st;
    r->fsm = 1;
    switch (q->op) {
    case SUF_ALLOC: st_alloc(s, q); break;
    case SUF_DEALLOC: /* Deallocation (3m): clear the three words */
        wr(s, C0(q->id), 0);
        wr(s, C1(q->id), 0);
        wr(s, C2(q->id), 0);
        s->kind[q->id] = 0;
        break;
    case SUF_LOCK: st_lock(s, q->id, q->thread); break;
    case SUF_UNLOCK: st_unlock(s, q->id); break;
    case SUF_BARRIER_WAIT: st_barrier(s, q->id, q->thread); break;
    case SUF_COND_WAIT: st_cond_wait(s, q->id, q->mutex, q->thread); break;
    case SUF_SIGNAL: st_signal(s, q->id, q->mutex); break;
    case SUF_BROADCAST: st_broadcast(s, q->id, q->mutex); break;
    }
    r->t = s->p.entry + r->mops * s->p.m + r->cyc * s->p.c + s->p.exit;
    s->r = NULL;
    return r->st;
}

unsigned suf_value(const struct suf *s, unsigned id)
{
    return HI(s->spm[C2(id)]);
}

/* Walks a list from `head` checking prev links; -1 on a broken link, a cycle or overflow. */
static int walk(const struct suf *s, unsigned head, unsigned *threads, unsigned cap, int alloc)
{
    unsigned prev = SUF_NIL;
    int n = 0;
    for (unsigned e = head; e != SUF_NIL; e = E_NEXT(s->spm[E0(e)])) {
        uint32_t w = s->spm[E0(e)];
        if (e >= s->nent || n > (int)s->nent || E_PREV(w) != prev || (int)(w >> 31) != alloc)
            return -1;
        if (threads && (unsigned)n < cap)
            threads[n] = HI(s->spm[E1(e)]);
        prev = e;
        n++;
    }
    return n;
}

int suf_queue(const struct suf *s, unsigned id, unsigned *threads, unsigned cap)
{
    uint32_t q = s->spm[C1(id)];
    int n = walk(s, HI(q), threads, cap, 1);
    if (n < 0)
        return -1;
    /* the tail word names the last entry */
    unsigned last = SUF_NIL;
    for (unsigned e = HI(q); e != SUF_NIL; e = E_NEXT(s->spm[E0(e)]))
        last = e;
    return last == LO(q) ? n : -1;
}

int suf_free_count(const struct suf *s)
{
    return walk(s, s->fh, NULL, 0, 0);
}
