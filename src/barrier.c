/* barrier.c — the barrier object: validation, spec resolution, layout, dispatch (and the hand-on after a
 * release that woke sleepers), errors. */
#define _GNU_SOURCE
#include "auto.h"
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "owner.h"
#include "shape.h"
#include "topo.h"

#define AG_MAX_THREADS (1u << 20)

const char *ag_strerror(int err)
{
    switch (err) {
    case 0: return "success";
    case AG_SERIAL: return "AG_SERIAL: this participant is the serial one of the episode (not an error)";
    case EINVAL: return "invalid argument (NULL pointer, nthreads 0, tid out of range, or bad spec string)";
    case ENOMEM: return "out of memory";
    case EBUSY: return "barrier busy: a participant is still inside it (or still leaving, through this tid)";
    case ETIMEDOUT: return "timed out";
    case ENOTSUP: return "not supported by this build";
    case AG_EBROKEN: return "barrier broken: cancelled or timed out; reset it before use";
    default: return "unknown error code";
    }
}

/* The spec to parse: the configured one, else the environment variable, else "auto". */
static const char *pick(const char *given, const char *env)
{
    if (given)
        return given;
    const char *e = getenv(env);
    return e && *e ? e : "auto";
}

/* How many distinct CPUs cfg.cpus names (n without cpus: the default placement binds nobody). One pass
 * over a table of the CPU numbers (ag_shape_build has checked every entry is an online CPU); n when the
 * table cannot be had. */
static unsigned cpus_named(unsigned n, const int *cpus)
{
    if (!cpus)
        return n;
    int top = 0;
    for (unsigned t = 0; t < n; t++)
        top = cpus[t] > top ? cpus[t] : top;
    unsigned char *seen = calloc((size_t)top + 1, 1);
    if (!seen)
        return n;
    unsigned k = 0;
    for (unsigned t = 0; t < n; t++)
        if (cpus[t] >= 0 && !seen[cpus[t]])
            seen[cpus[t]] = 1, k++;
    free(seen);
    return k;
}

/* algo=auto (auto.c): the policy spins unless it blocks, yields, or is a hybrid without a spin phase */
static const char *auto_algo(unsigned n, const int *cpus, const struct ag_waitpol *wp, const struct ag_shape *sh)
{
    struct ag_auto_in in = { .n = n, .cpu_groups = cpus_named(n, cpus) };
    in.spins = !(wp->kind == AG_W_BLOCK || wp->kind == AG_W_YIELD || (wp->kind == AG_W_HYBRID && wp->ns == 0));
    ag_auto_from_shape(&in, sh);
    return ag_auto_algo(&in);
}

int ag_env_check(char *msg, size_t msglen)
{
    int rc = ag_topo_env_check(msg, msglen);
    return rc ? rc : ag_membarrier_env_check(msg, msglen);
}

int ag_resolve(const ag_config_t *cfg, struct ag_spec *algo, struct ag_waitpol *wp, struct ag_shape *sh,
               char *msg, size_t msglen)
{
    if (!cfg)
        return snprintf(msg, msglen, "cfg is NULL"), EINVAL;
    if (cfg->nthreads == 0)
        return snprintf(msg, msglen, "nthreads is 0; a barrier needs at least 1 participant"), EINVAL;
    if (cfg->nthreads > AG_MAX_THREADS)
        return snprintf(msg, msglen, "nthreads %u exceeds the maximum %u", cfg->nthreads, AG_MAX_THREADS),
               EINVAL;
    if (cfg->flags & ~AG_PSHARED)
        return snprintf(msg, msglen, "unknown flags 0x%x", cfg->flags & ~AG_PSHARED), EINVAL;

    struct ag_spec ws;
    int rc = ag_spec_parse(&ag_wait_table, pick(cfg->wait, "ANDGATE_WAIT"), &ws, msg, msglen);
    if (rc || (rc = ag_env_check(msg, msglen)))
        return rc;
    /* the process's CPUs, read once for both the wait policy and the placement */
    struct ag_cpu_budget bud;
    cpu_set_t process;
    ag_cpu_budget(&bud, &process, 0);
    /* participants outnumber the CPUs the process may run on, not its quota: a quota takes CPU time, not
     * CPUs, so a waiter that yields finds nobody to yield to, then sleeps where a short spin would have
     * seen the release (docs/results.md, "thirteenth part": under a 1-CPU quota on 2 CPUs the yielding
     * policy made 2-thread programs 1.2-3.4x slower than the spinning one) */
    ag_wait_resolve(&ws, cfg->nthreads, bud.process, cfg->cpus != NULL, wp);

    if ((rc = ag_shape_build(sh, cfg->nthreads, cfg->cpus, &process, msg, msglen)))
        return rc;
    const char *as = pick(cfg->algo, "ANDGATE_ALGO");
    if (strcmp(as, "auto") == 0)
        as = auto_algo(cfg->nthreads, cfg->cpus, wp, sh);
    if ((rc = ag_spec_parse(&ag_algo_table, as, algo, msg, msglen)))
        ag_shape_free(sh);
    return rc;
}

