/* coherence.c — the coherence model of andgate sim (costs in engine.h; the rules in
 * sim/machines/README.md): per cache line its owner, sharers with the time each copy arrived, its home,
 * and the time it is busy until (ownership transfers are served one at a time); invalidations in
 * parallel, one transfer for a Modified line, stores through each participant's store buffer, every
 * miss queued at its line's directory slice (directory.c), every line transfer queued at the ports of
 * the links it crosses (links.c), and three-leg paths through a home node on multi-socket machines.
 * Contention is these queues. */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdlib.h>
#include <string.h>

/* ---- the coherence model ---- */

static int sharer(const struct line *l, unsigned p)
{
    if (l->capcp > SIM_LINE_INLINE)
        return (int)((l->sharers[p / 64] >> (p % 64)) & 1);
    for (unsigned k = 0; k < l->ncp; k++)
        if (l->cp[k].p == p)
            return 1;
    return 0;
}

/* On a machine with three-leg paths (no attach units, so the line's home is its home node) a transfer
 * between two nodes other than the home goes requester -> home -> owner -> requester. */
static double cost(const struct sim *s, unsigned p, unsigned q, const struct line *l)
{
    if (s->m->nnodes)
        return sim_machine_cost_via(s->m, s->part[p].hw, s->part[q].hw, (unsigned)l->home);
    return sim_machine_cost(s->m, s->part[p].hw, s->part[q].hw, (unsigned)l->home);
}

/* A line transfer to participant p from q: a spinning waiter's re-read in a hand-off costs the layer's
 * latency (what a ping-pong measures), or its paused_transfer if it polled with pause and the machine
 * gives one (README, "Paused hand-offs"); any other transfer — a read or an atomic by a thread that was
 * not polling the line — the layer's cold transfer where the machine gives one ("Cold transfers").
 * r: p's cost row for the line (machine_cost.h), so that a scan over the line's copies looks up p's
 * side once. */
static inline double xfer_row(const struct sim *s, const struct sim_cost_row *r, unsigned q, const struct line *l,
                              enum sim_xfer how)
{
    unsigned b = s->part[q].hw;
    const struct sim_layer *y = &s->m->layer[sim_cost_row_layer(r, b)];
    double c = s->m->nnodes ? sim_machine_cost_via(s->m, r->a, b, (unsigned)l->home) : sim_cost_row_cost(r, y, b);
    return c + sim_layer_xfer_delta(y, how);
}

static double xfer(const struct sim *s, unsigned p, unsigned q, const struct line *l, enum sim_xfer how)
{
    struct sim_cost_row r = sim_cost_row(s->m, s->part[p].hw, (unsigned)l->home);
    return xfer_row(s, &r, q, l, how);
}

/* The time a line transfer from participant q to the running participant, issued at t, starts: after
 * the ports of every link it crosses took it (links.c). */
static double link_start(struct sim *s, unsigned q, double t)
{
    return s->m->nlinks ? sim_link_take(s, s->part[q].hw, s->part[s->cur].hw, t) : t;
}

static void assign_home(struct sim *s, struct line *l)
{
    if (l->home >= 0)
        return;
    unsigned units = s->m->attach < 0 ? 1 : s->m->nattach;
    if (s->m->nnodes) { /* home nodes: the initializing participant's, or spread by the seeded hash below */
        units = s->m->nnodes;
        if (s->m->node_init) {
            l->home = (int)sim_machine_unit(s->m, s->part[0].hw, s->m->node_level);
            return;
        }
    }
    if (s->m->home_first_touch && !s->m->nnodes) {
        l->home = (int)sim_machine_attach_unit(s->m, s->part[s->cur].hw);
    } else { /* hash: the hardware's is undisclosed; uniform from the run's seed */
        l->home = (int)(sim_line_hash(s, l) % units);
    }
}

/* A line no cache holds: its first access pays the machine's largest cost to the home (README). */
static double first_touch(const struct sim *s, const struct line *l)
{
    double worst = 0;
    struct sim_cost_row r = sim_cost_row(s->m, s->part[s->cur].hw, (unsigned)l->home);
    for (unsigned b = 0; b < s->m->threads; b++) {
        double c = sim_cost_row_cost(&r, &s->m->layer[sim_cost_row_layer(&r, b)], b);
        if (c > worst)
            worst = c;
    }
    return worst;
}

/* A hit, a core-bound step: stretched while the core's issue is shared with busy SMT siblings (smt.c) */
static double issue(const struct sim *s) { return s->m->smt_share > 0 ? sim_issue_share(s) : 1; }
static double hit(const struct sim *s) { return s->m->layer[s->m->self_layer].ns * issue(s); }

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

/* A line outgrowing its inline copies moves them to an allocation and starts its bitset, which from then
 * on answers sharer() (scanning hundreds of copies would not) */
