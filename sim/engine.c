/* engine.c — the virtual-time engine of andgate sim (see engine.h). Single-threaded: one coroutine
 * runs at a time, so the shared state needs no atomics. */
#define _GNU_SOURCE
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "algo.h"
#include "spec.h"
#include "stats.h"

#define STACK (64 * 1024)
#define LINE_SLOTS 8 /* 64-byte lines of 8-byte flags */

enum { RUNNABLE, WAITING, DONE };

struct part {
    ucontext_t ctx;
    char *stack;
    double clock;
    int state;
    uint32_t wflag;
};

struct line {
    int owner;          /* -1: in memory */
    uint64_t *sharers;  /* bitset of participants */
    double busy_until;  /* ownership transfers are served one at a time */
};

struct sim {
    const struct sim_opts *o;
    const struct sim_machine *m;
    unsigned n, words, cur;
    struct part *part;
    struct line *lines;
    uint32_t nlines;
    uint64_t *slots;
    ucontext_t main;
    uint64_t rng;
    const struct ag_algo *algo;
    struct ag_run run;
    ag_frange_t self;
    /* checks and measurements */
    uint64_t arrived;
    unsigned *serial;
    double *arr, *dep; /* [episode][participant] */
    struct sim_result *res;
    int quiet; /* setting up: flag operations take effect, cost nothing and do not schedule */
};

static struct sim *S; /* the simulation running now (the engine is single-threaded) */

static uint64_t next_rand(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

static double latency(const struct sim *s, unsigned p, int q)
{
    if (q < 0)
        return s->m->far_ns; /* from memory */
    if ((unsigned)q == p)
        return s->m->hit_ns;
    unsigned c = s->m->cluster ? s->m->cluster : 1;
    return p / c == (unsigned)q / c ? s->m->near_ns : s->m->far_ns;
}

static int sharer(const struct line *l, unsigned p) { return (l->sharers[p / 64] >> (p % 64)) & 1; }

static void yield(void)
{
    struct sim *s = S;
    swapcontext(&s->part[s->cur].ctx, &s->main);
}

static void charge_read(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / LINE_SLOTS];
    struct part *p = &s->part[s->cur];
    if ((int)s->cur == l->owner || sharer(l, s->cur)) {
        p->clock += s->m->hit_ns;
        s->res->reads_local++;
        return;
    }
    int src = l->owner;
    if (src < 0) /* a sharer supplies it, or memory */
        for (unsigned q = 0; q < s->n && src < 0; q++)
            if (sharer(l, q))
                src = (int)q;
    p->clock += latency(s, s->cur, src);
    l->sharers[s->cur / 64] |= UINT64_C(1) << (s->cur % 64);
    s->res->reads_remote++;
}

static void charge_write(struct sim *s, uint32_t i, int rmw)
{
    struct line *l = &s->lines[i / LINE_SLOTS];
    struct part *p = &s->part[s->cur];
    double start = p->clock > l->busy_until ? p->clock : l->busy_until;
    unsigned others = 0;
    int src = l->owner;
    for (unsigned q = 0; q < s->n; q++)
        if (q != s->cur && sharer(l, q)) {
            others++;
            if (src < 0)
                src = (int)q;
        }
    double cost = (l->owner == (int)s->cur && !others) ? s->m->hit_ns : latency(s, s->cur, src) + others * s->m->inval_ns;
    if (rmw) {
        cost += s->m->rmw_ns;
        s->res->rmws++;
    } else {
        s->res->writes++;
    }
    s->res->invalidations += others;
    p->clock = start + cost;
    l->busy_until = p->clock;
    l->owner = (int)s->cur;
    memset(l->sharers, 0, s->words * sizeof(uint64_t));
    l->sharers[s->cur / 64] |= UINT64_C(1) << (s->cur % 64);
}

/* A store became visible: waiters on the flag can look again, not before it happened. */
static void wake(struct sim *s, uint32_t i)
{
    double t = s->part[s->cur].clock;
    for (unsigned q = 0; q < s->n; q++)
        if (s->part[q].state == WAITING && s->part[q].wflag == i) {
            s->part[q].state = RUNNABLE;
            if (s->part[q].clock < t)
                s->part[q].clock = t;
        }
}

uint64_t sim_load(const ag_flags_t *f, uint32_t i)
{
    struct sim *s = f->sim;
    if (s->quiet)
        return s->slots[i];
    charge_read(s, i);
    yield(); /* the read completes when this participant runs again: it sees the value then */
    return s->slots[i];
}

