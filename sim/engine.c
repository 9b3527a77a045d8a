/* engine.c — the virtual-time engine of andgate sim (see engine.h). Single-threaded: one coroutine
 * runs at a time, so the shared state needs no atomics.
 *
 * Per simulated flag operation the engine does: the coherence bookkeeping of its line (owner, a bitset
 * of sharers, the time the line is busy until) and the cost of engine.h; for a store, the wake-up of
 * the participants waiting on that line (a list per line); then, under the fixed schedule, it goes on
 * running the same participant while its clock is still the smallest (compared with the top of a
 * binary heap of runnable participants), and otherwise pushes it into the heap and switches to the
 * scheduler (coro.h: no system call). */
#define _GNU_SOURCE
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "coro.h"
#include "hw.h"
#include "spec.h"
#include "stats.h"

#define STACK (64 * 1024)

enum { RUNNABLE, WAITING, DONE };

struct part {
    struct coro co;
    double clock;
    int state;
    unsigned hw;          /* hardware thread */
    int next_waiter;      /* waiting: the next participant waiting on the same line, -1 */
    int serial;           /* hardware barriers: this participant is the episode's last */
};

struct copy {
    unsigned p;
    double ready;         /* a copy can supply others only from the time it arrived */
};

struct line {
    int owner;            /* -1: none holds it exclusively */
    int home;             /* attach unit, -1 until assigned */
    uint64_t *sharers;    /* bitset of participants holding a shared copy */
    struct copy *cp;      /* the same participants, with the time each copy arrived */
    unsigned ncp, capcp;
    double busy_until;    /* ownership transfers are served one at a time */
    int waiters;          /* first participant waiting on this line, -1 */
    uint64_t stores;      /* stores so far: a reader that saw an older value must not sleep through one */
};

struct sim {
    const struct sim_opts *o;
    const struct sim_machine *m;
    unsigned n, words, cur, line_slots;
    struct part *part;
    struct line *lines;
    uint32_t nlines;
    uint64_t *slots;
    struct coro main;
    uint64_t rng;
    int *ready;           /* heap (fixed schedule) or unordered set (random schedule) of participants */
    unsigned nready;
    const struct ag_algo *algo;
    struct ag_run run;
    ag_frange_t self;
    struct sim_hw_ctx hwc;
    unsigned hw_count;    /* hardware barrier: arrivals registered in this episode */
    double hw_tmax;
    int hw_last;
    /* checks and measurements */
    uint64_t arrived;
    unsigned run_episodes; /* one unmeasured warm-up episode, then o->episodes measured ones */
    unsigned *serial;
    double *arr, *dep;    /* [episode][participant] */
    struct sim_result *res;
    int quiet;            /* setting up: flag operations take effect, cost nothing and do not schedule */
};

static struct sim *S; /* the simulation running now (the engine is single-threaded) */

