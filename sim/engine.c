/* engine.c — the virtual-time engine of andgate sim (see engine.h). Single-threaded: one coroutine
 * runs at a time, so the shared state needs no atomics.
 *
 * Per simulated flag operation the engine does: the coherence bookkeeping of its line (owner, a bitset
 * of sharers, the time the line is busy until) and the cost of engine.h; for a store, the wake-up of
 * the participants waiting on that line (a list per line); then, under the fixed schedule, it goes on
 * running the same participant while its clock is still the smallest (compared with the top of a
 * binary heap of runnable participants), and otherwise pushes it into the heap and switches to the
 * scheduler (coro.h: no system call). With more participants than hardware threads, os_sched.c decides
 * which one runs on each; with --workload, workload.c gives each participant its life instead of
 * barrier episodes. */
#define _GNU_SOURCE
#include "engine_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"
#include "spec.h"
#include "stats.h"

#define STACK (64 * 1024)

void sim_fail(struct sim *s, const char *msg)
{
    if (s->res->ok) {
        s->res->ok = 0;
        snprintf(s->res->error, sizeof s->res->error, "%s", msg);
    }
}

/* One episode of participant tid from its arrival: the device's, the algorithm's wait, or split phase
 * (arrive, the independent work, depart). *ready: when it is ready to depart (its arrival, or after the
 * split work), what the latency counts from. */
static int episode(struct sim *s, unsigned tid, double *ready)
{
    struct part *p = &s->part[tid];
    *ready = p->clock;
    if (s->o->hw)
        return sim_hw_episode(s, tid);
    if (s->o->split_ns <= 0)
        return ag_episode(s->algo, &s->run, s->self, tid, AG_NO_DEADLINE, &p->lane);
    uint64_t tok;
    int rc = ag_arrive(s->algo, &s->run, s->self, tid, &tok, &p->lane);
    if (rc)
        return rc;
    sim_compute(s, s->o->split_ns);
    *ready = p->clock;
    sim_yield(s); /* the departure starts in clock order */
    return ag_depart(s->algo, &s->run, s->self, tid, tok, AG_NO_DEADLINE, &p->lane);
}

/* One participant's life: the episodes, with the checks of tests/test_semantics.c. */
static void participant(void)
{
    struct sim *s = S;
    unsigned tid = s->cur, n = s->n;
    struct part *p = &s->part[tid];
    if (s->wl) {
        sim_wl_participant(s);
        sim_done(s);
    }
    for (unsigned k = 0; k < s->run_episodes && s->res->ok; k++) {
        double work = s->o->work_ns;
        if (s->o->work_jitter_ns > 0) /* deterministic: participants draw in the engine's order */
            work += s->o->work_jitter_ns * (double)(sim_next_rand(s) >> 11) * 0x1.0p-53;
        sim_compute(s, work);
        if (s->o->method == SIM_JITTER && n > 1 && tid == (s->o->late_fixed ? n - 1 : k % n))
            sim_compute(s, s->o->late_ns);
        sim_yield(s); /* the arrival happens in clock order */
        s->arrived++;
        double slept = p->slept;
        int rc = episode(s, tid, &s->arr[(size_t)k * n + tid]);
        s->dep[(size_t)k * n + tid] = p->clock;
        s->slp[(size_t)k * n + tid] = p->slept - slept;
        if (rc == AG_SERIAL)
            s->serial[k]++;
        else if (rc != 0)
            sim_fail(s, "a wait returned an error");
        if (s->arrived < (uint64_t)(k + 1) * n)
            sim_fail(s, "a participant left an episode before every participant arrived");
    }
    sim_done(s);
}

void sim_done(struct sim *s)
{
    struct part *p = &s->part[s->cur];
    p->state = DONE;
    sim_os_leave(s, p->clock);
    sim_switch_away(s);
}


static int invalid(struct sim_result *res, const char *msg)
{
    snprintf(res->error, sizeof res->error, "%s", msg);
    res->ok = 0;
    return EINVAL;
}

/* The layout of the algorithm on the library's shape of the placement (sim_shape). */
static int plan(struct sim *s, long *params, unsigned line, struct ag_layout *L, uint32_t *broken)
{
    unsigned n = s->n, *hw = malloc((n ? n : 1) * sizeof *hw);
    struct ag_shape sh = { 0 };
    if (!hw)
        return ENOMEM;
    for (unsigned t = 0; t < n; t++)
        hw[t] = s->part[t].hw;
    int rc = sim_shape(s->m, n, hw, &sh);
    free(hw);
    if (rc)
        return rc;
    const unsigned *group[3] = { sh.group[0], sh.group[1], sh.group[2] };
    rc = ag_layout_plan(s->algo, n, params, line, sh.rank, sh.order, group, sh.ngroups, L, broken, &s->self);
    ag_shape_free(&sh);
    return rc;
}