int ag_config_check(const ag_config_t *cfg, char *msg, size_t msglen)
{
    char dummy[1];
    if (!msg || !msglen)
        msg = dummy, msglen = sizeof dummy;
    msg[0] = '\0';
    struct ag_spec algo;
    struct ag_waitpol wp;
    struct ag_shape sh;
    int rc = ag_resolve(cfg, &algo, &wp, &sh, msg, msglen);
    if (!rc)
        ag_shape_free(&sh);
    return rc;
}

int ag_env_verify(char *msg, size_t msglen)
{
    /* ANDGATE_TOPOLOGY and ANDGATE_MEMBARRIER first (ag_config_check would report them under whichever
     * spec it checks), then each spec variable alone, so that the message can name it */
    static const char *const specs[] = { "ANDGATE_ALGO", "ANDGATE_WAIT" };
    int rc = ag_env_check(msg, msglen);
    for (int i = 0; i < 2 && !rc; i++) {
        const char *v = getenv(specs[i]);
        ag_config_t cfg = { .nthreads = 2, .algo = i == 0 ? v : "auto", .wait = i == 1 ? v : "auto" };
        char why[512];
        if (v && *v && (rc = ag_config_check(&cfg, why, sizeof why)))
            snprintf(msg, msglen, "%s='%s': %s", specs[i], v, why);
    }
    return rc;
}

/* Every flag to its initial state: not broken, every participant at the first episode and outside,
 * the algorithm's flags as its reset() puts them, no sleepers. Nobody alive may be inside: a marker
 * left here belongs to a process that died inside (ag_inside_live), and so does a sleeper count it
 * never took back. */
void ag_reset_state(ag_barrier_t *b)
{
    for (unsigned t = 0; t < b->run.n; t++) {
        flag_put(&b->run.fl, ag_at(b->self, t), b->run.epoch0);
        flag_put(&b->run.fl, ag_at(b->self, t) + 1, 0);
    }
    if (b->sleepers)
        for (uint32_t i = 0; i < b->run.fl.nslots; i++)
            atomic_store_explicit(&b->sleepers[i], 0, memory_order_relaxed);
    b->algo->reset(&b->run);
    atomic_store_explicit(&b->chosen_state, 0, memory_order_relaxed); /* an adaptive algorithm decides anew */
    flag_store(&b->run.fl, b->run.fl.broken, 0);
}

ag_barrier_t *ag_handle_alloc(unsigned n)
{
    return calloc(1, sizeof(ag_barrier_t) + (size_t)n * sizeof(struct ag_lane));
}

int ag_plan(ag_barrier_t *b, unsigned n, unsigned algo, const long *params, const struct ag_waitpol *wp,
            const struct ag_shape *sh, struct ag_layout *L)
{
    b->algo = ag_algos[algo];
    b->wp = *wp;
    memcpy(b->params, params, sizeof b->params);
    b->line = ag_line_of(b->algo, b->params);
    return ag_layout_plan(b->algo, n, b->params, b->line, sh->rank, sh->order, (const unsigned *const *)sh->group,
                          sh->ngroups, L, &b->run.fl.broken, &b->self);
}

