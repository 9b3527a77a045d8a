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
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "andgate.h"
#include "clock.h"
#include "host.h"
#include "json.h"
#include "measure.h"
#include "topo.h"

enum {
    MAXLV = 6,          /* socket, numa, cache group, core, smt */
    MAXPAIRS = 2,       /* measured pairs per sharing level */
    RUNS = 11,          /* runs per measurement (per pair for the ping-pong) */
    C2C_ROUNDS = 5000,  /* round trips per ping-pong run */
    UPG_TRIALS = 2000,  /* trials per invalidation run */
    HIT_LOADS = 1 << 19,
    ATOMIC_OPS = 200000,
};

#define SRC_MEASURED "derived: measured on this machine by andgate info --measure, "
#define ALPHA_RULE "002 §III-B: O_W = O_R + n·α·L with n = 1"

struct level {
    const char *name, *desc;
    int *key;       /* per usable CPU: its unit at this level (ids comparable within the level) */
    unsigned count; /* units per parent unit */
};

/* one latency layer: the pairs whose innermost shared unit is at `shared` (a level name or "machine") */
struct layer {
    char id[32], shared[32], desc[160];
    int pa[MAXPAIRS], pb[MAXPAIRS]; /* OS CPUs */
    unsigned npairs;
    double runs[MAXPAIRS * RUNS], ns, oneway; /* ns: the layer L; oneway: the ping-pong's one-way */
    double alpha, up_ns, own_ns, diff_ns; /* invalidation, measured on pair 0 */
    double up_runs[RUNS], own_runs[RUNS];
};

struct host {
    unsigned n;         /* usable CPUs = hardware threads of the model */
    int *cpu;           /* the usable OS CPUs, increasing */
    int *thread_cpu;    /* model thread -> OS CPU */
    struct level lv[MAXLV];
    unsigned nlv;
    struct layer layer[MAXLV];
    unsigned nlayers;
    const char *topo_source;
};

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "andgate info --measure: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        fail("out of memory");
    return p;
}

/* ---------------------------------------------------------------- topology model */

/* dense unit index of every CPU at a level: units numbered by their smallest CPU */
static void dense(const int *key, unsigned n, int *idx, unsigned *nunits)
{
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++) {
        idx[i] = -1;
        for (unsigned j = 0; j < i; j++)
            if (key[j] == key[i]) {
                idx[i] = idx[j];
                break;
            }
        if (idx[i] < 0)
            idx[i] = (int)u++;
    }
    *nunits = u;
}

static unsigned ngroups(const int *key, unsigned n)
{
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = 0;
        while (j < i && key[j] != key[i])
            j++;
        u += j == i;
    }
    return u;
}

/* every unit of `fine` lies inside one unit of `coarse` */
static int refines(const int *fine, const int *coarse, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++)
            if (fine[i] == fine[j] && coarse[i] != coarse[j])
                return 0;
    return 1;
}

static void add_level(struct host *h, const char *name, const char *desc, int *key)
{
    h->lv[h->nlv++] = (struct level){ name, desc, key, 0 };
}

