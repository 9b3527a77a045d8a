/* barwait_isa_random.c — random schedules for sim/hw/barwait_isa.c: per seed 1..16 hardware threads in one
 * or two processes, 1..4 group MSRs, a few hundred random steps of time, barwait, context switches,
 * barinit (privileged or not), create_barrier and destroy. A shadow of the rules (docs/sim-hw.md) predicts
 * every status and every event; checked after each step:
 *   - a completion happens only when every member has arrived in that episode (shadow S | caller == P);
 *   - each member gets exactly one event per ended episode (release or failure), at once if on its core,
 *     at its resume if switched out; exactly one release per completed episode carries `last`;
 *   - no event names a non-member, and the model's S, P and broken state equal the shadow's;
 *   - at the end (everyone resumed, every deadline passed) nobody is left inside a barwait.
 * Virtual time only; a deadline is exact (first arrival + t), not a threshold. */
#include <stdlib.h>
#include <string.h>

#include "barwait_isa_check.h"

#define NMAX 16
#define GMAX 4
#define TMAX 1000
#define B(x) ((uint64_t)1 << (x))

enum { S_RUN, S_WAIT, S_OFF };
enum { X_NONE, X_REL, X_REL_LAST, X_FAIL_WAIT, X_FAIL_SIG };

struct sg {
    int used, armed;
    unsigned owner;
    uint64_t mem, arrived, need_init, ep, t, deadline;
};

struct sth {
    unsigned proc;
    int state, inside, pend; /* inside: in a barwait of (g, e); pend while OFF: 1 completed, -1 failed */
    unsigned g;
    uint64_t e;
};

struct sim {
    struct bwi b;
    struct bwt_log log;
    struct sg g[GMAX];
    struct sth t[NMAX];
    unsigned n, m, seed, tempo;
    uint64_t now, rng;
    int x[NMAX][GMAX];         /* the event each (thread, group) must get in this step */
    uint64_t xep[GMAX], xtime[GMAX];
};

static unsigned long n_complete, n_big, n_timeout, n_late, n_refused;

static unsigned rnd(struct sim *S, unsigned k)
{
    S->rng ^= S->rng << 13;
    S->rng ^= S->rng >> 7;
    S->rng ^= S->rng << 17;
    return (unsigned)(S->rng % k);
}

static void end_complete(struct sim *S, unsigned g, unsigned caller)
{
    struct sg *G = &S->g[g];
    CHECK((G->arrived | B(caller)) == G->mem, "seed %u: group %u completed with members missing", S->seed, g);
    for (unsigned t = 0; t < S->n; t++) {
        struct sth *T = &S->t[t];
        if (!(G->mem & B(t)) || !T->inside || T->g != g)
            continue;
        CHECK(T->e == G->ep && T->pend == 0, "seed %u: thread %u inside a stale episode", S->seed, t);
        if (T->state == S_OFF)
            T->pend = 1;
        else
            S->x[t][g] = X_REL;
    }
    S->x[caller][g] = X_REL_LAST;
    S->xep[g] = G->ep;
    S->xtime[g] = S->now;
    G->arrived = 0;
    G->armed = 0;
    G->ep++;
    n_complete++;
    n_big += __builtin_popcountll(G->mem) >= 8;
}

static void end_timeout(struct sim *S, unsigned g)
{
    struct sg *G = &S->g[g];
    for (unsigned t = 0; t < S->n; t++) {
        struct sth *T = &S->t[t];
        if (!(G->mem & B(t)))
            continue;
        int in = T->inside && T->g == g && T->pend == 0; /* inside a barwait of this episode */
        if (in && T->state == S_OFF)
            T->pend = -1;
        else
            S->x[t][g] = in ? X_FAIL_WAIT : X_FAIL_SIG;
    }
    S->xep[g] = G->ep;
    S->xtime[g] = G->deadline;
    G->arrived = 0;
    G->armed = 0;
    G->need_init = G->mem;
    G->ep++;
    n_timeout++;
}