void sim_store(const ag_flags_t *f, uint32_t i, uint64_t v)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        s->slots[i] = v;
        return;
    }
    charge_write(s, i, 0);
    s->slots[i] = v;
    wake(s, i);
    yield();
}

uint64_t sim_fetch_add(const ag_flags_t *f, uint32_t i, uint64_t d)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        s->slots[i] += d;
        return s->slots[i] - d;
    }
    charge_write(s, i, 1);
    uint64_t old = s->slots[i];
    s->slots[i] = old + d;
    wake(s, i);
    yield();
    return old;
}

int sim_cas(const ag_flags_t *f, uint32_t i, uint64_t *expected, uint64_t desired)
{
    struct sim *s = f->sim;
    charge_write(s, i, 1);
    int ok = s->slots[i] == *expected;
    if (ok) {
        s->slots[i] = desired;
        wake(s, i);
    } else {
        *expected = s->slots[i];
    }
    yield();
    return ok;
}

int sim_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    (void)deadline; /* virtual time has no deadlines yet */
    struct sim *s = f->sim;
    for (;;) {
        uint64_t x = sim_load(f, i);
        int broken = s->slots[f->broken] != 0;
        if (ag_cond_holds(x, cond, v))
            return broken ? AG_EBROKEN : 0;
        if (broken)
            return AG_EBROKEN;
        s->part[s->cur].state = WAITING;
        s->part[s->cur].wflag = i;
        yield();
    }
}

void ag_flags_break(const ag_flags_t *f)
{
    f->sim->slots[f->broken] = 1;
    for (unsigned q = 0; q < f->sim->n; q++)
        if (f->sim->part[q].state == WAITING)
            f->sim->part[q].state = RUNNABLE;
}

static void fail(struct sim *s, const char *msg)
{
    if (s->res->ok) {
        s->res->ok = 0;
        snprintf(s->res->error, sizeof s->res->error, "%s", msg);
    }
}

/* One participant's life: the episodes, with the checks of tests/test_semantics.c. */
static void participant(void)
{
    struct sim *s = S;
    unsigned tid = s->cur, n = s->n;
    for (unsigned k = 0; k < s->o->episodes && s->res->ok; k++) {
        s->arrived++;
        s->arr[(size_t)k * n + tid] = s->part[tid].clock;
        int rc = ag_episode(s->algo, &s->run, s->self, tid, AG_NO_DEADLINE);
        s->dep[(size_t)k * n + tid] = s->part[tid].clock;
        if (rc == AG_SERIAL)
            s->serial[k]++;
        else if (rc != 0)
            fail(s, "a wait returned an error");
        if (s->arrived < (uint64_t)(k + 1) * n)
            fail(s, "a participant left an episode before every participant arrived");
    }
    s->part[tid].state = DONE;
    yield();
}

static int run(struct sim *s)
{
    for (;;) {
        unsigned pick = s->n, runnable = 0;
        for (unsigned q = 0; q < s->n; q++)
            if (s->part[q].state == RUNNABLE) {
                runnable++;
                if (!s->o->random_schedule && (pick == s->n || s->part[q].clock < s->part[pick].clock))
                    pick = q;
            }
        if (!runnable) {
            for (unsigned q = 0; q < s->n; q++)
                if (s->part[q].state != DONE)
                    return -1; /* everybody waits: a deadlock */
            return 0;
        }
        if (s->o->random_schedule) {
            unsigned r = (unsigned)(next_rand(s) % runnable);
            for (pick = 0; pick < s->n; pick++)
                if (s->part[pick].state == RUNNABLE && r-- == 0)
                    break;
        }
        s->cur = pick;
        swapcontext(&s->main, &s->part[pick].ctx);
    }
}

