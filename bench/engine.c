/* engine.c — the measurement engine (see engine.h). */
#define _GNU_SOURCE
#include "engine.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "andgate.h"
#include "c2c.h"
#include "clock.h"
#include "json.h"
#include "record.h"
#include "topo.h"

const char *const bench_method_names[] = { "latency", "epcc", "jitter" };

#define EPCC_OUTER 20        /* outer repetitions, as EPCC's default */
#define EPCC_DELAY_NS 100    /* the delay between barriers, EPCC's default 0.1 us */
#define EPCC_TARGET_NS 1000000u /* target time of one test, EPCC's default 1000 us */

/* ---- the thread team ---- */

struct team_arg {
    void (*body)(unsigned, void *);
    void *arg;
    unsigned tid;
};

static void *team_thread(void *p)
{
    struct team_arg *a = p;
    a->body(a->tid, a->arg);
    return NULL;
}

/* The engine's team: n pthreads, the caller is not one of them. */
static int pthread_team(unsigned n, void (*body)(unsigned, void *), void *arg)
{
    pthread_t *th = calloc(n, sizeof *th);
    struct team_arg *ta = calloc(n, sizeof *ta);
    if (!th || !ta) {
        free(th), free(ta);
        return ENOMEM;
    }
    unsigned started = 0;
    int rc = 0;
    for (; started < n; started++) {
        ta[started] = (struct team_arg){ body, arg, started };
        if ((rc = pthread_create(&th[started], NULL, team_thread, &ta[started])))
            break;
    }
    /* threads already started wait in the harness barrier for the rest: a failed create cannot be
     * undone, so it aborts the measurement (the worker process exits) */
    if (rc) {
        fprintf(stderr, "bench: pthread_create failed for thread %u: %s\n", started, strerror(rc));
        exit(3);
    }
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    free(th);
    free(ta);
    return 0;
}

/* ---- one measurement ---- */