static uint64_t next_rand(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* ---- the ready set ---- */

static int before(const struct sim *s, int a, int b)
{
    double ca = s->part[a].clock, cb = s->part[b].clock;
    return ca < cb || (ca == cb && a < b);
}

static void heap_swap(struct sim *s, unsigned i, unsigned j)
{
    int t = s->ready[i];
    s->ready[i] = s->ready[j];
    s->ready[j] = t;
}

static void ready_push(struct sim *s, int p)
{
    unsigned i = s->nready++;
    s->ready[i] = p;
    if (s->o->random_schedule)
        return;
    while (i && before(s, s->ready[i], s->ready[(i - 1) / 2])) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static int ready_pop(struct sim *s)
{
    unsigned i = s->o->random_schedule ? (unsigned)(next_rand(s) % s->nready) : 0;
    int p = s->ready[i];
    heap_swap(s, i, --s->nready);
    if (!s->o->random_schedule)
        for (i = 0;;) {
            unsigned l = 2 * i + 1, r = l + 1, m = i;
            if (l < s->nready && before(s, s->ready[l], s->ready[m]))
                m = l;
            if (r < s->nready && before(s, s->ready[r], s->ready[m]))
                m = r;
            if (m == i)
                break;
            heap_swap(s, i, m);
            i = m;
        }
    return p;
}

/* The running participant gives way: to the scheduler if it is no longer the one to run. */
static void yield(struct sim *s)
{
    struct part *p = &s->part[s->cur];
    if (p->state == RUNNABLE) {
        if (!s->o->random_schedule && (!s->nready || before(s, (int)s->cur, s->ready[0])))
            return; /* still the smallest clock: go on */
        ready_push(s, (int)s->cur);
    }
    coro_switch(&p->co, &s->main);
}

/* ---- the coherence model ---- */

static int sharer(const struct line *l, unsigned p)
{
    return (int)((l->sharers[p / 64] >> (p % 64)) & 1);
}

static double cost(const struct sim *s, unsigned p, unsigned q, const struct line *l)
{
    return sim_machine_cost(s->m, s->part[p].hw, s->part[q].hw, (unsigned)l->home);
}

static void assign_home(struct sim *s, struct line *l)
{
    if (l->home >= 0)
        return;
    unsigned units = s->m->attach < 0 ? 1 : s->m->nattach;
    if (s->m->home_first_touch) {
        l->home = (int)sim_machine_attach_unit(s->m, s->part[s->cur].hw);
    } else { /* hash: the hardware's is undisclosed; uniform from the run's seed */
        uint64_t h = ((uint64_t)(l - s->lines) + 1) * 0x9E3779B97F4A7C15ull ^ s->o->seed * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        l->home = (int)(h % units);
    }
}

/* A line no cache holds: its first access pays the machine's largest cost to the home (README). */
static double first_touch(const struct sim *s, const struct line *l)
{
    double worst = 0;
    unsigned me = s->part[s->cur].hw;
    for (unsigned b = 0; b < s->m->threads; b++) {
        double c = sim_machine_cost(s->m, me, b, (unsigned)l->home);
        if (c > worst)
            worst = c;
    }
    return worst;
}

static double hit(const struct sim *s) { return s->m->layer[s->m->self_layer].ns; }

static int at_home(const struct sim *s, const struct line *l)
{
    return (int)sim_machine_attach_unit(s->m, s->part[s->cur].hw) == l->home;
}

/* "none" machines: the running participant's access to the line at its home unit. */
static double to_home(const struct sim *s, const struct line *l)
{
    if (at_home(s, l))
        return hit(s);
    unsigned per = s->m->threads / (s->m->attach < 0 ? 1 : s->m->nattach);
    return sim_machine_cost(s->m, s->part[s->cur].hw, (unsigned)l->home * per, (unsigned)l->home);
}

static void add_copy(struct line *l, unsigned p, double ready)
{
    if (l->ncp == l->capcp) {
        l->capcp = l->capcp ? 2 * l->capcp : 4;
        l->cp = realloc(l->cp, l->capcp * sizeof *l->cp);
        if (!l->cp)
            abort(); /* out of memory in the middle of a simulation: nothing sensible to return */
    }
    l->cp[l->ncp++] = (struct copy){ p, ready };
    l->sharers[p / 64] |= UINT64_C(1) << (p % 64);
}

static void drop_copies(struct line *l)
{
    for (unsigned k = 0; k < l->ncp; k++)
        l->sharers[l->cp[k].p / 64] = 0;
    l->ncp = 0;
}

/* A read miss by the running participant starting at t: the time the line arrives, from the owner, or
 * from the copy that can deliver it first (a copy still on its way supplies only after it arrived),
 * or at first touch from the home. The reader then shares the line; an owner keeps a shared copy. */
static double read_miss(struct sim *s, struct line *l, double t)
{
    unsigned me = s->cur;
    double done;
    if (l->owner >= 0) {
        done = t + cost(s, me, (unsigned)l->owner, l);
        add_copy(l, (unsigned)l->owner, l->busy_until);
        l->owner = -1;
    } else if (l->ncp) {
        done = -1;
        for (unsigned k = 0; k < l->ncp; k++) {
            double d = (l->cp[k].ready > t ? l->cp[k].ready : t) + cost(s, me, l->cp[k].p, l);
            if (done < 0 || d < done)
                done = d;
        }
    } else {
        done = t + first_touch(s, l);
    }
    add_copy(l, me, done);
    return done;
}

static double start_at(const struct sim *s, const struct line *l)
{
    double t = s->part[s->cur].clock;
    return t > l->busy_until ? t : l->busy_until;
}

static void charge_read(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / s->line_slots];
    struct part *p = &s->part[s->cur];
    assign_home(s, l);
    double t = start_at(s, l);
    if (s->m->inval_none) {
        p->clock = t + to_home(s, l);
        if (at_home(s, l))
            s->res->traffic.reads_local++;
        else
            s->res->traffic.reads_remote++;
        return;
    }
    if ((int)s->cur == l->owner || sharer(l, s->cur)) {
        p->clock = t + hit(s);
        s->res->traffic.reads_local++;
        return;
    }
    p->clock = read_miss(s, l, t);
    s->res->traffic.reads_remote++;
}

static void charge_write(struct sim *s, uint32_t i, int rmw)
{
    struct line *l = &s->lines[i / s->line_slots];
    struct part *p = &s->part[s->cur];
    unsigned me = s->cur;
    assign_home(s, l);
    double t = start_at(s, l), c;
    if (s->m->inval_none) {
        c = to_home(s, l);
    } else {
        int holds = (int)me == l->owner || sharer(l, me);
        unsigned others = 0;
        double inval = 0;
        if (l->owner >= 0 && l->owner != (int)me) {
            others++;
            inval += sim_machine_alpha(s->m, p->hw, s->part[l->owner].hw) * cost(s, me, (unsigned)l->owner, l);
        }
        for (unsigned k = 0; k < l->ncp; k++) {
            unsigned q = l->cp[k].p;
            if (q != me) {
                others++;
                inval += sim_machine_alpha(s->m, p->hw, s->part[q].hw) * cost(s, me, q, l);
            }
        }
        c = holds ? (others ? inval : hit(s)) : read_miss(s, l, t) - t + inval;
        s->res->traffic.invalidations += others;
        drop_copies(l);
        l->owner = (int)me;
    }
    if (rmw) {
        c += s->m->atomic_extra_ns;
        s->res->traffic.rmws++;
    } else {
        s->res->traffic.writes++;
    }
    p->clock = t + c;
    l->busy_until = p->clock;
}

/* A store to the line became visible: its waiters look again, not before it happened. */
static void wake(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / s->line_slots];
    l->stores++;
    double t = s->part[s->cur].clock;
    for (int q = l->waiters; q >= 0;) {
        struct part *w = &s->part[q];
        int next = w->next_waiter;
        w->state = RUNNABLE;
        w->next_waiter = -1;
        if (w->clock < t)
            w->clock = t;
        ready_push(s, q);
        q = next;
    }
    l->waiters = -1;
}