static void add_copy(struct line *l, unsigned p, double ready)
{
    if (l->ncp == l->capcp) {
        unsigned cap = 2 * l->capcp;
        struct copy *cp = l->cp == l->inl ? malloc(cap * sizeof *cp) : realloc(l->cp, cap * sizeof *cp);
        if (!cp)
            abort(); /* out of memory in the middle of a simulation: nothing sensible to return */
        if (l->cp == l->inl) {
            memcpy(cp, l->inl, sizeof l->inl);
            for (unsigned k = 0; k < l->ncp; k++)
                l->sharers[cp[k].p / 64] |= UINT64_C(1) << (cp[k].p % 64);
        }
        l->cp = cp, l->capcp = cap;
    }
    l->cp[l->ncp++] = (struct copy){ p, ready };
    if (l->capcp > SIM_LINE_INLINE)
        l->sharers[p / 64] |= UINT64_C(1) << (p % 64);
}

static void drop_copies(struct line *l)
{
    if (l->capcp > SIM_LINE_INLINE)
        for (unsigned k = 0; k < l->ncp; k++)
            l->sharers[l->cp[k].p / 64] = 0;
    l->ncp = 0;
}

/* A read miss by the running participant starting at t: the time the line arrives, from the owner, or
 * from the copy that can deliver it first (a copy still on its way supplies only after it arrived),
 * or at first touch from the home. The reader then shares the line; an owner keeps a shared copy. */