/* The levels, their counts (regular or refused) and the model thread numbering. */
static void build_topology(struct host *h, const struct ag_topo *t)
{
    unsigned n = h->n;
    int *pkg = xcalloc(n, sizeof(int)), *numa = xcalloc(n, sizeof(int)), *cache = xcalloc(n, sizeof(int));
    int *core = xcalloc(n, sizeof(int)), *cpu = xcalloc(n, sizeof(int));
    int numa_known = 1, cache_known = t->cache_level > 0;
    for (unsigned i = 0; i < n; i++) {
        const struct ag_cpuinfo *c = ag_topo_cpu(t, h->cpu[i]);
        pkg[i] = c->package < 0 ? 0 : c->package;
        numa[i] = c->numa;
        cache[i] = c->cache;
        /* sysfs core ids are per package */
        core[i] = c->core < 0 ? -1 - c->cpu : pkg[i] * 65536 + c->core;
        cpu[i] = c->cpu;
        numa_known &= c->numa >= 0;
        cache_known &= c->cache >= 0;
    }
    add_level(h, "socket", "packages among the usable CPUs", pkg);
    /* intermediate levels, coarsest first, kept where they split their parent and group several cores */
    struct cand {
        const char *name, *desc;
        int *key;
        int known;
    } cand[2] = { { "numa", "NUMA nodes per parent unit", numa, numa_known },
                  { t->cache_level == 2 ? "l2" : "l3",
                    t->cache_level == 2 ? "groups of cores sharing an L2, per parent unit"
                                        : "groups of cores sharing an L3 (last-level cache), per parent unit",
                    cache, cache_known } };
    if (cand[1].known && (!cand[0].known || ngroups(cache, n) < ngroups(numa, n))) {
        struct cand tmp = cand[0];
        cand[0] = cand[1], cand[1] = tmp;
    }
    unsigned ncores = ngroups(core, n);
    for (int k = 0; k < 2; k++) {
        const int *last = h->lv[h->nlv - 1].key;
        if (cand[k].known && refines(cand[k].key, last, n) && refines(core, cand[k].key, n) &&
            ngroups(cand[k].key, n) > ngroups(last, n) && ngroups(cand[k].key, n) < ncores)
            add_level(h, cand[k].name, cand[k].desc, cand[k].key);
    }
    if (!refines(core, h->lv[h->nlv - 1].key, n))
        fail("a core spans two %ss in the %s topology; cannot describe it", h->lv[h->nlv - 1].name, t->source);
    add_level(h, "core", "cores per parent unit", core);
    add_level(h, "smt", "hardware threads per core (SMT)", cpu);
    int numa_used = 0, cache_used = 0; /* the candidates not kept */
    for (unsigned k = 0; k < h->nlv; k++)
        numa_used |= h->lv[k].key == numa, cache_used |= h->lv[k].key == cache;
    if (!numa_used)
        free(numa);
    if (!cache_used)
        free(cache);

    /* counts: every unit of a level holds the same number of units of the next */
    int *idx[MAXLV];
    unsigned nunits[MAXLV] = { 0 };
    for (unsigned k = 0; k < h->nlv; k++) {
        idx[k] = xcalloc(n, sizeof(int));
        dense(h->lv[k].key, n, idx[k], &nunits[k]);
    }
    h->lv[0].count = nunits[0];
    int **rank = xcalloc(h->nlv, sizeof(int *));
    for (unsigned k = 1; k < h->nlv; k++) {
        unsigned np = nunits[k - 1], nu = nunits[k];
        unsigned *children = xcalloc(np, sizeof(unsigned));
        int *parent = xcalloc(nu, sizeof(int));
        rank[k] = xcalloc(nu, sizeof(int));
        for (unsigned i = 0; i < n; i++)
            parent[idx[k][i]] = idx[k - 1][i];
        for (unsigned u = 0; u < nu; u++) /* units in order of their smallest CPU: rank among siblings */
            rank[k][u] = (int)children[parent[u]]++;
        unsigned lo = children[0], hi = children[0];
        for (unsigned p = 1; p < np; p++) {
            lo = children[p] < lo ? children[p] : lo;
            hi = children[p] > hi ? children[p] : hi;
        }
        free(children), free(parent);
        if (lo != hi)
            fail("the %u usable CPUs do not form a regular hierarchy: a %s holds %u %s units here and %u there "
                 "(andgate-machine/1 has one count per level). Measure a regular subset instead, e.g. one "
                 "kind of core with `taskset -c LIST andgate info --measure`.",
                 n, h->lv[k - 1].name, hi, h->lv[k].name, lo);
        h->lv[k].count = lo;
    }
    rank[0] = xcalloc(nunits[0], sizeof(int));
    for (unsigned u = 0; u < nunits[0]; u++)
        rank[0][u] = (int)u;
    /* model thread = mixed radix of the ranks, outermost first (README "Thread numbering") */
    h->thread_cpu = xcalloc(n, sizeof(int));
    for (unsigned t2 = 0; t2 < n; t2++)
        h->thread_cpu[t2] = -1;
    for (unsigned i = 0; i < n; i++) {
        unsigned id = 0;
        for (unsigned k = 0; k < h->nlv; k++)
            id = id * h->lv[k].count + (unsigned)rank[k][idx[k][i]];
        if (id >= n || h->thread_cpu[id] >= 0)
            fail("internal error: thread numbering of CPU %d", h->cpu[i]);
        h->thread_cpu[id] = h->cpu[i];
    }
    for (unsigned k = 0; k < h->nlv; k++)
        free(idx[k]), free(rank[k]);
    free(rank);
}