uint64_t sim_load(const ag_flags_t *f, uint32_t i)
{
    struct sim *s = f->sim;
    if (s->quiet)
        return s->slots[i];
    s->res->operations++;
    charge_read(s, i);
    /* the value as the read finds the line when it is served; a store issued while this participant
     * waits for its completion is for the next read to see */
    uint64_t x = s->slots[i];
    yield(s);
    return x;
}

static void store_done(struct sim *s, uint32_t i)
{
    wake(s, i);
    yield(s);
}

void sim_store(const ag_flags_t *f, uint32_t i, uint64_t v)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        s->slots[i] = v;
        return;
    }
    s->res->operations++;
    charge_write(s, i, 0);
    s->slots[i] = v;
    store_done(s, i);
}

uint64_t sim_fetch_add(const ag_flags_t *f, uint32_t i, uint64_t d)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        s->slots[i] += d;
        return s->slots[i] - d;
    }
    s->res->operations++;
    charge_write(s, i, 1);
    uint64_t old = s->slots[i];
    s->slots[i] = old + d;
    store_done(s, i);
    return old;
}

int sim_cas(const ag_flags_t *f, uint32_t i, uint64_t *expected, uint64_t desired)
{
    struct sim *s = f->sim;
    if (s->quiet) {
        int ok = s->slots[i] == *expected;
        if (ok)
            s->slots[i] = desired;
        else
            *expected = s->slots[i];
        return ok;
    }
    s->res->operations++;
    charge_write(s, i, 1);
    int ok = s->slots[i] == *expected;
    if (ok) {
        s->slots[i] = desired;
        store_done(s, i);
    } else {
        *expected = s->slots[i];
        yield(s);
    }
    return ok;
}