void ag_place(ag_barrier_t *b, unsigned n, _Atomic uint64_t *slots, _Atomic uint32_t *sleepers,
              const struct ag_layout *L, uint64_t epoch0, int pshared)
{
    b->slots = slots;
    b->sleepers = sleepers;
    b->state = L->state;
    uint32_t broken = b->run.fl.broken;
    b->run = (struct ag_run){
        /* membarrier() fences only this process: never for process-shared barriers */
        .fl = { .slots = slots, .sleepers = sleepers, .wp = &b->wp, .stalled_at = &b->stalled_at,
                .pshared = pshared,
                .asym = sleepers && !pshared && ag_wait_sleeps_rarely(&b->wp) && ag_membarrier_ready(),
                .broken = broken, .nslots = L->nslots },
        .n = n,
        .st = b->state,
        .p = b->params,
        .epoch0 = epoch0,
    };
    int len = ag_kind_format(&ag_algo_table, &b->algo->k, b->params, b->desc, sizeof b->desc);
    if (len >= 0 && (size_t)len < sizeof b->desc) {
        len += snprintf(b->desc + len, sizeof b->desc - (size_t)len, " wait=");
        if ((size_t)len < sizeof b->desc)
            ag_wait_format(&b->wp, b->desc + len, sizeof b->desc - (size_t)len);
    }
}

int ag_barrier_init_at(ag_barrier_t **out, const ag_config_t *cfg, uint64_t epoch0)
{
    char msg[256];
    if (!out)
        return EINVAL;
    if (cfg && (cfg->flags & AG_PSHARED))
        return EINVAL; /* process-shared barriers live in the caller's memory: ag_barrier_init_shm */
    struct ag_spec sp;
    struct ag_waitpol wp;
    struct ag_shape sh;
    int rc = ag_resolve(cfg, &sp, &wp, &sh, msg, sizeof msg);
    if (rc)
        return rc;
    ag_barrier_t *b = ag_handle_alloc(cfg->nthreads);
    struct ag_layout L;
    if (!b) {
        ag_shape_free(&sh);
        return ENOMEM;
    }
    rc = ag_plan(b, cfg->nthreads, sp.index, sp.val, &wp, &sh, &L);
    ag_shape_free(&sh);
    _Atomic uint64_t *slots = NULL;
    _Atomic uint32_t *sleepers = NULL;
    size_t bytes = (size_t)L.nslots * sizeof(uint64_t);
    if (!rc && !(slots = aligned_alloc(b->line, (bytes + b->line - 1) / b->line * b->line)))
        rc = ENOMEM;
    if (!rc && ag_wait_may_block(&wp) && !(sleepers = calloc(L.nslots, sizeof *sleepers)))
        rc = ENOMEM;
    if (rc) {
        free(L.state);
        free(slots);
        free(b);
        return rc;
    }
    memset(slots, 0, bytes);
    b->owns_memory = 1;
    ag_place(b, cfg->nthreads, slots, sleepers, &L, epoch0, 0);
    ag_reset_state(b);
    *out = b;
    return 0;
}

int ag_barrier_init(ag_barrier_t **out, const ag_config_t *cfg)
{
    return ag_barrier_init_at(out, cfg, 0);
}

/* ThreadSanitizer. A program built with -fsanitize=thread links the TSan runtime, which defines these;
 * in any other program they stay NULL (weak) and cost a predictable branch. They tell TSan what the
 * barrier guarantees even when libandgate itself was built without TSan (its atomics then are invisible
 * to it): every participant's writes before episode e happen before every participant's reads after
 * it. One sync object per episode parity: arrivals for episode e + 1 cannot mix into episode e's
 * departures, and episode e + 2 cannot start before every participant has left episode e. */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

