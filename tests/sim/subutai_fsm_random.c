/* subutai_fsm_random.c — random schedules for sim/hw/subutai_fsm.c (004 §V-A semantics, docs/sim-hw.md).
 *
 * Per seed: 2..8 threads, one mutex, one condition (used with that mutex), one barrier of all threads (of at
 * most pool + 1: episodes of that many), and a pool of 122 queue entries (004 §V-B) or, in one seed of four,
 * 1..4 so that EAGAIN happens. A few hundred random requests from runnable threads (lock, unlock, cond
 * wait, signal, broadcast, barrier wait, also the
 * erroneous ones: unlock or cond wait without the mutex, lock by the owner), then a drain that wakes
 * everybody. A reference (plain arrays, FIFO queues: the SPM queues are linked at the tail and served from
 * the head, 004 §V-A) predicts every status and every answer packet; checked after each request:
 *   - status and the threads the packets release, in order, equal the reference's;
 *   - mutual exclusion: the threads that hold the mutex by the packets they got are at most one, and are the
 *     SPM's owner; FIFO hand-off: the SPM queues (walked, links checked) equal the reference's queues;
 *   - a barrier releases exactly when its last participant arrives, every waiter once;
 *   - no lost wake-up: after the drain every thread runs; no leak: every entry is back in the free list;
 *   - the latency is entry + mops m + cyc c + exit, the packets in order within it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "subutai_fsm.h"

#define TM 8
enum { RUN, W_MX, W_CV, W_BAR };

struct ref {
    unsigned nt, nent, bmax, owner, cnt;
    unsigned mq[TM], nmq, cq[TM], ncq, bq[TM], nbq;
    int st[TM];     /* the reference's thread states */
    int seen[TM];   /* thread states from the FSM's answers */
    int holds[TM];  /* holds the mutex, by the packets it got */
    unsigned exp[TM + 1], nexp;
    enum suf_status est;
};

struct run {
    struct suf s;
    struct ref f;
    unsigned mx, cv, b, seed, brk;
    uint64_t rng;
    int bad, verbose;
};

static unsigned rnd(struct run *u, unsigned n)
{
    u->rng = u->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(u->rng >> 33) % n;
}

static void push(unsigned *q, unsigned *n, unsigned t) { q[(*n)++] = t; }
static unsigned pop(unsigned *q, unsigned *n)
{
    unsigned h = q[0];
    memmove(q, q + 1, --*n * sizeof *q);
    return h;
}

static void wake(struct ref *f, unsigned t)
{
    f->st[t] = RUN;
    f->exp[f->nexp++] = t;
}

static int full(const struct ref *f) { return f->nmq + f->ncq + f->nbq == f->nent; }

/* The reference's unlock by the owner: hand-off to the oldest waiter or free. */
static void ref_unlock(struct ref *f)
{
    f->owner = SUF_NONE;
    if (f->nmq) {
        f->owner = pop(f->mq, &f->nmq);
        wake(f, f->owner);
    }
}

/* The reference's prediction of request q (fills est, exp). */
static void predict(struct ref *f, const struct suf_req *q)
{
    unsigned t = q->thread;
    f->nexp = 0;
    f->est = SUF_OK;
    switch (q->op) {
    case SUF_LOCK:
        if (f->owner == t || (f->owner != SUF_NONE && full(f))) {
            f->est = f->owner == t ? SUF_EDEADLK : SUF_EAGAIN;
            f->exp[f->nexp++] = t;
        } else if (f->owner == SUF_NONE) {
            f->owner = t;
            f->exp[f->nexp++] = t;
        } else {
            push(f->mq, &f->nmq, t);
            f->st[t] = W_MX;
            f->est = SUF_QUEUED;
        }
        break;
    case SUF_UNLOCK:
        if (f->owner != t)
            f->est = SUF_EPERM;
        else
            ref_unlock(f);
        break;
    case SUF_COND_WAIT:
        if (f->owner != t) {
            f->est = SUF_EPERM;
        } else if (full(f)) {
            f->est = SUF_EAGAIN;
            f->exp[f->nexp++] = t;
        } else {
            push(f->cq, &f->ncq, t);
            f->st[t] = W_CV;
            f->est = SUF_QUEUED;
            ref_unlock(f);
        }
        break;
    case SUF_SIGNAL:
    case SUF_BROADCAST:
        for (int k = 0; f->ncq && (k == 0 || q->op == SUF_BROADCAST); k++) {
            unsigned h = pop(f->cq, &f->ncq);
            if (f->owner == SUF_NONE) {
                f->owner = h;
                wake(f, h);
            } else {
                push(f->mq, &f->nmq, h);
                f->st[h] = W_MX;
            }
        }
        break;
    case SUF_BARRIER_WAIT:
        if (f->cnt + 1 < f->bmax && full(f)) {
            f->est = SUF_EAGAIN;
            f->exp[f->nexp++] = t;
        } else if (f->cnt + 1 < f->bmax) {
            f->cnt++;
            push(f->bq, &f->nbq, t);
            f->st[t] = W_BAR;
            f->est = SUF_QUEUED;
        } else {
            f->exp[f->nexp++] = t;
            while (f->nbq)
                wake(f, pop(f->bq, &f->nbq));
            f->cnt = 0;
        }
        break;
    default:
        break;
    }
}