static const char *noun(const char *level)
{
    return !strcmp(level, "numa") ? "NUMA node" : !strcmp(level, "l3") ? "L3 group" : !strcmp(level, "l2") ? "L2 group"
                                                                                                          : level;
}

/* Which sharing levels pairs have, and one or two representative pairs of each. */
static void plan_layers(struct host *h)
{
    unsigned n = h->n;
    for (unsigned d = h->nlv; d-- > 0;) { /* innermost first: SMT siblings, ..., across sockets */
        if (h->lv[d].count <= 1)
            continue;
        unsigned stride = 1;
        for (unsigned k = d + 1; k < h->nlv; k++)
            stride *= h->lv[k].count;
        struct layer *ly = &h->layer[h->nlayers++];
        const char *shared = d == 0 ? "machine" : h->lv[d - 1].name;
        snprintf(ly->shared, sizeof ly->shared, "%s", shared);
        if (!strcmp(shared, "core")) {
            snprintf(ly->id, sizeof ly->id, "smt");
            snprintf(ly->desc, sizeof ly->desc, "SMT siblings: two hardware threads of one core");
        } else if (!strcmp(shared, "machine")) {
            snprintf(ly->id, sizeof ly->id, "cross_socket");
            snprintf(ly->desc, sizeof ly->desc, "two cores in different sockets");
        } else {
            snprintf(ly->id, sizeof ly->id, "same_%s", shared);
            if (d + 1 < h->nlv - 1)
                snprintf(ly->desc, sizeof ly->desc, "two cores of one %s, in different %ss", noun(shared),
                         noun(h->lv[d].name));
            else
                snprintf(ly->desc, sizeof ly->desc, "two cores of one %s", noun(shared));
        }
        /* the pair starting at thread 0 and one in the last unit: its last two threads for SMT siblings,
         * else the first thread of the last core and the one a unit of level d before it */
        unsigned smt = h->lv[h->nlv - 1].count, last = d == h->nlv - 1 ? n - 1 : n - smt;
        unsigned a[2] = { 0, last - stride }, b[2] = { stride, last };
        for (unsigned p = 0; p < MAXPAIRS; p++) {
            if (p && a[p] == a[0])
                break;
            ly->pa[ly->npairs] = h->thread_cpu[a[p]];
            ly->pb[ly->npairs++] = h->thread_cpu[b[p]];
        }
    }
}

/* ---------------------------------------------------------------- machine facts from the OS */

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok ? 0 : -1;
}

/* ns, with about four significant digits and no exponent */
static void num(FILE *f, double v)
{
    double a = fabs(v);
    int dec = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
    fprintf(f, "%.*f", dec, v);
}

static void runs_text(char *buf, size_t len, const double *v, unsigned n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && o + 16 < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%.2f", i ? " " : "", v[i]);
}

/* {"value": v, "unit": u, "source": s[, "note": note]} */
static void qty(FILE *f, double v, const char *unit, const char *src, const char *note)
{
    fprintf(f, "{\"value\": ");
    if (!strcmp(unit, "count") || !strcmp(unit, "bytes"))
        fprintf(f, "%.0f", v);
    else
        num(f, v);
    fprintf(f, ", \"unit\": \"%s\", \"source\": ", unit);
    json_str(f, src);
    if (note && *note) {
        fprintf(f, ", \"note\": ");
        json_str(f, note);
    }
    fputc('}', f);
}

struct cache {
    char name[8];
    double size;
    const char *unit;
    const char *shared_by;
    char source[200];
};

/* data and unified caches of the first usable CPU, each attached to the level whose unit is exactly the
 * set of usable CPUs sharing it (a cache matching no level is left out: the list is descriptive) */
