/* host_machine.c — `andgate info --measure [--out FILE]`: this machine as an andgate-machine/1 description
 * (sim/machines/README.md), so that `andgate sim --machine host` models the machine it runs on.
 *
 * Topology: the usable CPUs (the affinity mask) as the library's topology code sees them (hwloc or sysfs,
 * src/topo.c), as levels socket, [numa], [l3 or l2 cache group], core, smt; an intermediate level is kept
 * only where it splits its parent and groups several cores. The format has one count per level, so an
 * irregular set (a hybrid CPU, a partial affinity mask) is refused with a hint to restrict it.
 * Measured here (tools/measure.c): the hit cost (`self` layer), the one-way core-to-core latency of one
 * representative pair or two per sharing level present (common/c2c.c's ping-pong), α per layer (002
 * §III-B), the atomic's extra cost, and the core clock (the invariant TSC; cpufreq or a dependent-add
 * chain without one). Every value carries a `derived:` source naming the method and the run count. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "clock.h"
#include "host.h"
#include "host_model.h"
#include "measure.h"
#include "opts.h"
#include "outfile.h"
#include "topo.h"

#define PROG "andgate info --measure"

void host_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "andgate info --measure: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

void *host_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        host_fail("out of memory");
    return p;
}

/* ---------------------------------------------------------------- output */