int sim_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    (void)deadline; /* virtual time has no deadlines */
    struct sim *s = f->sim;
    for (;;) {
        struct line *l = &s->lines[i / s->line_slots];
        uint64_t seen = l->stores, x = sim_load(f, i);
        int broken = s->slots[f->broken] != 0;
        if (ag_cond_holds(x, cond, v))
            return broken ? AG_EBROKEN : 0;
        if (broken)
            return AG_EBROKEN;
        if (l->stores != seen)
            continue; /* a store landed while the read was served: read again, do not sleep through it */
        struct part *p = &s->part[s->cur];
        p->state = WAITING;
        p->next_waiter = l->waiters;
        l->waiters = (int)s->cur;
        yield(s);
    }
}

void ag_flags_break(const ag_flags_t *f)
{
    struct sim *s = f->sim;
    s->slots[f->broken] = 1;
    for (uint32_t l = 0; l < s->nlines; l++)
        if (s->lines[l].waiters >= 0)
            wake(s, l * s->line_slots);
}

static void fail(struct sim *s, const char *msg)
{
    if (s->res->ok) {
        s->res->ok = 0;
        snprintf(s->res->error, sizeof s->res->error, "%s", msg);
    }
}

/* ---- hardware barriers (sim/hw): the device registers arrivals and releases everyone ---- */

static int hw_episode(struct sim *s, unsigned tid)
{
    struct part *p = &s->part[tid];
    p->clock = s->o->hw->arrive(&s->hwc, tid, p->clock);
    if (!s->hw_count || p->clock >= s->hw_tmax) {
        s->hw_tmax = p->clock;
        s->hw_last = (int)tid;
    }
    if (++s->hw_count < s->n) {
        p->state = WAITING;
        p->serial = 0;
        yield(s);
        return p->serial ? AG_SERIAL : 0;
    }
    s->hw_count = 0;
    for (unsigned q = 0; q < s->n; q++) {
        struct part *w = &s->part[q];
        w->clock = s->o->hw->release(&s->hwc, q, s->hw_tmax);
        w->serial = (int)q == s->hw_last;
        if (q != tid) {
            w->state = RUNNABLE;
            ready_push(s, (int)q);
        }
    }
    int serial = p->serial;
    yield(s);
    return serial ? AG_SERIAL : 0;
}

/* One participant's life: the episodes, with the checks of tests/test_semantics.c. */
static void participant(void)
{
    struct sim *s = S;
    unsigned tid = s->cur, n = s->n;
    struct part *p = &s->part[tid];
    for (unsigned k = 0; k < s->run_episodes && s->res->ok; k++) {
        p->clock += s->o->work_ns;
        if (s->o->work_jitter_ns > 0) /* deterministic: participants draw in the engine's order */
            p->clock += s->o->work_jitter_ns * (double)(next_rand(s) >> 11) * 0x1.0p-53;
        if (s->o->method == SIM_JITTER && n > 1 && tid == k % n)
            p->clock += s->o->late_ns;
        yield(s); /* the arrival happens in clock order */
        s->arrived++;
        s->arr[(size_t)k * n + tid] = p->clock;
        int rc = s->o->hw ? hw_episode(s, tid) : ag_episode(s->algo, &s->run, s->self, tid, AG_NO_DEADLINE);
        s->dep[(size_t)k * n + tid] = p->clock;
        if (rc == AG_SERIAL)
            s->serial[k]++;
        else if (rc != 0)
            fail(s, "a wait returned an error");
        if (s->arrived < (uint64_t)(k + 1) * n)
            fail(s, "a participant left an episode before every participant arrived");
    }
    p->state = DONE;
    coro_switch(&p->co, &s->main);
}

static int schedule(struct sim *s)
{
    while (s->nready) {
        s->cur = (unsigned)ready_pop(s);
        coro_switch(&s->main, &s->part[s->cur].co);
    }
    for (unsigned q = 0; q < s->n; q++)
        if (s->part[q].state != DONE)
            return -1; /* everybody waits: a deadlock */
    return 0;
}

static int invalid(struct sim_result *res, const char *msg)
{
    snprintf(res->error, sizeof res->error, "%s", msg);
    res->ok = 0;
    return EINVAL;
}

/* The library's shape, as src/shape.c builds it from a placement: ranks in topology order (hardware
 * thread numbers are mixed-radix, outermost level first, so that is their order), dense group ids in
 * rank order by core, by the machine's cache level and by socket. */
static const struct sim *sort_sim;
static int by_hw(const void *a, const void *b)
{
    unsigned x = sort_sim->part[*(const unsigned *)a].hw, y = sort_sim->part[*(const unsigned *)b].hw;
    return (x > y) - (x < y);
}