static unsigned read_caches(const struct host *h, struct cache *out, unsigned max)
{
    unsigned nc = 0;
    int c0 = h->cpu[0];
    for (int idx = 0; idx < 16 && nc < max; idx++) {
        char p[256], type[64], size[64], list[4096];
        int level;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", c0, idx);
        if (read_line(p, type, sizeof type))
            break;
        level = atoi(type);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", c0, idx);
        if (read_line(p, type, sizeof type) || !strcmp(type, "Instruction"))
            continue;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", c0, idx);
        if (read_line(p, size, sizeof size))
            continue;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", c0, idx);
        if (read_line(p, list, sizeof list))
            continue;
        /* the usable CPUs in the list */
        cpu_set_t shared;
        CPU_ZERO(&shared);
        for (char *s = list; *s;) {
            char *end;
            long a = strtol(s, &end, 10), b = a;
            if (end == s)
                break;
            if (*end == '-')
                b = strtol(end + 1, &end, 10);
            for (long c = a; c <= b && c < CPU_SETSIZE; c++)
                CPU_SET((int)c, &shared);
            s = *end == ',' ? end + 1 : end;
        }
        const char *by = NULL;
        for (unsigned k = 0; k < h->nlv && !by; k++) {
            int same = 1;
            for (unsigned i = 0; i < h->n && same; i++) {
                int in_unit = h->lv[k].key[i] == h->lv[k].key[0];
                same = in_unit == (CPU_ISSET(h->cpu[i], &shared) != 0);
            }
            if (same)
                by = h->lv[k].name;
        }
        char *end;
        double kib = strtod(size, &end);
        if (!by || kib <= 0)
            continue;
        if (*end == 'M')
            kib *= 1024;
        struct cache *c = &out[nc++];
        snprintf(c->name, sizeof c->name, "L%d%s", level, !strcmp(type, "Data") ? "D" : "");
        c->size = fmod(kib, 1024) == 0 ? kib / 1024 : kib;
        c->unit = fmod(kib, 1024) == 0 ? "MiB" : "KiB";
        c->shared_by = by;
        snprintf(c->source, sizeof c->source,
                 "derived: read by andgate info --measure from /sys/devices/system/cpu/cpu%d/cache/index%d", c0, idx);
    }
    return nc;
}

static int cache_line(int cpu, char *src, size_t len)
{
    char p[256], v[64];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cache/index0/coherency_line_size", cpu);
    if (read_line(p, v, sizeof v) == 0 && atoi(v) > 0) {
        snprintf(src, len, "derived: read by andgate info --measure from %s", p);
        return atoi(v);
    }
    long l = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    if (l > 0) {
        snprintf(src, len, "derived: read by andgate info --measure from sysconf(_SC_LEVEL1_DCACHE_LINESIZE)");
        return (int)l;
    }
    snprintf(src, len, "assumed: the OS reports no line size; 64 bytes, the line of current x86 and most arm64 "
                       "cores");
    return 64;
}

static double core_clock(int cpu, char *src, size_t len)
{
    if (bench_clk.tsc) {
        snprintf(src, len, "derived: measured by andgate info --measure (invariant TSC rate calibrated against "
                           "CLOCK_MONOTONIC: the nominal clock, turbo not counted)");
        return bench_clk.ticks_per_ns;
    }
    static const char *files[] = { "base_frequency", "cpuinfo_max_freq" };
    for (int i = 0; i < 2; i++) {
        char p[256], v[64];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, files[i]);
        if (read_line(p, v, sizeof v) == 0 && atof(v) > 0) {
            snprintf(src, len, "derived: read by andgate info --measure from %s (kHz)", p);
            return atof(v) / 1e6;
        }
    }
    snprintf(src, len, "derived: measured by andgate info --measure (dependent integer adds per ns, one per "
                       "cycle; the best of 4 runs of 5 ms)");
    return measure_add_chain_ghz();
}

