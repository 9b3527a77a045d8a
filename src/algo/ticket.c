/* ticket — ticket barrier.
 * Idea: like a ticket lock: each arrival takes the next ticket (one fetch_add, never reset per
 * episode); the holder of a batch's last ticket announces "now serving k + 1".
 * Invariant: no ticket of batch k + 1 is taken before batch k is released, so rebasing the counter
 * at n·2^32 by the last arriver is safe.
 * Source: 000 §2 (Ticket). Details: docs/algorithms/ticket.md.
 */
#include "../algo.h"

#define BATCHES (UINT64_C(1) << 32)

struct ticket {
    uint32_t next, serving;
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    (void)s;
    struct ticket *st = ag_layout_state(L, sizeof *st);
    if (!st)
        return 0;
    st->next = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->serving = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct ticket *st = r->st;
    uint64_t k0 = r->epoch0 % BATCHES; /* tests start near the batch wrap-around */
    flag_store(&r->fl, st->next, k0 * r->n);
    flag_store(&r->fl, st->serving, k0);
}

/* Split phase: taking a ticket is the arrival; the last ticket of a batch releases it inside arrive.
 * tok = the batch number to be served next, with bit 63 set for the releasing arrival. */
#define SERIAL_BIT (UINT64_C(1) << 63)

static void arrive(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok)
{
    (void)tid, (void)e;
    const struct ticket *st = r->st;
    uint64_t t = flag_fetch_add(&r->fl, st->next, 1);
    uint64_t k = t / r->n, next = (k + 1) % BATCHES;
    *tok = next;
    if (t % r->n != r->n - 1)
        return;
    /* the last ticket of batch k: everyone of the batch has arrived and nobody holds a later ticket */
    if (t + 1 == BATCHES * r->n)
        flag_store(&r->fl, st->next, 0);
    flag_store(&r->fl, st->serving, next);
    *tok |= SERIAL_BIT;
}

static int depart(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline)
{
    (void)tid, (void)e;
    const struct ticket *st = r->st;
    return tok & SERIAL_BIT ? AG_SERIAL : flag_wait(&r->fl, st->serving, AG_EQ, tok, deadline);
}

static AG_WAIT_FROM_SPLIT(wait, arrive, depart)

const struct ag_algo ag_algo_ticket = {
    { "ticket", "ticket barrier: one fetch-and-increment per arrival, no per-episode reset", "000 §2", NULL },
    setup, reset, wait, arrive, depart, NULL, NULL,
};