/* Match the model's events of this step against the expectations, then compare the visible state. */
static void consume(struct sim *S)
{
    CHECK(!S->log.overflow, "seed %u: event log overflow", S->seed);
    for (unsigned i = 0; i < S->log.n; i++) {
        const struct bwi_event *e = &S->log.ev[i];
        unsigned t = e->thread, g = e->group;
        if (t >= S->n || g >= S->m) {
            CHECK(0, "seed %u: event for thread %u group %u out of range", S->seed, t, g);
            continue;
        }
        int got = e->kind == BWI_EV_RELEASE ? (e->last ? X_REL_LAST : X_REL) : e->waiting ? X_FAIL_WAIT : X_FAIL_SIG;
        CHECK(S->g[g].mem & B(t), "seed %u: event for non-member %u of group %u", S->seed, t, g);
        CHECK(S->x[t][g] == got && e->episode == S->xep[g] && e->time == S->xtime[g],
              "seed %u: thread %u group %u: event %d ep %llu t %llu, wanted %d ep %llu t %llu", S->seed, t, g, got,
              (unsigned long long)e->episode, (unsigned long long)e->time, S->x[t][g],
              (unsigned long long)S->xep[g], (unsigned long long)S->xtime[g]);
        if (S->x[t][g] != got)
            continue;
        S->x[t][g] = X_NONE;
        if (got != X_FAIL_SIG && got != X_REL_LAST) { /* its barwait returns */
            S->t[t].inside = 0;
            S->t[t].state = S_RUN;
        }
    }
    S->log.n = 0;
    for (unsigned t = 0; t < S->n; t++)
        for (unsigned g = 0; g < S->m; g++) {
            CHECK(S->x[t][g] == X_NONE, "seed %u: thread %u group %u: wanted event %d missing", S->seed, t, g,
                  S->x[t][g]);
            S->x[t][g] = X_NONE;
        }
    for (unsigned g = 0; g < S->m; g++) {
        const struct sg *G = &S->g[g];
        CHECK(bwi_members(&S->b, g) == (G->used ? G->mem : 0) && bwi_arrived(&S->b, g) == (G->used ? G->arrived : 0) &&
                  bwi_broken(&S->b, g) == (G->used && G->need_init),
              "seed %u: group %u state differs from the shadow", S->seed, g);
    }
}

static void advance(struct sim *S, uint64_t now)
{
    S->now = now;
    for (;;) {
        unsigned best = S->m;
        for (unsigned g = 0; g < S->m; g++)
            if (S->g[g].used && S->g[g].armed && S->g[g].deadline <= now &&
                (best == S->m || S->g[g].deadline < S->g[best].deadline))
                best = g;
        if (best == S->m)
            break;
        end_timeout(S, best);
    }
    bwi_advance(&S->b, now);
    consume(S);
}

static int group_ok(const struct sim *S, unsigned proc, unsigned id)
{
    return id < S->m && S->g[id].used && S->g[id].owner == proc;
}

static void expect(struct sim *S, enum bwi_status got, enum bwi_status want, const char *op)
{
    CHECK(got == want, "seed %u: %s: got %s, want %s", S->seed, op, bwi_status_name(got), bwi_status_name(want));
    if (want != BWI_OK && want != BWI_BLOCKED)
        n_refused++;
}

static void do_barwait(struct sim *S, unsigned t, unsigned id)
{
    struct sth *T = &S->t[t];
    enum bwi_status want = T->state != S_RUN ? BWI_E_BUSY
                           : !group_ok(S, T->proc, id) ? BWI_E_NOGROUP
                           : !(S->g[id].mem & B(t)) ? BWI_E_NOTMEMBER
                           : S->g[id].need_init ? BWI_E_BROKEN
                           : (S->g[id].arrived | B(t)) == S->g[id].mem ? BWI_OK : BWI_BLOCKED;
    expect(S, bwi_barwait(&S->b, S->now, t, id), want, "barwait");
    if (want == BWI_BLOCKED) {
        struct sg *G = &S->g[id];
        G->arrived |= B(t);
        if (!G->armed) {
            G->armed = 1;
            G->deadline = S->now + G->t;
        }
        *T = (struct sth){.proc = T->proc, .state = S_WAIT, .inside = 1, .g = id, .e = G->ep};
    } else if (want == BWI_OK) {
        end_complete(S, id, t);
    }
    consume(S);
}