static const char *atomic_kind(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return "x86-lock";
#elif defined(__aarch64__)
#ifndef HWCAP_ATOMICS
#define HWCAP_ATOMICS (1 << 8)
#endif
    return getauxval(AT_HWCAP) & HWCAP_ATOMICS ? "armv8-lse" : "armv8-llsc";
#else
    return "unspecified";
#endif
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

struct facts {
    char model[256], clock_src[512], line_src[512], name[64], date[32];
    double ghz;
    int line, hypervisor;
    double hit[RUNS], hit_ns;
    double rmw[RUNS], store[RUNS], extra[RUNS], extra_ns, rmw_ns, store_ns;
    struct cache caches[8];
    unsigned ncaches;
};

static void write_doc(FILE *f, const struct host *h, const struct facts *x)
{
    char src[768], note[768], runs[512];
    fprintf(f, "{\n  \"format\": \"andgate-machine/1\",\n  \"name\": ");
    json_str(f, x->name);
    snprintf(note, sizeof note, "This machine: %s, %u usable hardware threads (measured)", x->model, h->n);
    fprintf(f, ",\n  \"title\": ");
    json_str(f, note);
    snprintf(note, sizeof note,
             "Written by andgate %s info --measure on %s from the %u CPUs of its affinity mask (%s topology). "
             "Latencies are medians of repeated runs on this machine%s; re-run after a hardware or VM change.",
             ANDGATE_VERSION_STRING, x->date, h->n, h->topo_source,
             x->hypervisor ? " under a hypervisor (vCPUs, their placement on physical cores unknown)" : "");
    fprintf(f, ",\n  \"description\": ");
    json_str(f, note);
    fprintf(f, ",\n  \"references\": {\n    \"002\": \"Gao, Fang, Huang, Xu, Wang: Optimizing Barrier Synchronization "
               "on ARMv8 Many-Core Architectures, CLUSTER 2021, doi:10.1109/Cluster48925.2021.00044 (seed "
               "002_22d269b377cdac79)\"\n  },\n");

    fprintf(f, "  \"clock\": {\n    \"core\": ");
    qty(f, x->ghz, "GHz", x->clock_src, "latencies below are in ns; the clock only converts values in cycles");
    fprintf(f, "\n  },\n  \"cache_line\": ");
    qty(f, x->line, "bytes", x->line_src, NULL);
    fprintf(f, ",\n  \"caches\": [");
    for (unsigned i = 0; i < x->ncaches; i++) {
        const struct cache *c = &x->caches[i];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"size\": ", i ? "," : "", c->name);
        qty(f, c->size, c->unit, c->source, NULL);
        fprintf(f, ", \"shared_by\": \"%s\"}", c->shared_by);
    }
    fprintf(f, "%s],\n", x->ncaches ? "\n  " : "");

    fprintf(f, "  \"topology\": {\n    \"levels\": [");
    snprintf(src, sizeof src, "derived: counted by andgate info --measure over the %u usable CPUs (%s topology)", h->n,
             h->topo_source);
    for (unsigned k = 0; k < h->nlv; k++) {
        fprintf(f, "%s\n      {\"name\": \"%s\", \"count\": ", k ? "," : "", h->lv[k].name);
        qty(f, h->lv[k].count, "count", src, NULL);
        fprintf(f, ", \"description\": ");
        json_str(f, h->lv[k].desc);
        fputc('}', f);
    }
    fprintf(f, "\n    ],\n    \"hardware_threads\": ");
    qty(f, h->n, "count", src, NULL);
    size_t o = (size_t)snprintf(note, sizeof note, "model thread -> OS CPU:");
    for (unsigned t = 0; t < h->n && o + 24 < sizeof note; t++)
        o += (size_t)snprintf(note + o, sizeof note - o, " %u:%d", t, h->thread_cpu[t]);
    if (o + 24 >= sizeof note)
        snprintf(note + o, sizeof note - o, " ...");
    fprintf(f, ",\n    \"note\": ");
    json_str(f, note);
    fprintf(f, "\n  },\n");

    fprintf(f, "  \"latency_layers\": [\n    {\"id\": \"self\", \"kind\": \"fixed\", \"description\": \"a hit in the "
               "thread's own L1\", \"latency\": ");
    snprintf(src, sizeof src, SRC_MEASURED "chain of dependent loads over 64 L1-resident lines on CPU %d, median of %d "
             "runs of %d loads", h->cpu[0], RUNS, HIT_LOADS);
    runs_text(runs, sizeof runs, x->hit, RUNS);
    snprintf(note, sizeof note, "runs (ns): %s", runs);
    qty(f, x->hit_ns, "ns", src, note);
    fputc('}', f);
    for (unsigned l = 0; l < h->nlayers; l++) {
        const struct layer *ly = &h->layer[l];
        char pairs[128];
        o = 0;
        for (unsigned p = 0; p < ly->npairs; p++)
            o += (size_t)snprintf(pairs + o, sizeof pairs - o, "%s%d-%d", p ? ", " : "", ly->pa[p], ly->pb[p]);
        snprintf(src, sizeof src, SRC_MEASURED "core-to-core ping-pong one-way P (common/c2c.c: round trip / 2, the "
                 "median of %d round trips per run) on CPUs %s, median of %u, minus the measured invalidation "
                 "alpha x L (a hand-off is L + alpha x L in the model, 002 §III-B)", C2C_ROUNDS, pairs,
                 ly->npairs * RUNS);
        runs_text(runs, sizeof runs, ly->runs, ly->npairs * RUNS);
        snprintf(note, sizeof note, "P = %.2f ns, alpha x L = %.2f ns; P runs (ns): %s", ly->oneway, ly->diff_ns, runs);
        fprintf(f, ",\n    {\"id\": \"%s\", \"kind\": \"fixed\", \"description\": ", ly->id);
        json_str(f, ly->desc);
        fprintf(f, ", \"latency\": ");
        qty(f, ly->ns, "ns", src, note);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"layer_map\": {\n    \"self\": \"self\",\n    \"by_shared_level\": {");
    for (unsigned l = 0; l < h->nlayers; l++)
        fprintf(f, "%s\n      \"%s\": \"%s\"", l ? "," : "", h->layer[l].shared, h->layer[l].id);
    fprintf(f, "%s}\n  },\n", h->nlayers ? "\n    " : "");

    fprintf(f, "  \"interconnect\": {\n    \"kind\": \"point-to-point\",\n    \"description\": \"not identified by "
               "andgate info --measure: the measured layers include whatever connects the cores; no hop-by-hop "
               "model\"\n  },\n");

    fprintf(f, "  \"coherence\": {\n    \"protocol\": \"measured host (protocol not identified)\",\n"
               "    \"invalidation\": {\n      \"model\": \"alpha\",\n      \"alpha\": {");
    for (unsigned l = 0; l < h->nlayers; l++) {
        const struct layer *ly = &h->layer[l];
        snprintf(src, sizeof src, SRC_MEASURED "(store + fence to a line CPU %d also holds - store + fence to an owned "
                 "line) / L(%s) on CPUs %d-%d, clamped to [0, 1], median of %d runs of %d trials (%s)", ly->pb[0],
                 ly->id, ly->pa[0], ly->pb[0], RUNS, UPG_TRIALS, ALPHA_RULE);
        snprintf(note, sizeof note, "store to the shared line %.2f ns, to an owned line %.2f ns: alpha x L = %.2f ns, "
                 "L = %.2f ns%s", ly->up_ns, ly->own_ns, ly->diff_ns, ly->ns,
                 ly->diff_ns <= 0 || ly->diff_ns > ly->ns ? " (clamped)" : "");
        fprintf(f, "%s\n        \"%s\": ", l ? "," : "", ly->id);
        qty(f, ly->alpha, "ratio", src, note);
    }
    fprintf(f, "%s},\n      \"note\": \"002 §III-B's per-layer RFO weight: a store to a line one other thread "
               "holds costs alpha x L more than a store to an owned line; measured with one sharer\"\n    },\n",
            h->nlayers ? "\n      " : "");
    fprintf(f, "    \"atomic\": {\n      \"kind\": \"%s\",\n      \"extra\": ", atomic_kind());
    snprintf(src, sizeof src, SRC_MEASURED "atomic fetch-and-add (seq_cst, each on the previous one's result) minus a "
             "plain store, per operation over %d back-to-back operations on an owned line on CPU %d, median of %d",
             ATOMIC_OPS, h->cpu[0], RUNS);
    runs_text(runs, sizeof runs, x->extra, RUNS);
    snprintf(note, sizeof note, "fetch-and-add %.2f ns, store %.2f ns; runs (ns): %s%s", x->rmw_ns, x->store_ns, runs,
             x->extra_ns <= 0 ? " (clamped to 0)" : "");
    qty(f, x->extra_ns > 0 ? x->extra_ns : 0, "ns", src, note);
    fprintf(f, "\n    }\n  },\n  \"notes\": [\n    ");
    snprintf(note, sizeof note, "andgate %s info --measure, %s", ANDGATE_VERSION_STRING, x->date);
    json_str(f, note);
    fprintf(f, ",\n    \"Only the CPUs of the affinity mask were measured; layers exist for the sharing levels their "
               "pairs have. Re-run on all CPUs (or a larger regular subset) to describe more of the machine.\"\n"
               "  ]\n}\n");
}