static double read_miss(struct sim *s, struct line *l, double t, enum sim_xfer how)
{
    unsigned me = s->cur;
    double done;
    if (l->owner >= 0) {
        done = link_start(s, (unsigned)l->owner, t) + xfer(s, me, (unsigned)l->owner, l, how);
        add_copy(l, (unsigned)l->owner, l->busy_until);
        l->owner = -1;
    } else if (l->ncp) { /* the supplier that would deliver first; then its transfer queues at the links */
        double best = -1, from = t;
        unsigned q = 0;
        struct sim_cost_row r = sim_cost_row(s->m, s->part[me].hw, (unsigned)l->home);
        /* no copy delivers before its arrival plus the least transfer (machine_cost.h): one that cannot
         * beat the best so far is passed over without costing it, and none can once the best is an
         * arrived copy's least transfer. The same copy is chosen as by costing every one; at central's
         * releases to 1023 spinners one in twenty is (27 of 512 a scan, noc1024). */
        double least = s->m->nnodes || l->ncp < 4 ? -HUGE_VAL : sim_cost_row_least(&r, s->xfer_layers, how);
        for (unsigned k = 0; k < l->ncp; k++) {
            double f = l->cp[k].ready > t ? l->cp[k].ready : t;
            if (best >= 0 && f + least >= best)
                continue;
            double d = f + xfer_row(s, &r, l->cp[k].p, l, how);
            if (best < 0 || d < best) {
                best = d, from = f, q = l->cp[k].p;
                if (best <= t + least)
                    break;
            }
        }
        done = link_start(s, q, from) + xfer_row(s, &r, q, l, how);
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

void sim_charge_read(struct sim *s, uint32_t i)
{
    struct line *l = &s->lines[i / s->line_slots];
    struct part *p = &s->part[s->cur];
    enum sim_xfer how = p->spin_woken; /* only the first read after a spinning wake-up is a hand-off's */
    p->spin_woken = SIM_XFER_COLD;
    assign_home(s, l);
    double t = start_at(s, l);
    if (s->m->inval_none) {
        if (!at_home(s, l))
            t = sim_dir_take(s, l, t, 0);
        p->clock = t + to_home(s, l);
        if (at_home(s, l))
            s->res->traffic.reads_local++;
        else
            s->res->traffic.reads_remote++;
        return;
    }
    if ((int)s->cur == l->owner) { /* its own store, pending or not: forwarded from the store buffer */
        p->clock += hit(s);
        s->res->traffic.reads_local++;
        return;
    }
    if (sharer(l, s->cur)) {
        p->clock = t + hit(s);
        s->res->traffic.reads_local++;
        return;
    }
    p->clock = read_miss(s, l, sim_dir_take(s, l, t, 0), how);
    s->res->traffic.reads_remote++;
}

/* The invalidations an ownership request sends to the other holders go out in parallel (a directory
 * or probe filter multicasts them and collects the acknowledgements): the farthest holder's α·L, plus
 * the directory's issue cost for every holder beyond the first (issue 12 item 1; 002 §III-B's Σ α_i·L_i
 * priced them one after another, which charged a release to P - 1 spinners P - 1 round trips). */
static double invalidations(struct sim *s, const struct line *l, unsigned me, unsigned *others)
{
    const struct part *p = &s->part[me];
    double worst = 0;
    unsigned k = 0;
    for (int j = -1; j < (int)l->ncp; j++) {
        int q = j < 0 ? l->owner : (int)l->cp[j].p;
        if (q < 0 || q == (int)me)
            continue;
        k++;
        double v = sim_machine_alpha(s->m, p->hw, s->part[q].hw) * cost(s, me, (unsigned)q, l);
        if (v > worst)
            worst = v;
    }
    *others = k;
    return k ? worst + (k - 1) * s->m->inval_each_ns : 0;
}

/* What an ownership request by the running participant costs from t, and the line's new state. A
 * streaming store (003 §2: a whole line written without reading it, no read-for-ownership) needs no data,
 * only the invalidations. */
static double ownership(struct sim *s, struct line *l, double t, int streaming)
{
    unsigned me = s->cur, others;
    if (s->m->inval_none)
        return (at_home(s, l) ? 0 : sim_dir_take(s, l, t, 0) - t) + to_home(s, l);
    int holds = (int)me == l->owner || sharer(l, me);
    double inval = invalidations(s, l, me, &others), c, queued = 0;
    if (!holds || others) { /* not a hit: the request goes through the directory */
        double start = sim_dir_take(s, l, t, others > 1 ? (others - 1) * s->m->inval_each_ns : 0);
        queued = start - t;
        t = start;
    }
    if (holds || streaming)
        c = others ? inval : hit(s);            /* an upgrade: only the other copies to invalidate */
    else if (l->owner >= 0) /* held Modified by one core: it forwards the line and drops its copy in one
                             * transfer (a CAS hand-off costs about a load from a modified line) */
        c = link_start(s, (unsigned)l->owner, t) - t + xfer(s, me, (unsigned)l->owner, l, SIM_XFER_COLD);
    else {                                      /* data from the nearest copy while the others are invalidated */
        double data = read_miss(s, l, t, SIM_XFER_COLD) - t;
        c = data > inval ? data : inval;
    }
    s->res->traffic.invalidations += others;
    drop_copies(l);
    l->owner = (int)me;
    return queued + c;
}

enum { W_STORE, W_ATOMIC, W_STORE_EXCLUSIVE }; /* what charge_write charges */

/* A plain store goes to the participant's store buffer: the participant goes on after a hit's time,
 * while the ownership request completes in the background. Stores become visible in program order
 * (each completes no earlier than the one before it: TSO, and a release on ARMv8), so a parent's
 * stores to several children's flags overlap instead of queueing behind each other. The line is busy
 * until the store completes, so nobody reads the new value before it is visible. An atomic
 * (read-modify-write), and a store-exclusive, drain the buffer first and wait for their own completion. */
static void charge_write(struct sim *s, uint32_t i, int how)
{
    int rmw = how != W_STORE;
    struct line *l = &s->lines[i / s->line_slots];
    struct part *p = &s->part[s->cur];
    assign_home(s, l);
    double t = start_at(s, l);
    if (rmw && p->drained > t)
        t = p->drained;
    double done = t + ownership(s, l, t, !rmw && s->o->streaming);
    if (rmw) {
        if (how == W_ATOMIC) /* an exclusive pair is charged access by access (sim_charge_rmw) */
            done += s->m->atomic_extra_ns * issue(s);
        s->res->traffic.rmws++;
        p->clock = done;
    } else {
        s->res->traffic.writes++;
        if (done < p->drained)
            done = p->drained;
        p->clock += hit(s);
    }
    p->drained = done;
    l->busy_until = done;
}

void sim_charge_write(struct sim *s, uint32_t i)
{
    charge_write(s, i, W_STORE);
}

/* A read-modify-write of slot i by the running participant. Where atomics are one instruction (x86's
 * lock prefix, ARMv8.1's LSE, the Tile's test-and-set) it is one ownership request plus
 * coherence.atomic.extra, and it always writes. Where they are ARMv8.0's exclusive pairs (machine kind
 * armv8-llsc, or --atomics llsc: code built for armv8-a, as GCC 8's default is) it is a loop:
 *   LDAXR  reads the line like any load — a shared copy — and arms the core's exclusive monitor;
 *   STLXR  succeeds only while that copy is still held: another core's ownership request invalidates
 *          it and so clears the monitor (the ARM ARM's local monitor; AMBA CHI's exclusive sequence, a
 *          shared read then CleanUnique). Succeeding, it upgrades the copy (only the invalidations);
 *          failing, it costs a hit and the loop loads again.
 * Between the two the participant yields, so every request issued before its load completed is served
 * first: k contenders that load together see one store succeed and k - 1 loads again (the retries
 * of contended LL/SC, which no single-instruction atomic has). The pair's two accesses are charged as
 * such, so coherence.atomic.extra (one exclusive load and store on an owned line) is not added again.
 * cmp (a CAS's expected value, or NULL): when the load reads another value the sequence stops there
 * (CLREX), *seen holds that value and 0 is returned; else 1, the line is this participant's to write. */
int sim_charge_rmw(struct sim *s, uint32_t i, const uint64_t *cmp, uint64_t *seen)
{
    if (!s->m->atomic_llsc) {
        charge_write(s, i, W_ATOMIC);
        *seen = s->slots[i];
        return 1;
    }
    struct line *l = &s->lines[i / s->line_slots];
    for (;;) {
        sim_charge_read(s, i);
        *seen = s->slots[i];  /* the value as the load finds the line */
        sim_yield(s);         /* whatever was issued before the load completed is served first */
        if (cmp && *seen != *cmp)
            return 0;
        if ((int)s->cur == l->owner || sharer(l, s->cur))
            break;            /* the monitor held: nobody took the line since the load */
        s->part[s->cur].clock += hit(s); /* STLXR failed; loop */
        s->res->traffic.sc_fails++;
    }
    charge_write(s, i, W_STORE_EXCLUSIVE);
    return 1;
}