static void do_barinit(struct sim *S, unsigned t, unsigned id, int priv)
{
    struct sth *T = &S->t[t];
    enum bwi_status want = !priv ? BWI_E_PRIV
                           : T->state == S_WAIT || (T->state == S_OFF && T->inside) ? BWI_E_BUSY
                           : !group_ok(S, T->proc, id) ? BWI_E_NOGROUP
                           : !(S->g[id].mem & B(t)) ? BWI_E_NOTMEMBER : BWI_OK;
    expect(S, bwi_barinit(&S->b, S->now, t, id, priv), want, "barinit");
    if (want == BWI_OK)
        S->g[id].need_init &= ~B(t);
    consume(S);
}

static void do_switch(struct sim *S, unsigned t, int out)
{
    struct sth *T = &S->t[t];
    if (out) {
        expect(S, bwi_deschedule(&S->b, S->now, t), T->state == S_OFF ? BWI_E_BUSY : BWI_OK, "deschedule");
        T->state = S_OFF;
    } else if (T->state != S_OFF) {
        expect(S, bwi_resume(&S->b, S->now, t), BWI_E_BUSY, "resume");
    } else {
        if (T->inside && T->pend) {
            S->x[t][T->g] = T->pend > 0 ? X_REL : X_FAIL_WAIT;
            S->xep[T->g] = T->e;
            S->xtime[T->g] = S->now;
            n_late++;
        }
        T->state = T->inside && !T->pend ? S_WAIT : S_RUN;
        T->pend = 0;
        expect(S, bwi_resume(&S->b, S->now, t), BWI_OK, "resume");
        CHECK(T->state != S_WAIT || (bwi_arrived(&S->b, T->g) & B(t)), "seed %u: resumed waiter %u lost its arrival",
              S->seed, t);
    }
    consume(S);
}

static void do_create(struct sim *S, unsigned proc, uint64_t mask, uint64_t tt)
{
    uint64_t ones = B(S->n) - 1, wrong = 0;
    for (unsigned t = 0; t < S->n; t++)
        if ((mask & B(t)) && S->t[t].proc != proc)
            wrong = 1;
    unsigned id = 0, got_id = ~0u;
    while (id < S->m && S->g[id].used)
        id++;
    enum bwi_status want = tt == 0 || tt > TMAX            ? BWI_E_TIMEOUT
                           : !mask || (mask & ~ones) || wrong ? BWI_E_MASK
                           : id == S->m                      ? BWI_E_NOSPACE : BWI_OK;
    expect(S, bwi_create(&S->b, S->now, proc, mask, tt, &got_id), want, "create");
    if (want == BWI_OK) {
        CHECK(got_id == id, "seed %u: create gave MSR %u, want %u", S->seed, got_id, id);
        S->g[id] = (struct sg){.used = 1, .owner = proc, .mem = mask, .t = tt};
    }
    consume(S);
}

static void do_destroy(struct sim *S, unsigned proc, unsigned id)
{
    int busy = 0;
    for (unsigned t = 0; t < S->n; t++)
        busy |= S->t[t].inside && S->t[t].g == id;
    enum bwi_status want = !group_ok(S, proc, id) ? BWI_E_NOGROUP : busy ? BWI_E_BUSY : BWI_OK;
    expect(S, bwi_destroy(&S->b, S->now, proc, id), want, "destroy");
    if (want == BWI_OK)
        S->g[id] = (struct sg){0};
    consume(S);
}

/* A group of t's (80%) or any index up to m (out of range included). */
static unsigned pick_group(struct sim *S, unsigned t)
{
    unsigned mine[GMAX], k = 0;
    for (unsigned g = 0; g < S->m; g++)
        if (S->g[g].used && (S->g[g].mem & B(t)))
            mine[k++] = g;
    return k && rnd(S, 5) ? mine[rnd(S, k)] : rnd(S, S->m + 1);
}