static unsigned seen_st[SUF_EBUSY + 1]; /* statuses met, for the coverage line */
static char first[160];                /* the first failure, for `broken` */

static void fail(struct run *u, unsigned step, const char *what)
{
    if (!u->bad && u->verbose)
        printf("seed %u step %u: %s\n", u->seed, step, what);
    if (!u->bad && !first[0])
        snprintf(first, sizeof first, "seed %u step %u: %s", u->seed, step, what);
    u->bad = 1;
}

#define FAILR(what)                                                                                       \
    do {                                                                                                   \
        fail(u, k, what);                                                                                  \
        return;                                                                                            \
    } while (0)

static int same_q(const struct suf *s, unsigned id, const unsigned *q, unsigned n)
{
    unsigned got[SUF_NENT];
    int k = suf_queue(s, id, got, SUF_NENT);
    return k == (int)n && !memcmp(got, q, n * sizeof *q);
}

/* One request through the FSM and the reference, then every check of the head comment. */
static void step(struct run *u, unsigned k, enum suf_op op, unsigned t)
{
    struct ref *f = &u->f;
    struct suf_req q = {.op = op, .thread = t, .mutex = u->mx,
                        .id = op == SUF_BARRIER_WAIT ? u->b : op == SUF_LOCK || op == SUF_UNLOCK ? u->mx : u->cv};
    static struct suf_res r;
    predict(f, &q);
    suf_request(&u->s, &q, &r);
    seen_st[r.st]++;
    if (r.st != f->est || r.npkt != f->nexp)
        FAILR("status or number of packets differs from the reference");
    if (r.st == SUF_QUEUED)
        f->seen[t] = op == SUF_LOCK ? W_MX : op == SUF_COND_WAIT ? W_CV : W_BAR;
    if (r.st == SUF_OK && op == SUF_UNLOCK)
        f->holds[t] = 0;
    if (r.st == SUF_QUEUED && op == SUF_COND_WAIT)
        f->holds[t] = 0;
    double last = u->s.p.entry;
    for (unsigned i = 0; i < r.npkt; i++) {
        unsigned w = r.pkt[i].thread;
        if (w != f->exp[i])
            FAILR("a packet releases another thread than the reference (FIFO order)");
        if (r.pkt[i].at < last || r.pkt[i].at > r.t - u->s.p.exit)
            FAILR("packet times out of order");
        last = r.pkt[i].at;
        if ((r.st != SUF_OK && r.st != SUF_QUEUED) || w >= f->nt)
            continue; /* an error answer */
        if (op != SUF_BARRIER_WAIT) /* lock granted, hand-off by unlock / cond wait, signal, broadcast */
            f->holds[w] = 1;
        f->seen[w] = RUN;
    }
    if (r.fsm && fabs(r.t - (u->s.p.entry + r.mops * u->s.p.m + r.cyc * u->s.p.c + u->s.p.exit)) > 1e-9)
        FAILR("latency is not entry + mops m + cyc c + exit");
    unsigned nh = 0;
    for (unsigned i = 0; i < f->nt; i++) {
        nh += f->holds[i];
        if (f->holds[i] && suf_value(&u->s, u->mx) != i)
            FAILR("a thread holds the mutex the SPM gives to another");
        if ((f->seen[i] == RUN) != (f->st[i] == RUN)) /* a signal moves a waiter silently: blocked is blocked */
            FAILR("a thread runs or waits by its answers unlike the reference (lost wake-up?)");
    }
    if (nh > 1)
        FAILR("two threads hold the mutex");
    if (suf_value(&u->s, u->mx) != f->owner || suf_value(&u->s, u->b) != f->cnt)
        FAILR("owner or barrier count differs from the reference");
    if (!same_q(&u->s, u->mx, f->mq, f->nmq) || !same_q(&u->s, u->cv, f->cq, f->ncq) ||
        !same_q(&u->s, u->b, f->bq, f->nbq))
        FAILR("an SPM queue differs from the reference's FIFO queue");
    if (suf_free_count(&u->s) != (int)(f->nent - f->nmq - f->ncq - f->nbq))
        FAILR("free list length is not pool - queued (leak)");
}