static int run_episode(ag_barrier_t *b, unsigned tid, uint64_t deadline)
{
    if (b->run.n == 1) { /* one participant: complete on arrival, without marking itself inside */
        /* but not in the middle of its own split phase: only ag_arrive sets this marker here */
        uint64_t marker = flag_load(&b->run.fl, ag_at(b->self, 0) + 1);
        if (marker)
            return ag_refuse(marker);
        return flag_broken(&b->run.fl) ? AG_EBROKEN : AG_SERIAL;
    }
    if (b->run.fl.pshared)
        ag_owner_stamp(b, tid); /* before ag_episode sets the marker (owner.c, I1) */
    if (!__tsan_release)
        return ag_episode(b->algo, &b->run, b->self, tid, deadline, &b->lanes[tid]);
    char *sync = &b->tsan_sync[flag_load(&b->run.fl, ag_at(b->self, tid)) & 1];
    __tsan_release(sync);
    int rc = ag_episode(b->algo, &b->run, b->self, tid, deadline, &b->lanes[tid]);
    if (rc == 0 || rc == AG_SERIAL)
        __tsan_acquire(sync);
    return rc;
}

/* The hand-on, under a policy that yields (wait.h ag_wait_yields: auto when participants outnumber the
 * CPUs). A participant whose release woke sleepers gives its CPU away once at the end of the call that
 * released (a wait, or the split phase's arrive or depart): those it woke may be runnable on its CPU,
 * and otherwise they wait there behind its next phase — for the whole of a scheduler slice when that
 * phase is the program's own busy-wait for one of them (PRK's Reduce spins on a partner's flag between
 * barriers). The kernel lets a running thread go on rather than switch to one it has just woken (Linux's
 * EEVDF scheduler, 6.6 and later, runs it to the end of its slice; and its sched_yield moves the caller's
 * virtual deadline a slice later, so waiters that yielded before they slept come after the releaser).
 * Measured in docs/results.md ("fifteenth part"): PRK Reduce with gcc at 4 threads on 2 CPUs 3.2-3.6 ms
 * per iteration before, 0.5-0.8 after; the OpenMP apps with libgomp at 4 threads 1.1-1.5x faster, with
 * libomp level. A releaser that woke nobody yields nothing: a yield after every episode made libomp's
 * short episodes 20-29% slower (an extra switch each). Waiters that only yield are not seen here: where
 * one of them is kept from its CPU, hybrid's stall rule (stall_ns, auto's when oversubscribed: wait.h)
 * makes the barrier's waiters sleep for a while, so that the rule here sees them.
 * wakes_at: this thread's ag_flag_wakes_issued() before the call (read only under such a policy). */
static unsigned wakes_at(const ag_barrier_t *b)
{
    return ag_wait_yields(b->run.fl.wp) ? ag_flag_wakes_issued() : 0;
}

static int hand_on(const ag_barrier_t *b, unsigned wakes_before, int rc)
{
    if (ag_wait_yields(b->run.fl.wp) && (rc == 0 || rc == AG_SERIAL) && ag_flag_wakes_issued() != wakes_before)
        sched_yield();
    return rc;
}

static int episode(ag_barrier_t *b, unsigned tid, uint64_t deadline)
{
    unsigned w = wakes_at(b);
    return hand_on(b, w, run_episode(b, tid, deadline));
}

int ag_barrier_wait(ag_barrier_t *b, unsigned tid)
{
    if (!b || tid >= b->run.n)
        return EINVAL;
    return episode(b, tid, AG_NO_DEADLINE);
}

int ag_barrier_wait_until(ag_barrier_t *b, unsigned tid, const struct timespec *abs_deadline)
{
    uint64_t dl;
    if (!b || tid >= b->run.n || ag_deadline_ns(abs_deadline, &dl))
        return EINVAL;
    return episode(b, tid, dl);
}