static uint64_t pick_mask(struct sim *S, unsigned proc)
{
    unsigned r = rnd(S, 20);
    if (r == 0)
        return 0;
    if (r == 1)
        return B(S->n + rnd(S, 64 - S->n));
    uint64_t m = 0;
    for (unsigned t = 0; t < S->n; t++)
        if ((r < 16 ? S->t[t].proc == proc : 1) && rnd(S, 3))
            m |= B(t);
    return m;
}

/* Mostly a thread that can act (running, or needing barinit), else any: sizeable groups complete too. */
static unsigned pick_thread(struct sim *S)
{
    unsigned cand[NMAX], k = 0;
    for (unsigned t = 0; t < S->n; t++)
        if (S->t[t].state == S_RUN)
            cand[k++] = t;
    return k && rnd(S, 4) ? cand[rnd(S, k)] : rnd(S, S->n);
}

static void step(struct sim *S)
{
    unsigned t = pick_thread(S), r = rnd(S, 100), proc = S->t[t].proc;
    advance(S, S->now + rnd(S, S->tempo));
    if (r < 45) {
        do_barwait(S, t, pick_group(S, t));
    } else if (r < 52) {
        do_switch(S, t, 1);
    } else if (r < 63) { /* resume a switched-out thread (or try a running one: refused) */
        unsigned off[NMAX], k = 0;
        for (unsigned u = 0; u < S->n; u++)
            if (S->t[u].state == S_OFF)
                off[k++] = u;
        do_switch(S, k && rnd(S, 8) ? off[rnd(S, k)] : t, 0);
    } else if (r < 79) {
        unsigned g = pick_group(S, t);
        for (unsigned h = 0; h < S->m; h++) /* a group that waits for t's barinit, if any */
            if (S->g[h].used && (S->g[h].need_init & B(t)) && rnd(S, 4))
                g = h;
        do_barinit(S, t, g, r < 77);
    } else if (r < 87) {
        unsigned who = rnd(S, 4) ? proc : rnd(S, 2);
        uint64_t mask = pick_mask(S, proc);
        do_create(S, who, mask, rnd(S, 1300));
    } else if (r < 91) {
        do_destroy(S, rnd(S, 2), rnd(S, S->m + 1));
    }
}

static void run_seed(unsigned seed)
{
    static struct sim S;
    memset(&S, 0, sizeof S);
    S.seed = seed;
    S.rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x100000001b3ull) ^ 1;
    S.n = 1 + rnd(&S, NMAX);
    S.m = 1 + rnd(&S, GMAX);
    S.tempo = 4u << (2 * rnd(&S, 3)); /* cycles between steps: up to 3, 15 or 63 */
    if (bwi_init(&S.b, S.n, S.m, TMAX, bwt_record, &S.log)) {
        CHECK(0, "seed %u: bwi_init", seed);
        return;
    }
    int two = rnd(&S, 3) == 0;
    for (unsigned t = 0; t < S.n; t++) {
        S.t[t].proc = two ? rnd(&S, 2) : 0;
        CHECK(bwi_set_process(&S.b, t, S.t[t].proc) == 0, "seed %u: set_process", seed);
    }
    for (unsigned k = 0, steps = 400 + rnd(&S, 800); k < steps; k++)
        step(&S);
    advance(&S, S.now + 1);
    for (unsigned t = 0; t < S.n; t++)
        if (S.t[t].state == S_OFF)
            do_switch(&S, t, 0);
    advance(&S, S.now + TMAX + 1);
    for (unsigned t = 0; t < S.n; t++)
        CHECK(!S.t[t].inside && S.t[t].state == S_RUN, "seed %u: thread %u still inside a barwait", seed, t);
    bwi_free(&S.b);
}

int bwt_random(unsigned nseeds)
{
    for (unsigned s = 0; s < nseeds; s++)
        run_seed(s);
    printf("random: %u seeds: %lu completions (%lu of groups of 8+), %lu timeouts, %lu outcomes delivered at "
           "resume, %lu refusals\n", nseeds, n_complete, n_big, n_timeout, n_late, n_refused);
    CHECK(n_complete && n_big && n_timeout && n_late && n_refused, "the schedules exercise every kind of outcome");
    return (int)nseeds;
}