static int mkdir_p(char *dir)
{
    for (char *s = dir + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            int r = mkdir(dir, 0755);
            *s = '/';
            if (r && errno != EEXIST)
                return -1;
        }
    return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

/* the file name without .json when it is a valid machine name, else "host" */
static void machine_name(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t l = strlen(base);
    if (l > 5 && !strcmp(base + l - 5, ".json"))
        l -= 5;
    int ok = l > 0 && l < len && ((base[0] >= 'a' && base[0] <= 'z') || (base[0] >= '0' && base[0] <= '9'));
    for (size_t i = 0; ok && i < l; i++)
        ok = (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= '0' && base[i] <= '9') || base[i] == '-';
    if (ok)
        snprintf(name, len, "%.*s", (int)l, base);
    else {
        snprintf(name, len, "host");
        fprintf(stderr, "andgate info --measure: '%.*s' is not a machine name ([a-z0-9][a-z0-9-]*): the file says "
                        "\"name\": \"host\"\n", (int)l, base);
    }
}


/* ---------------------------------------------------------------- the command */

/* --out FILE (its directory made), else ${XDG_DATA_HOME:-~/.local/share}/andgate/machines/host.json,
 * opened before seconds of measuring are spent: a path that cannot be written is bad usage (exit 2) */
static void output_open(const char *out_arg, struct ag_outfile *out)
{
    char path[PATH_MAX];
    if (out_arg) {
        snprintf(path, sizeof path, "%s", out_arg);
        char *slash = strrchr(path, '/');
        if (slash && slash != path) {
            *slash = '\0';
            if (mkdir_p(path))
                ag_usage_error(PROG, "--out %s: cannot create %s: %s", out_arg, path, strerror(errno));
            *slash = '/';
        }
    } else {
        const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
        if (xdg && *xdg)
            snprintf(path, sizeof path, "%s/andgate/machines", xdg);
        else if (home && *home)
            snprintf(path, sizeof path, "%s/.local/share/andgate/machines", home);
        else
            ag_usage_error(PROG, "neither XDG_DATA_HOME nor HOME is set: name the file with --out FILE");
        if (mkdir_p(path))
            ag_usage_error(PROG, "cannot create %s: %s", path, strerror(errno));
        strncat(path, "/host.json", sizeof path - strlen(path) - 1);
    }
    if (ag_outfile_open(out, path))
        ag_usage_error(PROG, "%s%s: cannot write: %s", out_arg ? "--out " : "", path, strerror(errno));
}

/* each layer's one-way latency: the ping-pong on its pairs, RUNS runs each */
static void measure_layers(struct host *hp)
{
    double tmp[MAXPAIRS * RUNS];
    char runs[512];
    for (unsigned l = 0; l < hp->nlayers; l++) {
        struct layer *ly = &hp->layer[l];
        for (unsigned p = 0; p < ly->npairs; p++)
            if (measure_c2c(ly->pa[p], ly->pb[p], C2C_ROUNDS, RUNS, ly->runs + p * RUNS))
                host_fail("cannot pin to CPUs %d and %d", ly->pa[p], ly->pb[p]);
        memcpy(tmp, ly->runs, ly->npairs * RUNS * sizeof(double));
        ly->ns = measure_median(tmp, ly->npairs * RUNS);
        for (unsigned p = 0; p < ly->npairs; p++) {
            machine_runs_text(runs, sizeof runs, ly->runs + p * RUNS, RUNS);
            printf("  %-14s: %7.2f ns  one-way, CPUs %d-%d ping-pong; runs: %s\n", p ? "" : ly->id,
                   p ? measure_median(memcpy(tmp, ly->runs + p * RUNS, RUNS * sizeof(double)), RUNS) : ly->ns,
                   ly->pa[p], ly->pb[p], runs);
        }
        if (ly->npairs > 1)
            printf("  %-14s  %7.2f ns  (median of both pairs' %u runs)\n", "", ly->ns, ly->npairs * RUNS);
    }
}

/* each layer's invalidation weight on its first pair; L becomes P - alpha x L */
static void measure_alpha(struct host *hp)
{
    double tmp[MAXPAIRS * RUNS];
    char runs[512];
    for (unsigned l = 0; l < hp->nlayers; l++) {
        struct layer *ly = &hp->layer[l];
        if (measure_upgrade(ly->pa[0], ly->pb[0], UPG_TRIALS, RUNS, ly->up_runs, ly->own_runs))
            host_fail("cannot pin to CPUs %d and %d", ly->pa[0], ly->pb[0]);
        double d[RUNS];
        for (unsigned r = 0; r < RUNS; r++)
            d[r] = ly->up_runs[r] - ly->own_runs[r];
        machine_runs_text(runs, sizeof runs, d, RUNS);
        ly->diff_ns = measure_median(d, RUNS);
        memcpy(tmp, ly->up_runs, sizeof ly->up_runs);
        ly->up_ns = measure_median(tmp, RUNS);
        memcpy(tmp, ly->own_runs, sizeof ly->own_runs);
        ly->own_ns = measure_median(tmp, RUNS);
        /* The simulator charges a hand-off as the writer's invalidation α·L plus the reader's miss L
         * (002 §III-B), so a ping-pong one-way P is L + α·L: L = P - α·L, with α·L measured here. */
        ly->oneway = ly->ns;
        if (ly->diff_ns > 0 && ly->diff_ns < ly->oneway)
            ly->ns = ly->oneway - ly->diff_ns;
        ly->alpha = ly->ns > 0 ? ly->diff_ns / ly->ns : 0;
        ly->alpha = ly->alpha < 0 ? 0 : ly->alpha;
        if (ly->alpha > 1) { /* α·L > L: α is clamped to 1 and L to P / 2, so the hand-off stays P */
            ly->alpha = 1;
            ly->ns = ly->oneway / 2;
        }
        char label[48];
        snprintf(label, sizeof label, "alpha %s", ly->id);
        printf("  %-14s: %7.3f     store to a line CPU %d holds %.2f ns - to an owned line %.2f ns = %.2f ns / L "
               "%.2f ns; runs (ns): %s\n", label, ly->alpha, ly->pb[0], ly->up_ns, ly->own_ns, ly->diff_ns, ly->ns,
               runs);
    }

}

/* each layer's transfers on its first pair that the ping-pong above does not time (measure_transfer.c):
 * a cold transfer (the receiver was not polling the line) and the ping-pong with paused spins (written
 * as the paused re-read: sim/machines/README.md, "Paused hand-offs") */
static void measure_transfers(struct host *hp)
{
    char runs[512], pruns[512];
    for (unsigned l = 0; l < hp->nlayers; l++) {
        struct layer *ly = &hp->layer[l];
        double remote[RUNS], owned[RUNS], tmp[RUNS];
        if (measure_cold(ly->pa[0], ly->pb[0], UPG_TRIALS, RUNS, remote, owned) ||
            measure_c2c_paused(ly->pa[0], ly->pb[0], C2C_ROUNDS, RUNS, ly->pp_runs))
            host_fail("cannot pin to CPUs %d and %d", ly->pa[0], ly->pb[0]);
        for (unsigned r = 0; r < RUNS; r++)
            ly->cold_runs[r] = remote[r] - owned[r];
        ly->cold_ns = measure_median(memcpy(tmp, ly->cold_runs, sizeof tmp), RUNS);
        ly->pp_ns = measure_median(memcpy(tmp, ly->pp_runs, sizeof tmp), RUNS);
        ly->paused_ns = ly->pp_ns - ly->alpha * ly->ns; /* so that alpha x L + paused_ns = the paused one-way */
        machine_runs_text(runs, sizeof runs, ly->cold_runs, RUNS);
        machine_runs_text(pruns, sizeof pruns, ly->pp_runs, RUNS);
        printf("  %-14s: %7.2f ns  cold transfer: a load of a line CPU %d modified - a load of an owned line; "
               "runs (ns): %s\n  %-14s  %7.2f ns  one-way, ping-pong with paused spins (paused re-read %.2f ns); runs (ns): "
               "%s\n", ly->id, ly->cold_ns, ly->pb[0], runs, "", ly->pp_ns, ly->paused_ns, pruns);
    }
}

/* the atomic's extra cost over a plain store, on an owned line of the calling thread's CPU */
static void measure_atomic_facts(struct facts *x)
{
    double tmp[RUNS];
    measure_atomic(ATOMIC_OPS, RUNS, x->rmw, x->store);
    for (unsigned r = 0; r < RUNS; r++)
        x->extra[r] = x->rmw[r] - x->store[r];
    memcpy(tmp, x->extra, sizeof x->extra);
    x->extra_ns = measure_median(tmp, RUNS);
    memcpy(tmp, x->rmw, sizeof x->rmw);
    x->rmw_ns = measure_median(tmp, RUNS);
    memcpy(tmp, x->store, sizeof x->store);
    x->store_ns = measure_median(tmp, RUNS);
    printf("  atomic extra  : %7.2f ns  %s: fetch-and-add %.2f ns - store %.2f ns on an owned line\n",
           x->extra_ns > 0 ? x->extra_ns : 0, host_atomic_kind(), x->rmw_ns, x->store_ns);
}

/* The usable CPUs that the topology knows, in h->cpu (a cgroup quota below them is warned about). */
static void usable_cpus(struct host *h, const struct ag_topo *t)
{
    int aff[CPU_SETSIZE];
    unsigned naff = ag_affinity_cpus(aff, CPU_SETSIZE);
    h->cpu = host_calloc(naff, sizeof(int));
    for (unsigned i = 0; i < naff; i++)
        if (ag_topo_cpu(t, aff[i]))
            h->cpu[h->n++] = aff[i];
    if (!h->n)
        host_fail("no usable CPU in the %s topology", t->source);
    unsigned quota = ag_cgroup_cpu_limit();
    if (quota && quota < h->n)
        fprintf(stderr, "andgate info --measure: warning: the cgroup grants %u CPUs of time for %u CPUs; ping-pong "
                        "timings may include throttling\n", quota, h->n);
}

/* What the OS and the CPU say (no timing but the clock's), printed as the run's first lines. */
static void read_facts(struct host *h, struct facts *x, const struct ag_topo *t)
{
    host_build_topology(h, t);
    host_plan_layers(h);
    ag_cpu_model(x->model, sizeof x->model, &x->hypervisor);
    bench_clock_init();
    x->ghz = host_core_clock(h->cpu[0], x->clock_src, sizeof x->clock_src);
    x->line = host_cache_line(h->cpu[0], x->line_src, sizeof x->line_src);
    x->ncaches = host_read_caches(h, x->caches, 8);
    x->atomic_kind = host_atomic_kind();
    printf("andgate info --measure: %u usable CPU%s, %s topology%s\n", h->n, h->n == 1 ? "" : "s", t->source,
           x->hypervisor ? " (under a hypervisor)" : "");
    printf("  levels        :");
    for (unsigned k = 0; k < h->nlv; k++)
        printf("%s %s %u", k ? " x" : "", h->lv[k].name, h->lv[k].count);
    printf(" = %u hardware threads\n", h->n);
    printf("  core clock    : %.3f GHz (%s)\n", x->ghz, bench_clk.tsc ? "invariant TSC" : "no invariant TSC");
    printf("  cache line    : %d bytes\n", x->line);
}

/* The L1 hit on the first CPU (the caller pinned this thread there). */
static void measure_self(const struct host *h, struct facts *x)
{
    if (measure_hit((unsigned)x->line, HIT_LOADS, RUNS, x->hit))
        host_fail("out of memory");
    double tmp[MAXPAIRS * RUNS];
    memcpy(tmp, x->hit, sizeof x->hit);
    x->hit_ns = measure_median(tmp, RUNS);
    char runs[512];
    machine_runs_text(runs, sizeof runs, x->hit, RUNS);
    printf("  self          : %7.2f ns  L1 hit, dependent loads on CPU %d; runs: %s\n", x->hit_ns, h->cpu[0], runs);
}

/* The machine file, written whole or not at all (outfile.h), and the command that models it: the
 * name finds only the default place (the search path), a file given with --out is named by its path
 * (one with a '/' or ending in .json: sim reads it as a file). */
static void write_file(struct ag_outfile *out, int named_out, const struct host *h, struct facts *x)
{
    time_t now = time(NULL);
    strftime(x->date, sizeof x->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    machine_write(out->f, h, x);
    if (ag_outfile_commit(out))
        host_fail("cannot write %s: %s", out->path, strerror(errno));
    size_t l = strlen(out->path);
    int file = strchr(out->path, '/') || (l > 5 && !strcmp(out->path + l - 5, ".json"));
    printf("wrote %s (machine '%s': andgate sim --machine %s%s)\n", out->path, x->name,
           named_out && !file ? "./" : "", named_out ? out->path : x->name);
}

/* The os block: system calls on the first CPU, then the futex ping-pong between the first two CPUs
 * (wakeup; skipped with one CPU) and on the first CPU alone (context switch). */
static void measure_os_facts(const struct host *h, struct facts *x)
{
    int a = h->cpu[0], b = h->n > 1 ? h->cpu[1] : -1;
    measure_futex_calls(OS_CALLS, RUNS, x->os_runs[OS_FUTEX_WAIT], x->os_runs[OS_FUTEX_WAKE]);
    measure_yield(OS_CALLS, RUNS, x->os_runs[OS_YIELD]);
    if (b < 0 || measure_futex_pingpong(a, b, OS_ROUNDS, RUNS, x->os_runs[OS_WAKEUP]))
        x->os_runs[OS_WAKEUP][0] = -1;
    if (measure_futex_pingpong(a, a, OS_ROUNDS, RUNS, x->os_runs[OS_SWITCH]))
        x->os_runs[OS_SWITCH][0] = -1;
    snprintf(x->os_src[OS_FUTEX_WAIT], sizeof x->os_src[0], "FUTEX_WAIT on a word that already changed (EAGAIN), "
             "per call over %d calls on CPU %d", OS_CALLS, a);
    snprintf(x->os_src[OS_FUTEX_WAKE], sizeof x->os_src[0], "FUTEX_WAKE with nobody asleep, per call over %d calls "
             "on CPU %d", OS_CALLS, a);
    snprintf(x->os_src[OS_WAKEUP], sizeof x->os_src[0], "futex ping-pong, both sides asleep in FUTEX_WAIT between "
             "hand-offs, CPUs %d and %d: round trip / 2 over %d round trips", a, b, OS_ROUNDS);
    snprintf(x->os_src[OS_SWITCH], sizeof x->os_src[0], "futex ping-pong of two threads on CPU %d (each hand-off a "
             "wake, a wait and a switch): round trip / 2 over %d round trips", a, OS_ROUNDS);
    snprintf(x->os_src[OS_YIELD], sizeof x->os_src[0], "sched_yield with nothing else runnable, per call over %d "
             "calls on CPU %d", OS_CALLS, a);
    for (unsigned k = 0; k < OS_N; k++) {
        double tmp[RUNS];
        memcpy(tmp, x->os_runs[k], sizeof tmp);
        x->os_ns[k] = x->os_runs[k][0] < 0 ? -1 : measure_median(tmp, RUNS);
        if (x->os_ns[k] >= 0)
            printf("  os %-15s: %9.1f ns  %s\n", host_os_names[k], x->os_ns[k], x->os_src[k]);
    }
}

int info_measure(const char *out_arg)
{
    struct host h = { 0 };
    struct facts x = { 0 };
    const struct ag_topo *t = ag_topo_get();
    h.topo_source = t->source;
    cpu_set_t saved;
    if (sched_getaffinity(0, sizeof saved, &saved))
        host_fail("sched_getaffinity: %s", strerror(errno));
    usable_cpus(&h, t);
    /* where to write, opened before seconds of measuring are spent */
    struct ag_outfile out;
    output_open(out_arg, &out);
    machine_name(out.path, x.name, sizeof x.name);
    read_facts(&h, &x, t);

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(h.cpu[0], &one);
    sched_setaffinity(0, sizeof one, &one);
    measure_self(&h, &x);
    measure_layers(&h);
    measure_alpha(&h);
    measure_transfers(&h);
    sched_setaffinity(0, sizeof one, &one);
    measure_atomic_facts(&x);
    measure_os_facts(&h, &x);
    sched_setaffinity(0, sizeof saved, &saved);
    write_file(&out, out_arg != NULL, &h, &x);

    for (unsigned k = 0; k < h.nlv; k++)
        if (h.lv[k].key != NULL)
            free(h.lv[k].key);
    free(h.cpu), free(h.thread_cpu);
    return 0;
}
