/* host_facts.c — caches, line size, core clock, atomic kind, as the OS reports them (see host_model.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "andgate.h"
#include "host_model.h"
#include <sys/stat.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "clock.h"
#include "measure.h"

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


/* data and unified caches of the first usable CPU, each attached to the level whose unit is exactly the
 * set of usable CPUs sharing it (a cache matching no level is left out: the list is descriptive) */
unsigned host_read_caches(const struct host *h, struct cache *out, unsigned max)
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

int host_cache_line(int cpu, char *src, size_t len)
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

double host_core_clock(int cpu, char *src, size_t len)
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

const char *host_atomic_kind(void)
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

