/* subutai_cases.c — the setups that put Subutai-HW's FSM into each Table III row's best and worst case
 * (004, seed 004_bffc6c40a88a61a2, §V-B); subutai_cases.h. */
#include "subutai_cases.h"

struct suf_res suf_go(struct suf *s, enum suf_op op, unsigned id, unsigned thread, unsigned mutex)
{
    struct suf_res r;
    struct suf_req q = {.op = op, .id = id, .thread = thread, .mutex = mutex};
    suf_request(s, &q, &r);
    return r;
}

unsigned suf_mk(struct suf *s, enum suf_kind k, unsigned max)
{
    struct suf_res r;
    struct suf_req q = {.op = SUF_ALLOC, .kind = k, .max = max};
    return suf_request(s, &q, &r) == SUF_OK ? r.id : SUF_NCTRL;
}

unsigned suf_fill(struct suf *s, unsigned left)
{
    unsigned f = suf_mk(s, SUF_MUTEX, 0);
    if (f == SUF_NCTRL)
        return f;
    suf_go(s, SUF_LOCK, f, 1000, 0);
    for (unsigned t = 1001; suf_free_count(s) > (int)left; t++)
        suf_go(s, SUF_LOCK, f, t, 0);
    return f;
}

/* The setup of rows 0-3 (allocation, deallocation, mutex lock and unlock), then their request. */
static struct suf_res mutex_rows(struct suf *s, int row, int worst, const struct suf_paper_params *pp, int *bad)
{
    unsigned mx;
    switch (row) {
    case 0: /* Allocation: the first (best) or the n-th (worst) control structure is free */
        for (unsigned i = 0; worst && i + 1 < pp->n; i++)
            *bad |= suf_mk(s, SUF_MUTEX, 0) == SUF_NCTRL;
        return suf_go(s, SUF_ALLOC, 0, 1, 0);
    case 1: /* Deallocation of an idle mutex */
        mx = suf_mk(s, SUF_MUTEX, 0);
        return suf_go(s, SUF_DEALLOC, mx, 1, 0);
    case 2: /* Mutex Lock: free (best); owned with a waiter queued, 2+ free entries (worst) */
        mx = suf_mk(s, SUF_MUTEX, 0);
        if (worst) {
            suf_go(s, SUF_LOCK, mx, 1, 0);
            suf_go(s, SUF_LOCK, mx, 2, 0);
        }
        return suf_go(s, SUF_LOCK, mx, 3, 0);
    default: /* 3, Mutex Unlock: no waiter (best); 2 waiters and a free list (worst) */
        mx = suf_mk(s, SUF_MUTEX, 0);
        suf_go(s, SUF_LOCK, mx, 1, 0);
        for (unsigned t = 2; worst && t <= 3; t++)
            suf_go(s, SUF_LOCK, mx, t, 0);
        return suf_go(s, SUF_UNLOCK, mx, 1, 0);
    }
}

/* The setup of rows 4-7 (barrier wait, condition wait, broadcast, signal), then their request. */
static struct suf_res wait_rows(struct suf *s, int row, int worst, const struct suf_paper_params *pp)
{
    unsigned mx, cv, b;
    switch (row) {
    case 4: /* Barrier Wait: first arrival taking the last free entry (best); the (rho+1)-th releasing rho */
        if (!worst) {
            suf_fill(s, 1);
            b = suf_mk(s, SUF_BARRIER, 3);
            return suf_go(s, SUF_BARRIER_WAIT, b, 1, 0);
        }
        b = suf_mk(s, SUF_BARRIER, pp->rho + 1);
        for (unsigned t = 0; t < pp->rho; t++)
            suf_go(s, SUF_BARRIER_WAIT, b, t, 0);
        return suf_go(s, SUF_BARRIER_WAIT, b, pp->rho, 0);
    case 5: /* Condition Wait: empty cond, last free entry, mutex without waiters (best); cond with a
             * waiter, 2+ free entries, mutex with 2 waiters (worst) */
        if (!worst)
            suf_fill(s, 1);
        mx = suf_mk(s, SUF_MUTEX, 0);
        cv = suf_mk(s, SUF_COND, 0);
        if (worst) { /* 1 waits on the cond, 2 owns the mutex, 3 and 4 are queued on it */
            suf_go(s, SUF_LOCK, mx, 1, 0);
            suf_go(s, SUF_COND_WAIT, cv, 1, mx);
        }
        for (unsigned t = 2; t <= (worst ? 4u : 2u); t++)
            suf_go(s, SUF_LOCK, mx, t, 0);
        return suf_go(s, SUF_COND_WAIT, cv, 2, mx);
    default: /* 6, Condition Broadcast, 7, Condition Signal: empty cond (best); 2 waiters, free mutex (worst) */
        mx = suf_mk(s, SUF_MUTEX, 0);
        cv = suf_mk(s, SUF_COND, 0);
        for (unsigned t = 1; worst && t <= 2; t++) {
            suf_go(s, SUF_LOCK, mx, t, 0);
            suf_go(s, SUF_COND_WAIT, cv, t, mx);
        }
        return suf_go(s, row == 6 ? SUF_BROADCAST : SUF_SIGNAL, cv, 9, mx);
    }
}

int suf_case(int row, int worst, const struct suf_paper_params *pp, struct suf_res *r)
{
    struct suf s;
    int bad = 0;
    if (row < 0 || row >= SUF_PAPER_ROWS)
        return -1;
    suf_init(&s, &pp->p, SUF_NENT);
    *r = row < 4 ? mutex_rows(&s, row, worst, pp, &bad) : wait_rows(&s, row, worst, pp);
    /* every setup request above is one the FSM accepts or queues; a refusal would be a bug in the setup */
    return bad || (r->st != SUF_OK && r->st != SUF_QUEUED) ? -1 : 0;
}