static void measure(struct sim *s)
{
    const struct sim_opts *o = s->o;
    unsigned n = s->n;
    double *lat = malloc((o->episodes ? o->episodes : 1) * sizeof *lat), cpu = 0, prev = 0;
    if (!lat) {
        sim_fail(s, "out of memory for the statistics");
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
            cpu += y - x - s->slp[(size_t)(k + 1) * n + t];
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

/* The one cleanup of a run, from any point of sim_run: every pointer is NULL or owned (calloc'd
 * state), coroutines never made have no stack, and the device is torn down only if it was set up. */
static void release(struct sim *s, unsigned *hw, uint64_t *bits, struct ag_layout *L, int device_up)
{
    for (unsigned t = 0; s->part && t < s->n; t++)
        coro_free(&s->part[t].co);
    for (uint32_t l = 0; s->lines && l < s->nlines; l++)
        if (s->lines[l].cp != s->lines[l].inl) /* inline copies, or NULL before allocate() set it */
            free(s->lines[l].cp);
    if (device_up && s->o->hw->teardown)
        s->o->hw->teardown(&s->hwc);
    sim_wl_free(s);
    sim_os_free(s);
    free(s->part), free(s->ready), free(hw), free(s->serial), free(s->arr), free(s->dep), free(s->lines), free(bits);
    sim_dir_free(s), sim_smt_free(s), free(s->slp);
    free(s->slots), free(L->state);
    S = NULL;
}

/* The barrier to run: the hardware device set up, or the algorithm's spec parsed and its shape and
 * flag layout planned on the placement hw. 0 or an error code (message in the result). */
static int set_up_barrier(struct sim *s, unsigned *hw, long *params, struct ag_layout *L, uint32_t *broken)
{
    const struct sim_opts *o = s->o;
    struct sim_result *res = s->res;
    char msg[300];
    if (o->workload && o->hw) /* the workload serves its barrier, mutexes and conditions itself (workload.c) */
        return sim_wl_setup(s, msg, sizeof msg) ? invalid(res, msg) : 0;
    if (o->hw) {
        snprintf(res->describe, sizeof res->describe, "%s", o->hw->name);
        s->hwc = (struct sim_hw_ctx){ .m = o->m, .n = s->n, .hw = hw };
        return o->hw->setup(&s->hwc, msg, sizeof msg) ? invalid(res, msg) : 0;
    }
    struct ag_spec sp;
    if (ag_spec_parse(&ag_algo_table, o->algo, &sp, res->error, sizeof res->error)) {
        res->ok = 0;
        return EINVAL;
    }
    ag_spec_format(&ag_algo_table, &sp, res->describe, sizeof res->describe);
    s->algo = ag_algos[sp.index];
    memcpy(params, sp.val, sizeof(long) * AG_MAXKEYS);
    int rc = plan(s, params, ag_line_of(s->algo, params), L, broken);
    if (rc) {
        snprintf(res->error, sizeof res->error, "setup failed (%s)", strerror(rc));
        res->ok = 0;
    } else if (o->workload && sim_wl_setup(s, msg, sizeof msg)) {
        return invalid(res, msg);
    }
    return rc;
}

/* The flag slots, their lines (each with its sharer bitset in *bits) and the per-episode records. */
static int allocate(struct sim *s, uint32_t nslots, uint64_t **bits)
{
    unsigned n = s->n;
    s->slots = calloc(nslots, sizeof *s->slots);
    s->nlines = (nslots + s->line_slots - 1) / s->line_slots;
    s->lines = aligned_alloc(_Alignof(struct line), s->nlines * sizeof *s->lines);
    if (s->lines) /* zero: release() can run before the loop below */
        memset(s->lines, 0, s->nlines * sizeof *s->lines);
    *bits = calloc((size_t)s->nlines * s->words, sizeof **bits);
    s->serial = calloc(s->run_episodes, sizeof *s->serial);
    s->arr = calloc((size_t)s->run_episodes * n, sizeof *s->arr);
    s->dep = calloc((size_t)s->run_episodes * n, sizeof *s->dep);
    s->slp = calloc((size_t)s->run_episodes * n, sizeof *s->slp);
    if (sim_dir_init(s) || sim_smt_init(s) || !s->slp || !s->slots || !s->lines || !*bits || !s->serial ||
        !s->arr || !s->dep) {
        snprintf(s->res->error, sizeof s->res->error, "out of memory for %u participants x %u episodes", n,
                 s->o->episodes);
        s->res->ok = 0;
        return ENOMEM;
    }
    for (uint32_t l = 0; l < s->nlines; l++) { /* no copies, no home yet: the first access assigns it */
        struct line *ln = &s->lines[l];
        *ln = (struct line){ .owner = -1, .home = -1, .dir = -1, .waiters = -1, .capcp = SIM_LINE_INLINE,
                             .sharers = *bits + (size_t)l * s->words };
        ln->cp = ln->inl;
    }
    return 0;
}

/* Run every participant to the end, then the checks: no deadlock, one AG_SERIAL per episode. */
static void run_participants(struct sim *s, uint32_t broken, long *params, const struct ag_layout *L)
{
    const struct sim_opts *o = s->o;
    unsigned n = s->n;
    int rc = 0;
    S = s;
    s->run.fl = (ag_flags_t){ .sim = s, .broken = broken, .nslots = L->nslots };
    if (s->algo) {
        s->run = (struct ag_run){ .fl = { .sim = s, .broken = broken, .nslots = L->nslots }, .n = n, .st = L->state,
                                  .p = params, .epoch0 = o->epoch0 };
        /* the initial state, as ag_reset_state writes it: outside virtual time, without scheduling */
        for (unsigned t = 0; t < n; t++)
            s->slots[ag_at(s->self, t)] = o->epoch0;
        s->quiet = 1;
        s->algo->reset(&s->run);
        s->quiet = 0;
    }
    for (unsigned t = 0; t < n && !rc; t++) {
        rc = coro_make(&s->part[t].co, STACK, participant);
        s->part[t].state = RUNNABLE;
        s->part[t].next_waiter = -1;
        if (sim_os_starts(s, t)) /* else it waits in its hardware thread's run queue */
            sim_ready_push(s, (int)t);
    }
    if (rc)
        sim_fail(s, "out of memory for the participants' stacks");
    else if (sim_schedule(s) != 0)
        sim_fail(s, "deadlock: every participant waits");
    for (unsigned k = 0; !s->wl && s->res->ok && k < s->run_episodes; k++)
        if (s->serial[k] != 1)
            sim_fail(s, "an episode without exactly one AG_SERIAL");
    if (s->algo && s->algo->chosen && s->res->ok) { /* what it decided, read outside virtual time */
        s->quiet = 1;
        s->algo->chosen(&s->run, s->res->chosen, sizeof s->res->chosen);
        s->quiet = 0;
    }
}

/* Each participant's hardware thread in hw[] and part[].hw; with more participants than hardware threads,
 * participant t on the placement's thread t mod T (os_sched.c runs them). 0, or -1 with a message. */
static int place(struct sim *s, unsigned *hw, char *msg, size_t len)
{
    const struct sim_opts *o = s->o;
    unsigned n = s->n, placed = n < o->m->threads ? n : o->m->threads;
    if (o->hw && !o->workload && n > placed)
        return snprintf(msg, len, "%s: a barrier device serves one participant per hardware thread (%s has %u)",
                        o->hw->name, o->m->name, o->m->threads), -1;
    if (sim_place(o->m, placed, o->pin ? o->pin : "cores", hw, msg, len))
        return -1;
    for (unsigned t = 0; t < n; t++)
        s->part[t].hw = hw[t] = hw[t % placed];
    return 0;
}

int sim_run(const struct sim_opts *o, struct sim_result *res)
{
    memset(res, 0, sizeof *res);
    res->ok = 1;
    unsigned n = o->n;
    if (!n)
        return invalid(res, "at least one participant");
    if ((uint64_t)(o->episodes + 1ull) * n > SIM_MAX_SAMPLES)
        return invalid(res, "episodes x participants exceeds 2^27 (the per-episode samples would not fit)");
    /* splitmix64 of the seed: every seed, 0 included, gives a nonzero xorshift state */
    uint64_t z = o->seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    struct sim s = { .o = o, .m = o->m, .n = n, .words = (n + 63) / 64, .rng = z ? z : 1, .res = res,
                     .line_slots = o->m->line_bytes / 8, .run_episodes = o->episodes + 1 };
    s.xfer_layers = sim_machine_pair_layers(o->m) | (n > o->m->threads ? 1u << o->m->self_layer : 0);
    struct ag_layout L = { 0 };
    long params[AG_MAXKEYS];
    uint32_t broken = 0;
    uint64_t *bits = NULL;
    char msg[300];
    s.part = calloc(n, sizeof *s.part);
    s.ready = calloc(n, sizeof *s.ready);
    unsigned *hw = calloc(n, sizeof *hw);
    if (!s.part || !s.ready || !hw)
        return release(&s, hw, bits, &L, 0), ENOMEM;
    if (place(&s, hw, msg, sizeof msg) || sim_os_init(&s, msg, sizeof msg)) {
        release(&s, hw, bits, &L, 0);
        return invalid(res, msg);
    }
    int rc = set_up_barrier(&s, hw, params, &L, &broken);
    if (rc) {
        release(&s, hw, bits, &L, 0);
        return rc;
    }
    uint32_t base = o->hw ? 1 : L.nslots;
    rc = allocate(&s, base + sim_wl_slots(&s, base), &bits);
    if (!rc) {
        run_participants(&s, broken, params, &L);
        if (res->ok && s.wl)
            sim_wl_finish(&s);
        else if (res->ok)
            measure(&s);
    }
    release(&s, hw, bits, &L, o->hw != NULL && !o->workload);
    return rc ? rc : res->ok ? 0 : -1;
}