struct run {
    const struct bench_params *p;
    void *ctx;
    ag_barrier_t *sync;     /* the harness's own barrier, outside every timed region */
    const int *cpu;         /* pin map */
    uint64_t **arr, **dep;  /* per thread, per episode: ticks before the wait and after it */
    _Atomic unsigned stop_at;
    unsigned maxep;
    uint64_t t0;
    double *cpu_ns, *delay_cpu_ns;
    /* epcc */
    unsigned delay_len, inner, outer_done;
    double ref_ns[EPCC_OUTER], test_ns[EPCC_OUTER];
    _Atomic int epcc_stop;
};

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void pin_self(const struct run *r, unsigned tid)
{
    if (r->cpu[tid] < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(r->cpu[tid], &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void sync_all(struct run *r, unsigned tid)
{
    ag_barrier_wait(r->sync, tid);
}

/* latency and jitter: episodes back to back, each stamped before and after the wait */
static void episodes_body(unsigned tid, void *arg)
{
    struct run *r = arg;
    const struct bench_params *p = r->p;
    uint64_t *a = r->arr[tid], *d = r->dep[tid];
    uint64_t delay_ticks = (uint64_t)((double)p->jitter_ns * bench_clk.ticks_per_ns);
    double delay_cpu = 0;
    pin_self(r, tid);
    sync_all(r, tid);
    double c0 = thread_cpu_ns();
    for (unsigned k = 0; k < r->maxep; k++) {
        /* Stop on the time budget: thread 0 sets stop_at = k + 2 before arriving at episode k. No other
         * thread can pass episode k before that store, and the barrier makes it visible to all of them
         * by the top of episode k + 2, so everybody runs exactly episodes 0 .. k + 1. */
        if (k >= atomic_load_explicit(&r->stop_at, memory_order_relaxed))
            break;
        if (tid == 0 && (k & 31) == 31 && bench_mono_ns() - r->t0 > p->budget_ns)
            atomic_store_explicit(&r->stop_at, k + 2, memory_order_relaxed);
        if (p->method == BM_JITTER && p->n > 1 && tid == (p->late_rotating ? k % p->n : p->n - 1)) {
            double dc = thread_cpu_ns();
            uint64_t until = bench_ticks() + delay_ticks;
            while (bench_ticks() < until)
                ;
            delay_cpu += thread_cpu_ns() - dc;
        }
        a[k] = bench_ticks();
        p->impl->wait(r->ctx, tid);
        d[k] = bench_ticks();
    }
    r->cpu_ns[tid] = thread_cpu_ns() - c0;
    r->delay_cpu_ns[tid] = delay_cpu;
    sync_all(r, tid);
}

/* One EPCC timing: every thread runs inner x (delay [+ barrier]); thread 0 times it between harness
 * barriers. */
static double epcc_once(struct run *r, unsigned tid, int with_barrier)
{
    sync_all(r, tid);
    uint64_t t0 = bench_mono_ns();
    for (unsigned j = 0; j < r->inner; j++) {
        bench_delay(r->delay_len);
        if (with_barrier)
            r->p->impl->wait(r->ctx, tid);
    }
    sync_all(r, tid);
    return (double)(bench_mono_ns() - t0);
}

static void epcc_body(unsigned tid, void *arg)
{
    struct run *r = arg;
    uint64_t target = EPCC_TARGET_NS;
    if (target > r->p->budget_ns / (2 * EPCC_OUTER + 8))
        target = r->p->budget_ns / (2 * EPCC_OUTER + 8);
    pin_self(r, tid);
    double c0 = thread_cpu_ns();
    /* self-calibrating inner repetitions: double until one test takes the target time (EPCC) */
    for (;;) {
        double t = epcc_once(r, tid, 1);
        if (tid == 0 && !(t < (double)target && r->inner < (1u << 24)))
            atomic_store(&r->epcc_stop, 1);
        sync_all(r, tid);
        if (atomic_load(&r->epcc_stop))
            break;
        sync_all(r, tid);
        if (tid == 0)
            r->inner *= 2;
    }
    sync_all(r, tid);
    if (tid == 0)
        atomic_store(&r->epcc_stop, 0);
    sync_all(r, tid);
    for (unsigned rep = 0; rep < EPCC_OUTER; rep++) {
        double ref = epcc_once(r, tid, 0), test = epcc_once(r, tid, 1);
        if (tid == 0) {
            r->ref_ns[rep] = ref;
            r->test_ns[rep] = test;
            r->outer_done = rep + 1;
            if (bench_mono_ns() - r->t0 > 2 * r->p->budget_ns)
                atomic_store(&r->epcc_stop, 1); /* at least one repetition, then the budget rules */
        }
        sync_all(r, tid);
        if (atomic_load(&r->epcc_stop))
            break;
    }
    r->cpu_ns[tid] = thread_cpu_ns() - c0;
    r->delay_cpu_ns[tid] = 0;
}

static int fail(struct bench_result *res, const char *fmt, const char *s)
{
    res->ok = 0;
    snprintf(res->error, sizeof res->error, fmt, s);
    return -1;
}

static void summarize_episodes(struct run *r, struct bench_result *res, unsigned ep)
{
    const struct bench_params *p = r->p;
    unsigned warm = ep / 10 < 100 ? ep / 10 : 100; /* the first episodes warm caches and wake threads */
    size_t m = ep - warm;
    double *ns = malloc((m ? m : 1) * sizeof *ns), *cy = malloc((m ? m : 1) * sizeof *cy);
    if (!ns || !cy) {
        free(ns), free(cy);
        fail(res, "%s", "out of memory");
        return;
    }
    for (unsigned k = warm; k < ep; k++) {
        uint64_t last_arrival = 0, last_departure = 0;
        for (unsigned t = 0; t < p->n; t++) {
            if (r->arr[t][k] > last_arrival)
                last_arrival = r->arr[t][k];
            if (r->dep[t][k] > last_departure)
                last_departure = r->dep[t][k];
        }
        double ticks = last_departure > last_arrival ? (double)(last_departure - last_arrival) : 0;
        ns[k - warm] = bench_ticks_to_ns(ticks);
        cy[k - warm] = bench_clk.tsc ? ticks : 0;
    }
    res->episodes = ep;
    res->ns = stats_of(ns, m);
    res->cycles = stats_of(cy, m);
    if (m && p->nsamples >= 2 && (res->samples = malloc(p->nsamples * sizeof *res->samples))) {
        stats_quantiles(ns, m, res->samples, p->nsamples);
        res->nsamples = p->nsamples;
    }
    free(ns);
    free(cy);
}

int bench_run(const struct bench_params *p, struct bench_result *res)
{
    memset(res, 0, sizeof *res);
    res->ok = 1;
    struct run r = { .p = p, .maxep = p->episodes ? p->episodes : 1, .inner = 1 };
    atomic_store(&r.stop_at, r.maxep);
    int *cpu = calloc(p->n, sizeof *cpu);
    r.cpu_ns = calloc(p->n, sizeof *r.cpu_ns);
    r.delay_cpu_ns = calloc(p->n, sizeof *r.delay_cpu_ns);
    r.arr = calloc(p->n, sizeof *r.arr);
    r.dep = calloc(p->n, sizeof *r.dep);
    if (!cpu || !r.cpu_ns || !r.delay_cpu_ns || !r.arr || !r.dep)
        return fail(res, "%s", "out of memory");
    bench_pin_map(p->pin, p->n, cpu);
    r.cpu = cpu;
    if (p->method != BM_EPCC)
        for (unsigned t = 0; t < p->n; t++) {
            /* separate allocations: no two threads write the same cache line while measuring */
            r.arr[t] = aligned_alloc(64, ((size_t)r.maxep * sizeof(uint64_t) + 63) / 64 * 64);
            r.dep[t] = aligned_alloc(64, ((size_t)r.maxep * sizeof(uint64_t) + 63) / 64 * 64);
            if (!r.arr[t] || !r.dep[t])
                return fail(res, "%s", "out of memory for the episode stamps");
            memset(r.arr[t], 0, (size_t)r.maxep * sizeof(uint64_t));
            memset(r.dep[t], 0, (size_t)r.maxep * sizeof(uint64_t));
        }
    ag_config_t scfg = { .nthreads = p->n, .algo = "central", .wait = "auto" };
    if (ag_barrier_init(&r.sync, &scfg))
        return fail(res, "%s", "cannot create the harness barrier");
    int pinned = 1; /* every participant pinned (bench_pin_map gives -1 for --pin none) */
    for (unsigned t = 0; t < p->n; t++)
        pinned &= cpu[t] >= 0;
    int rc = p->impl->init(&r.ctx, p->n, p->spec, p->wait, pinned ? cpu : NULL, res->desc, sizeof res->desc);
    if (rc) {
        fail(res, "init failed: %s", strerror(rc));
        snprintf(res->error + strlen(res->error), sizeof res->error - strlen(res->error), " (%s)", res->desc);
    } else {
        if (p->method == BM_EPCC)
            r.delay_len = bench_calibrate_delay(EPCC_DELAY_NS);
        struct c2c_result c2c;
        if (p->method == BM_LATENCY && p->n >= 2 && cpu[0] >= 0 && cpu[1] >= 0 && cpu[0] != cpu[1] &&
            c2c_measure(cpu[0], cpu[1], 2000, &c2c) == 0)
            res->c2c_ns = c2c.median_ns;
        r.t0 = bench_mono_ns();
        bench_team_fn team = p->impl->team ? p->impl->team : pthread_team;
        rc = team(p->n, p->method == BM_EPCC ? epcc_body : episodes_body, &r);
        if (rc)
            fail(res, "the thread team failed: %s", strerror(rc));
        if (p->impl->describe) /* what it ran, now that it has run (tune's choice) */
            p->impl->describe(r.ctx, res->desc, sizeof res->desc);
        p->impl->destroy(r.ctx);
    }
    if (res->ok) {
        double cpu = 0;
        for (unsigned t = 0; t < p->n; t++)
            cpu += r.cpu_ns[t] - r.delay_cpu_ns[t];
        if (p->method == BM_EPCC) {
            double ov[EPCC_OUTER];
            for (unsigned i = 0; i < r.outer_done; i++)
                ov[i] = (r.test_ns[i] - r.ref_ns[i]) / r.inner;
            res->episodes = r.outer_done * r.inner;
            res->ns = stats_of(ov, r.outer_done);
            res->cpu_ns_per_episode = cpu / (2.0 * res->episodes); /* ref and test loops both counted */
        } else {
            unsigned ep = atomic_load(&r.stop_at) < r.maxep ? atomic_load(&r.stop_at) : r.maxep;
            summarize_episodes(&r, res, ep);
            res->cpu_ns_per_episode = ep ? cpu / ep : 0;
        }
    }
    ag_barrier_destroy(r.sync);
    for (unsigned t = 0; t < p->n; t++)
        free(r.arr[t]), free(r.dep[t]);
    free(r.arr), free(r.dep), free(r.cpu_ns), free(r.delay_cpu_ns), free(cpu);
    return res->ok ? 0 : -1;
}

void bench_result_free(struct bench_result *r)
{
    free(r->samples);
    r->samples = NULL;
}


void bench_result_json(FILE *f, const struct bench_params *p, const struct bench_result *r)
{
    /* andgate: "andgate:<resolved spec>" from the description "<spec> wait=<policy>", and the wait
     * policy as asked for ("auto" stays "auto": what it resolved to per thread count is in describe,
     * so one implementation is one series across thread counts); baselines: their name, "default" */
    char impl[320], wait[128] = "default";
    const char *w = strstr(r->desc, " wait=");
    if (!strcmp(p->impl->kind, "andgate")) {
        /* what auto chose, marked as the simulator marks it: "andgate:hybrid:... (auto)" */
        int is_auto = !p->spec || !strcmp(p->spec, "auto");
        if (w)
            snprintf(impl, sizeof impl, "andgate:%.*s%s", (int)(w - r->desc), r->desc, is_auto ? " (auto)" : "");
        else
            snprintf(impl, sizeof impl, "andgate:%s", p->spec ? p->spec : "auto");
        snprintf(wait, sizeof wait, "%s", p->wait ? p->wait : "auto");
    } else {
        snprintf(impl, sizeof impl, "%s", p->impl->name);
    }
    char jit[32];
    snprintf(jit, sizeof jit, "%s", p->late_rotating ? "rotating" : "fixed");
    struct ag_record rec = { .impl = impl, .kind = p->impl->kind, .wait = wait, .pinning = bench_pin_names[p->pin],
                             .method = bench_method_names[p->method], .threads = p->n, .episodes = r->episodes,
                             .median_ns = r->ns.median, .min_ns = r->ns.min, .p99_ns = r->ns.p99,
                             .mean_ns = r->ns.mean, .cpu_ns_per_episode = r->cpu_ns_per_episode,
                             .jitter_delay_ns = (double)p->jitter_ns, .late = jit,
                             .settings = p->impl->settings ? p->impl->settings : "", .describe = r->desc,
                             .error = r->ok ? NULL : r->error };
    ag_record_begin(f, &rec);
    fprintf(f, ",\"oversubscribed\":%s", p->n > (p->usable ? p->usable : ag_usable_cpus()) ? "true" : "false");
    if (bench_clk.tsc && p->method != BM_EPCC)
        fprintf(f, ",\"median_cycles\":%.0f,\"min_cycles\":%.0f,\"p99_cycles\":%.0f", r->cycles.median,
                r->cycles.min, r->cycles.p99);
    if (r->c2c_ns > 0)
        fprintf(f, ",\"c2c_oneway_ns\":%.1f", r->c2c_ns);
    if (r->nsamples) {
        fprintf(f, ",\"samples_ns\":[");
        for (unsigned i = 0; i < r->nsamples; i++)
            fprintf(f, "%s%.1f", i ? "," : "", r->samples[i]);
        fputc(']', f);
    }
    ag_record_end(f, &rec);
    fputc('\n', f);
}