int sim_run(const struct sim_opts *o, struct sim_result *res)
{
    memset(res, 0, sizeof *res);
    res->ok = 1;
    struct ag_spec sp;
    if (ag_spec_parse(&ag_algo_table, o->algo, &sp, res->error, sizeof res->error)) {
        res->ok = 0;
        return EINVAL;
    }
    ag_spec_format(&ag_algo_table, &sp, res->describe, sizeof res->describe);
    unsigned n = o->n;
    struct sim s = { .o = o, .m = o->m, .n = n, .words = (n + 63) / 64, .rng = o->seed * 2654435761u + 1,
                     .algo = ag_algos[sp.index], .res = res };
    /* participants on cores 0..n-1 in order: ranks are tids, groups are the machine's clusters */
    unsigned *shape = calloc((size_t)n * 5, sizeof *shape);
    unsigned c = o->m->cluster ? o->m->cluster : 1;
    const unsigned *group[3] = { shape + 2 * (size_t)n, shape + 3 * (size_t)n, shape + 4 * (size_t)n };
    unsigned ngroups[3] = { n, (n + c - 1) / c, 1 };
    for (unsigned t = 0; t < n; t++) {
        shape[t] = shape[n + t] = t;
        shape[2 * n + t] = t;
        shape[3 * n + t] = t / c;
        shape[4 * n + t] = 0;
    }
    struct ag_layout L;
    uint32_t broken;
    long params[AG_MAXKEYS];
    memcpy(params, sp.val, sizeof params);
    int rc = ag_layout_plan(s.algo, n, params, ag_line_of(s.algo, params), shape, shape + n, group, ngroups, &L,
                            &broken, &s.self);
    free(shape);
    if (rc) {
        snprintf(res->error, sizeof res->error, "setup failed (%d)", rc);
        res->ok = 0;
        return rc;
    }
    s.slots = calloc(L.nslots, sizeof *s.slots);
    s.nlines = (L.nslots + LINE_SLOTS - 1) / LINE_SLOTS;
    s.lines = calloc(s.nlines, sizeof *s.lines);
    uint64_t *bits = calloc((size_t)s.nlines * s.words, sizeof *bits);
    s.part = calloc(n, sizeof *s.part);
    s.serial = calloc(o->episodes, sizeof *s.serial);
    s.arr = calloc((size_t)o->episodes * n, sizeof *s.arr);
    s.dep = calloc((size_t)o->episodes * n, sizeof *s.dep);
    for (uint32_t l = 0; l < s.nlines; l++)
        s.lines[l] = (struct line){ -1, bits + (size_t)l * s.words, 0 };
    s.run = (struct ag_run){ .fl = { .sim = &s, .broken = broken, .nslots = L.nslots }, .n = n, .st = L.state,
                             .p = params, .epoch0 = o->epoch0 };
    /* initial state, as ag_reset_state does it, outside virtual time */
    for (unsigned t = 0; t < n; t++)
        s.slots[ag_at(s.self, t)] = o->epoch0;
    S = &s;
    /* the algorithm's initial state, outside virtual time and without scheduling */
    s.quiet = 1;
    s.algo->reset(&s.run);
    s.quiet = 0;
    for (unsigned t = 0; t < n; t++) {
        struct part *p = &s.part[t];
        p->stack = malloc(STACK);
        getcontext(&p->ctx);
        p->ctx.uc_stack.ss_sp = p->stack;
        p->ctx.uc_stack.ss_size = STACK;
        p->ctx.uc_link = &s.main;
        makecontext(&p->ctx, participant, 0);
        p->state = RUNNABLE;
        p->clock = 0;
    }
    if (run(&s) != 0)
        fail(&s, "deadlock: every participant waits");
    for (unsigned k = 0; res->ok && k < o->episodes; k++)
        if (s.serial[k] != 1)
            fail(&s, "an episode without exactly one AG_SERIAL");
    if (res->ok) {
        double *lat = malloc((o->episodes ? o->episodes : 1) * sizeof *lat);
        for (unsigned k = 0; k < o->episodes; k++) {
            double a = 0, d = 0;
            for (unsigned t = 0; t < n; t++) {
                if (s.arr[(size_t)k * n + t] > a)
                    a = s.arr[(size_t)k * n + t];
                if (s.dep[(size_t)k * n + t] > d)
                    d = s.dep[(size_t)k * n + t];
            }
            lat[k] = d - a;
        }
        struct stats st = stats_of(lat, o->episodes);
        res->median_ns = st.median, res->min_ns = st.min, res->p99_ns = st.p99;
        res->episodes = o->episodes;
        free(lat);
    }
    for (unsigned t = 0; t < n; t++)
        free(s.part[t].stack);
    free(s.part), free(s.serial), free(s.arr), free(s.dep), free(s.lines), free(bits), free(s.slots), free(L.state);
    S = NULL;
    return res->ok ? 0 : -1;
}