static unsigned pick_op(struct run *u, unsigned t)
{
    static const enum suf_op own[] = {SUF_UNLOCK, SUF_UNLOCK, SUF_UNLOCK, SUF_COND_WAIT, SUF_COND_WAIT,
                                      SUF_SIGNAL, SUF_BROADCAST, SUF_LOCK};
    static const enum suf_op other[] = {SUF_LOCK, SUF_LOCK, SUF_LOCK, SUF_BARRIER_WAIT, SUF_BARRIER_WAIT,
                                        SUF_SIGNAL, SUF_BROADCAST, SUF_UNLOCK, SUF_COND_WAIT};
    if (u->f.owner == t)
        return own[rnd(u, sizeof own / sizeof own[0])];
    return other[rnd(u, sizeof other / sizeof other[0])];
}

/* Wakes everybody: the owner broadcasts then unlocks, a free mutex takes a cond waiter (a signal from a
 * running thread), and once nobody waits on the mutex or cond every running thread enters the barrier. */
static void drain(struct run *u, unsigned *k)
{
    struct ref *f = &u->f;
    for (unsigned guard = 0; !u->bad && guard < 10 * TM + 10; guard++) {
        unsigned r = TM;
        for (unsigned i = 0; i < f->nt && r == TM; i++)
            if (f->st[i] == RUN)
                r = i;
        if (f->owner != SUF_NONE)
            step(u, (*k)++, f->ncq ? SUF_BROADCAST : SUF_UNLOCK, f->owner);
        else if (f->ncq) /* a running thread signals, or, if none runs, one outside the schedule */
            step(u, (*k)++, SUF_SIGNAL, r < TM ? r : 100);
        else if (f->nbq && r < TM)
            step(u, (*k)++, SUF_BARRIER_WAIT, r);
        else
            break;
    }
    for (unsigned i = 0; i < f->nt; i++)
        if (f->seen[i] != RUN)
            fail(u, *k, "a thread never woke up (lost wake-up)");
    if (suf_free_count(&u->s) != (int)f->nent)
        fail(u, *k, "queue entries not all returned at the end");
}

static int one(unsigned seed, unsigned brk, int verbose)
{
    static struct run u;
    memset(&u, 0, sizeof u);
    u.seed = seed;
    u.verbose = verbose;
    u.rng = seed * 0x9e3779b97f4a7c15ull + 1;
    struct ref *f = &u.f;
    f->nt = 2 + rnd(&u, TM - 1);
    f->nent = seed % 4 == 0 ? 1 + rnd(&u, 4) : SUF_NENT;
    f->bmax = f->nt < f->nent + 1 ? f->nt : f->nent + 1; /* its waiters fit the pool, or the drain can't end */
    f->owner = SUF_NONE;
    struct suf_params p = {1, 2, 4, 1};
    suf_init(&u.s, &p, f->nent);
    u.s.brk = brk;
    struct suf_res r;
    struct suf_req a = {.op = SUF_ALLOC, .kind = SUF_MUTEX};
    suf_request(&u.s, &a, &r), u.mx = r.id;
    a.kind = SUF_COND, suf_request(&u.s, &a, &r), u.cv = r.id;
    a.kind = SUF_BARRIER, a.max = f->bmax, suf_request(&u.s, &a, &r), u.b = r.id;
    unsigned k = 0, steps = 100 + rnd(&u, 400);
    for (; k < steps && !u.bad; k++) {
        unsigned run[TM], nr = 0;
        for (unsigned i = 0; i < f->nt; i++)
            if (f->st[i] == RUN)
                run[nr++] = i;
        if (!nr)
            break; /* everybody waits: the drain's signaller is a running thread, so stop here */
        unsigned t = run[rnd(&u, nr)];
        step(&u, k, pick_op(&u, t), t);
    }
    if (!u.bad)
        drain(&u, &k);
    return u.bad;
}

/* Seeds 1..seeds; returns how many failed (with verbose, also when a status never came up). */
int suf_random(unsigned seeds, unsigned brk, int verbose)
{
    unsigned bad = 0;
    memset(seen_st, 0, sizeof seen_st);
    first[0] = 0;
    for (unsigned s = 1; s <= seeds; s++)
        bad += one(s, brk, verbose);
    if (verbose) {
        printf("%u random schedules, %u failed; requests: ok %u, queued %u, EAGAIN %u, EDEADLK %u, EPERM %u\n",
               seeds, bad, seen_st[SUF_OK], seen_st[SUF_QUEUED], seen_st[SUF_EAGAIN], seen_st[SUF_EDEADLK],
               seen_st[SUF_EPERM]);
        if (!seen_st[SUF_QUEUED] || !seen_st[SUF_EAGAIN] || !seen_st[SUF_EDEADLK] || !seen_st[SUF_EPERM])
            bad++;
    } else if (first[0]) {
        printf("  first failure: %s\n", first);
    }
    return (int)bad;
}