static int plan(struct sim *s, long *params, unsigned line, struct ag_layout *L, uint32_t *broken)
{
    unsigned n = s->n;
    unsigned *sh = calloc((size_t)n * 5, sizeof *sh), *rank = sh, *order = sh + n;
    if (!sh)
        return ENOMEM;
    for (unsigned t = 0; t < n; t++)
        order[t] = t;
    sort_sim = s;
    qsort(order, n, sizeof *order, by_hw);
    for (unsigned r = 0; r < n; r++)
        rank[order[r]] = r;
    const unsigned *group[3] = { sh + 2 * (size_t)n, sh + 3 * (size_t)n, sh + 4 * (size_t)n };
    const unsigned lvl[3] = { s->m->nlevels - 2, s->m->cache_level, 0 };
    unsigned ngroups[3];
    for (int g = 0; g < 3; g++) {
        unsigned *out = sh + (2 + (size_t)g) * n, dense = 0, prev = 0;
        for (unsigned r = 0; r < n; r++) { /* in rank order a unit's participants are adjacent */
            unsigned u = sim_machine_unit(s->m, s->part[order[r]].hw, lvl[g]);
            if (r && u != prev)
                dense++;
            out[order[r]] = dense;
            prev = u;
        }
        ngroups[g] = n ? dense + 1 : 0;
    }
    int rc = ag_layout_plan(s->algo, n, params, line, rank, order, group, ngroups, L, broken, &s->self);
    free(sh);
    return rc;
}

static void measure(struct sim *s)
{
    const struct sim_opts *o = s->o;
    unsigned n = s->n;
    double *lat = malloc((o->episodes ? o->episodes : 1) * sizeof *lat), cpu = 0, prev = 0;
    if (!lat) {
        fail(s, "out of memory for the statistics");
        return;
    }
    for (unsigned t = 0; t < n; t++) /* the warm-up episode (first touches) is not measured */
        prev = s->dep[t] > prev ? s->dep[t] : prev;
    for (unsigned k = 0; k < o->episodes; k++) {
        double a = 0, d = 0;
        for (unsigned t = 0; t < n; t++) {
            double x = s->arr[(size_t)(k + 1) * n + t], y = s->dep[(size_t)(k + 1) * n + t];
            a = x > a ? x : a;
            d = y > d ? y : d;
            cpu += y - x;
        }
        /* EPCC: what an episode adds to a loop of compute and barriers, beyond the compute itself */
        lat[k] = o->method == SIM_EPCC ? d - prev - o->work_ns - o->work_jitter_ns / 2 : d - a;
        prev = d;
    }
    struct stats st = stats_of(lat, o->episodes);
    s->res->median_ns = st.median, s->res->min_ns = st.min, s->res->p99_ns = st.p99, s->res->mean_ns = st.mean;
    s->res->cpu_ns_per_episode = o->episodes ? cpu / o->episodes : 0;
    s->res->episodes = o->episodes;
    s->res->run_episodes = s->run_episodes;
    free(lat);
}