/* ---------------------------------------------------------------- the command */

int info_measure(const char *out_arg)
{
    struct host h = { 0 };
    struct facts x = { 0 };
    const struct ag_topo *t = ag_topo_get();
    h.topo_source = t->source;

    cpu_set_t saved;
    if (sched_getaffinity(0, sizeof saved, &saved))
        fail("sched_getaffinity: %s", strerror(errno));
    int aff[CPU_SETSIZE];
    unsigned naff = ag_affinity_cpus(aff, CPU_SETSIZE);
    h.cpu = xcalloc(naff, sizeof(int));
    for (unsigned i = 0; i < naff; i++)
        if (ag_topo_cpu(t, aff[i]))
            h.cpu[h.n++] = aff[i];
    if (!h.n)
        fail("no usable CPU in the %s topology", t->source);
    unsigned quota = ag_cgroup_cpu_limit();
    if (quota && quota < h.n)
        fprintf(stderr, "andgate info --measure: warning: the cgroup grants %u CPUs of time for %u CPUs; ping-pong "
                        "timings may include throttling\n", quota, h.n);

    /* where to write, decided before minutes of work are spent */
    char path[PATH_MAX];
    if (out_arg) {
        snprintf(path, sizeof path, "%s", out_arg);
        char *slash = strrchr(path, '/');
        if (slash && slash != path) {
            *slash = '\0';
            if (mkdir_p(path))
                fail("cannot create %s: %s", path, strerror(errno));
            *slash = '/';
        }
    } else {
        const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
        if (xdg && *xdg)
            snprintf(path, sizeof path, "%s/andgate/machines", xdg);
        else if (home && *home)
            snprintf(path, sizeof path, "%s/.local/share/andgate/machines", home);
        else
            fail("neither XDG_DATA_HOME nor HOME is set: name the file with --out FILE");
        if (mkdir_p(path))
            fail("cannot create %s: %s", path, strerror(errno));
        strncat(path, "/host.json", sizeof path - strlen(path) - 1);
    }
    machine_name(path, x.name, sizeof x.name);

    build_topology(&h, t);
    plan_layers(&h);
    ag_cpu_model(x.model, sizeof x.model, &x.hypervisor);
    bench_clock_init();
    x.ghz = core_clock(h.cpu[0], x.clock_src, sizeof x.clock_src);
    x.line = cache_line(h.cpu[0], x.line_src, sizeof x.line_src);
    x.ncaches = read_caches(&h, x.caches, 8);

    printf("andgate info --measure: %u usable CPU%s, %s topology%s\n", h.n, h.n == 1 ? "" : "s", t->source,
           x.hypervisor ? " (under a hypervisor)" : "");
    printf("  levels        :");
    for (unsigned k = 0; k < h.nlv; k++)
        printf("%s %s %u", k ? " x" : "", h.lv[k].name, h.lv[k].count);
    printf(" = %u hardware threads\n", h.n);
    printf("  core clock    : %.3f GHz (%s)\n", x.ghz, bench_clk.tsc ? "invariant TSC" : "no invariant TSC");
    printf("  cache line    : %d bytes\n", x.line);

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(h.cpu[0], &one);
    sched_setaffinity(0, sizeof one, &one);
    if (measure_hit((unsigned)x.line, HIT_LOADS, RUNS, x.hit))
        fail("out of memory");
    double tmp[MAXPAIRS * RUNS];
    memcpy(tmp, x.hit, sizeof x.hit);
    x.hit_ns = measure_median(tmp, RUNS);
    char runs[512];
    runs_text(runs, sizeof runs, x.hit, RUNS);
    printf("  self          : %7.2f ns  L1 hit, dependent loads on CPU %d; runs: %s\n", x.hit_ns, h.cpu[0], runs);

    for (unsigned l = 0; l < h.nlayers; l++) {
        struct layer *ly = &h.layer[l];
        for (unsigned p = 0; p < ly->npairs; p++)
            if (measure_c2c(ly->pa[p], ly->pb[p], C2C_ROUNDS, RUNS, ly->runs + p * RUNS))
                fail("cannot pin to CPUs %d and %d", ly->pa[p], ly->pb[p]);
        memcpy(tmp, ly->runs, ly->npairs * RUNS * sizeof(double));
        ly->ns = measure_median(tmp, ly->npairs * RUNS);
        for (unsigned p = 0; p < ly->npairs; p++) {
            runs_text(runs, sizeof runs, ly->runs + p * RUNS, RUNS);
            printf("  %-14s: %7.2f ns  one-way, CPUs %d-%d ping-pong; runs: %s\n", p ? "" : ly->id,
                   p ? measure_median(memcpy(tmp, ly->runs + p * RUNS, RUNS * sizeof(double)), RUNS) : ly->ns,
                   ly->pa[p], ly->pb[p], runs);
        }
        if (ly->npairs > 1)
            printf("  %-14s  %7.2f ns  (median of both pairs' %u runs)\n", "", ly->ns, ly->npairs * RUNS);
    }
    for (unsigned l = 0; l < h.nlayers; l++) {
        struct layer *ly = &h.layer[l];
        if (measure_upgrade(ly->pa[0], ly->pb[0], UPG_TRIALS, RUNS, ly->up_runs, ly->own_runs))
            fail("cannot pin to CPUs %d and %d", ly->pa[0], ly->pb[0]);
        double d[RUNS];
        for (unsigned r = 0; r < RUNS; r++)
            d[r] = ly->up_runs[r] - ly->own_runs[r];
        runs_text(runs, sizeof runs, d, RUNS);
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
        ly->alpha = ly->alpha < 0 ? 0 : ly->alpha > 1 ? 1 : ly->alpha;
        char label[48];
        snprintf(label, sizeof label, "alpha %s", ly->id);
        printf("  %-14s: %7.3f     store to a line CPU %d holds %.2f ns - to an owned line %.2f ns = %.2f ns / L "
               "%.2f ns; runs (ns): %s\n", label, ly->alpha, ly->pb[0], ly->up_ns, ly->own_ns, ly->diff_ns, ly->ns,
               runs);
    }

    sched_setaffinity(0, sizeof one, &one);
    measure_atomic(ATOMIC_OPS, RUNS, x.rmw, x.store);
    for (unsigned r = 0; r < RUNS; r++)
        x.extra[r] = x.rmw[r] - x.store[r];
    memcpy(tmp, x.extra, sizeof x.extra);
    x.extra_ns = measure_median(tmp, RUNS);
    memcpy(tmp, x.rmw, sizeof x.rmw);
    x.rmw_ns = measure_median(tmp, RUNS);
    memcpy(tmp, x.store, sizeof x.store);
    x.store_ns = measure_median(tmp, RUNS);
    printf("  atomic extra  : %7.2f ns  %s: fetch-and-add %.2f ns - store %.2f ns on an owned line\n",
           x.extra_ns > 0 ? x.extra_ns : 0, atomic_kind(), x.rmw_ns, x.store_ns);
    sched_setaffinity(0, sizeof saved, &saved);

    time_t now = time(NULL);
    strftime(x.date, sizeof x.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char tmpname[PATH_MAX + 32];
    snprintf(tmpname, sizeof tmpname, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmpname, "w");
    if (!f)
        fail("cannot write %s: %s", tmpname, strerror(errno));
    write_doc(f, &h, &x);
    if (fclose(f) || rename(tmpname, path)) {
        int e = errno;
        unlink(tmpname);
        fail("cannot write %s: %s", path, strerror(e));
    }
    printf("wrote %s (machine '%s': andgate sim --machine %s)\n", path, x.name, x.name);

    for (unsigned k = 0; k < h.nlv; k++)
        if (h.lv[k].key != NULL)
            free(h.lv[k].key);
    free(h.cpu), free(h.thread_cpu);
    return 0;
}