int ag_barrier_arrive(ag_barrier_t *b, unsigned tid, ag_token_t *token)
{
    if (!b || tid >= b->run.n || !token)
        return EINVAL;
    if (__tsan_release)
        __tsan_release(&b->tsan_sync[flag_load(&b->run.fl, ag_at(b->self, tid)) & 1]);
    if (b->run.fl.pshared)
        ag_owner_stamp(b, tid); /* before ag_arrive sets the marker (owner.c, I1) */
    unsigned w = wakes_at(b);
    return hand_on(b, w, ag_arrive(b->algo, &b->run, b->self, tid, token, &b->lanes[tid]));
}

int ag_barrier_depart(ag_barrier_t *b, unsigned tid, ag_token_t token, const struct timespec *abs_deadline)
{
    uint64_t dl;
    if (!b || tid >= b->run.n || ag_deadline_ns(abs_deadline, &dl))
        return EINVAL;
    char *sync = &b->tsan_sync[flag_load(&b->run.fl, ag_at(b->self, tid)) & 1];
    unsigned w = wakes_at(b);
    int rc = ag_depart(b->algo, &b->run, b->self, tid, token, dl, &b->lanes[tid]);
    if (__tsan_acquire && (rc == 0 || rc == AG_SERIAL))
        __tsan_acquire(sync);
    return hand_on(b, w, rc);
}

int ag_barrier_cancel(ag_barrier_t *b)
{
    if (!b)
        return EINVAL;
    ag_flags_break(&b->run.fl);
    return 0;
}

unsigned ag_inside_count(const ag_barrier_t *b)
{
    unsigned k = 0;
    for (unsigned t = 0; t < b->run.n; t++)
        k += flag_load(&b->run.fl, ag_at(b->self, t) + 1) != 0;
    return k;
}

static int anyone_inside(const ag_barrier_t *b)
{
    return ag_inside_count(b) != 0;
}

/* Process-shared: a participant whose process died inside is not inside (owner.c); the caller
 * guarantees nobody enters while it resets, as always. */
int ag_barrier_reset(ag_barrier_t *b)
{
    if (!b)
        return EINVAL;
    if (ag_inside_live(b))
        return EBUSY;
    ag_reset_state(b);
    return 0;
}

int ag_barrier_is_broken(const ag_barrier_t *b)
{
    return b && flag_broken(&b->run.fl);
}

int ag_barrier_destroy(ag_barrier_t *b)
{
    if (!b)
        return EINVAL;
    /* Nobody inside may be left on a freed handle. A private barrier: no participant inside. An attached
     * process-shared one is only this process's handle (the segment stays, and other processes'
     * participants go on in it), so none of this process's participants may be inside (owner.c). */
    if (b->owns_memory ? anyone_inside(b) : ag_inside_here(b) != 0)
        return EBUSY;
    free(b->state);
    if (b->owns_memory) {
        free(b->sleepers);
        free(b->slots);
    }
    free(b);
    return 0;
}

/* An algorithm that decides while it runs (tune) is described with its choice once it has made it. The
 * choice is permanent until ag_barrier_reset, so the text is written once: the caller that claims the
 * buffer writes it and publishes it with the release; a caller that finds it being written returns the
 * description without the choice rather than wait. */
const char *ag_barrier_describe(const ag_barrier_t *b)
{
    if (!b)
        return "(null barrier)";
    if (!b->algo->chosen)
        return b->desc;
    ag_barrier_t *w = (ag_barrier_t *)b; /* the handle is the library's, never const-defined */
    int st = atomic_load_explicit(&w->chosen_state, memory_order_acquire), idle = 0;
    if (st == 2)
        return b->desc_chosen;
    char c[192];
    if (st != 0 || b->algo->chosen(&b->run, c, sizeof c) <= 0 ||
        !atomic_compare_exchange_strong_explicit(&w->chosen_state, &idle, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return b->desc;
    snprintf(w->desc_chosen, sizeof w->desc_chosen, "%s chose=%s", b->desc, c);
    atomic_store_explicit(&w->chosen_state, 2, memory_order_release);
    return b->desc_chosen;
}