int sim_run(const struct sim_opts *o, struct sim_result *res)
{
    memset(res, 0, sizeof *res);
    res->ok = 1;
    unsigned n = o->n;
    if (!n)
        return invalid(res, "at least one participant");
    if ((uint64_t)(o->episodes + 1ull) * n > (UINT64_C(1) << 27))
        return invalid(res, "episodes x participants exceeds 2^27 (the per-episode samples would not fit)");
    /* splitmix64 of the seed: every seed, 0 included, gives a nonzero xorshift state */
    uint64_t z = o->seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    struct sim s = { .o = o, .m = o->m, .n = n, .words = (n + 63) / 64, .rng = z ? z : 1, .res = res,
                     .line_slots = o->m->line_bytes / 8, .run_episodes = o->episodes + 1 };
    s.part = calloc(n, sizeof *s.part);
    s.ready = calloc(n, sizeof *s.ready);
    unsigned *hw = calloc(n, sizeof *hw);
    if (!s.part || !s.ready || !hw)
        return free(s.part), free(s.ready), free(hw), ENOMEM;
    char msg[300];
    if (sim_place(o->m, n, o->pin ? o->pin : "cores", hw, msg, sizeof msg)) {
        free(s.part), free(s.ready), free(hw);
        return invalid(res, msg);
    }
    for (unsigned t = 0; t < n; t++)
        s.part[t].hw = hw[t];
    struct ag_layout L = { 0 };
    long params[AG_MAXKEYS];
    uint32_t broken = 0;
    int rc = 0;
    if (o->hw) {
        snprintf(res->describe, sizeof res->describe, "%s", o->hw->name);
        s.hwc = (struct sim_hw_ctx){ .m = o->m, .n = n, .hw = hw };
        if (o->hw->setup(&s.hwc, msg, sizeof msg))
            rc = invalid(res, msg);
    } else {
        struct ag_spec sp;
        if (ag_spec_parse(&ag_algo_table, o->algo, &sp, res->error, sizeof res->error)) {
            rc = EINVAL;
            res->ok = 0;
        } else {
            ag_spec_format(&ag_algo_table, &sp, res->describe, sizeof res->describe);
            s.algo = ag_algos[sp.index];
            memcpy(params, sp.val, sizeof params);
            rc = plan(&s, params, ag_line_of(s.algo, params), &L, &broken);
            if (rc) {
                snprintf(res->error, sizeof res->error, "setup failed (%s)", strerror(rc));
                res->ok = 0;
            }
        }
    }
    if (rc) {
        free(s.part), free(s.ready), free(hw);
        return rc;
    }
    uint32_t nslots = o->hw ? 1 : L.nslots;
    s.slots = calloc(nslots, sizeof *s.slots);
    s.nlines = (nslots + s.line_slots - 1) / s.line_slots;
    s.lines = calloc(s.nlines, sizeof *s.lines);
    uint64_t *bits = calloc((size_t)s.nlines * s.words, sizeof *bits);
    s.serial = calloc(s.run_episodes, sizeof *s.serial);
    s.arr = calloc((size_t)s.run_episodes * n, sizeof *s.arr);
    s.dep = calloc((size_t)s.run_episodes * n, sizeof *s.dep);
    if (!s.slots || !s.lines || !bits || !s.serial || !s.arr || !s.dep) {
        free(s.part), free(s.ready), free(hw), free(s.serial), free(s.arr), free(s.dep), free(s.lines), free(bits);
        free(s.slots), free(L.state);
        if (o->hw && o->hw->teardown)
            o->hw->teardown(&s.hwc);
        snprintf(res->error, sizeof res->error, "out of memory for %u participants x %u episodes", n, o->episodes);
        res->ok = 0;
        return ENOMEM;
    }
    for (uint32_t l = 0; l < s.nlines; l++)
        s.lines[l] = (struct line){ .owner = -1, .home = -1, .sharers = bits + (size_t)l * s.words, .waiters = -1 };
    S = &s;
    if (!o->hw) {
        s.run = (struct ag_run){ .fl = { .sim = &s, .broken = broken, .nslots = L.nslots }, .n = n, .st = L.state,
                                 .p = params, .epoch0 = o->epoch0 };
        /* the initial state, as ag_reset_state writes it: outside virtual time, without scheduling */
        for (unsigned t = 0; t < n; t++)
            s.slots[ag_at(s.self, t)] = o->epoch0;
        s.quiet = 1;
        s.algo->reset(&s.run);
        s.quiet = 0;
    }
    for (unsigned t = 0; t < n && !rc; t++) {
        rc = coro_make(&s.part[t].co, STACK, participant);
        s.part[t].state = RUNNABLE;
        s.part[t].next_waiter = -1;
        ready_push(&s, (int)t);
    }
    if (rc)
        fail(&s, "out of memory for the participants' stacks");
    else if (schedule(&s) != 0)
        fail(&s, "deadlock: every participant waits");
    for (unsigned k = 0; res->ok && k < s.run_episodes; k++)
        if (s.serial[k] != 1)
            fail(&s, "an episode without exactly one AG_SERIAL");
    if (res->ok)
        measure(&s);
    for (unsigned t = 0; t < n; t++)
        coro_free(&s.part[t].co);
    for (uint32_t l = 0; l < s.nlines; l++)
        free(s.lines[l].cp);
    if (o->hw && o->hw->teardown)
        o->hw->teardown(&s.hwc);
    free(s.part), free(s.ready), free(hw), free(s.serial), free(s.arr), free(s.dep), free(s.lines), free(bits);
    free(s.slots), free(L.state);
    S = NULL;
    return res->ok ? 0 : -1;
}
