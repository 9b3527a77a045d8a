/* test_topo_sysfs.c — the sysfs topology reader on machines this one is not: each case writes a sysfs
 * tree (cpu/online, cpuN/topology, cpuN/cache/indexK, node/nodeN/cpulist) into a temporary directory,
 * reads it through ag_topo_sysfs_root, and checks every CPU's core, package, cache group and NUMA node.
 * The reader fills a whole group from one CPU's list (topo.c), so the cases have groups of several CPUs,
 * CPUs the lists name but that are offline, and caches numbered differently on different cores. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "topo.h"

static char root[64];

/* Writes content to root/path (a format), making the directories on the way. */
static void vput(const char *content, const char *fmt, va_list ap)
{
    char rel[256], p[512];
    vsnprintf(rel, sizeof rel, fmt, ap);
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        CHECK(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s", p);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    CHECK(f != NULL, "create %s", p);
    if (f) {
        fprintf(f, "%s\n", content);
        fclose(f);
    }
}

static void put(const char *content, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(content, fmt, ap);
    va_end(ap);
}

static void put_int(int v, const char *fmt, ...)
{
    char s[16];
    va_list ap;
    snprintf(s, sizeof s, "%d", v);
    va_start(ap, fmt);
    vput(s, fmt, ap);
    va_end(ap);
}

static void fresh(void)
{
    char cmd[2 * sizeof root + 32];
    snprintf(cmd, sizeof cmd, "rm -rf %s/cpu %s/node", root, root);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* a cache of cpu at index idx: its level and the CPUs sharing it */
static void cache(int cpu, int idx, int level, const char *shared)
{
    put_int(level, "cpu/cpu%d/cache/index%d/level", cpu, idx);
    put(shared, "cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
}

/* a CPU that is its own core (no SMT), in package 0 with the CPUs of pkg_list */
static void single_thread_cpu(int cpu, const char *pkg_list)
{
    char self[8];
    snprintf(self, sizeof self, "%d", cpu);
    put_int(cpu, "cpu/cpu%d/topology/core_id", cpu);
    put_int(0, "cpu/cpu%d/topology/physical_package_id", cpu);
    put(self, "cpu/cpu%d/topology/thread_siblings_list", cpu);
    put(pkg_list, "cpu/cpu%d/topology/package_cpus_list", cpu);
}

static struct ag_topo read_tree(const char *name)
{
    struct ag_topo t;
    ag_topo_sysfs_root(root);
    CHECK(ag_topo_read(&t, AG_TOPO_SYSFS) == 0, "%s: read", name);
    ag_topo_sysfs_root(NULL);
    return t;
}

static void expect(const struct ag_topo *t, const char *name, int cpu, int core, int package, int group, int numa)
{
    const struct ag_cpuinfo *c = ag_topo_cpu(t, cpu);
    CHECK(c != NULL, "%s: cpu %d missing", name, cpu);
    if (c)
        CHECK(c->core == core && c->package == package && c->cache == group && c->numa == numa,
              "%s: cpu %d is core %d package %d cache %d numa %d; want %d %d %d %d", name, cpu, c->core,
              c->package, c->cache, c->numa, core, package, group, numa);
}

/* Two packages of 4 cores with 2 threads each, numbered as x86 servers number them (cpu = thread * 8 +
 * package * 4 + core): private L1 and L2, one L3 and one NUMA node per package. */
static void two_sockets(void)
{
    fresh();
    put("0-15", "cpu/online");
    for (int cpu = 0; cpu < 16; cpu++) {
        int core = cpu % 4, pkg = cpu / 4 % 2, sib = cpu % 8;
        char smt[16], pk[16];
        snprintf(smt, sizeof smt, "%d,%d", sib, sib + 8);
        snprintf(pk, sizeof pk, "%d-%d,%d-%d", pkg * 4, pkg * 4 + 3, pkg * 4 + 8, pkg * 4 + 11);
        put_int(core, "cpu/cpu%d/topology/core_id", cpu);
        put_int(pkg, "cpu/cpu%d/topology/physical_package_id", cpu);
        put(smt, "cpu/cpu%d/topology/thread_siblings_list", cpu);
        put(pk, "cpu/cpu%d/topology/package_cpus_list", cpu);
        cache(cpu, 0, 1, smt);
        cache(cpu, 1, 1, smt);
        cache(cpu, 2, 2, smt);
        cache(cpu, 3, 3, pk);
    }
    put("0-3,8-11", "node/node0/cpulist");
    put("4-7,12-15", "node/node1/cpulist");
    struct ag_topo t = read_tree("two sockets");
    CHECK(t.ncpus == 16 && t.cache_level == 3 && t.guessed == 0, "two sockets: %u cpus, L%d, %u guessed", t.ncpus,
          t.cache_level, t.guessed);
    for (int cpu = 0; cpu < 16; cpu++)
        expect(&t, "two sockets", cpu, cpu % 4, cpu / 4 % 2, cpu / 4 % 2 * 4, cpu / 4 % 2);
    ag_topo_free(&t);
}

/* Eight cores in two clusters of four sharing an L2 (002 §III's Phytium units), no L3, no SMT, no
 * node directory; cpu 5 offline but named by its cluster's list. */
static void clusters(void)
{
    fresh();
    put("0-4,6-7", "cpu/online");
    for (int cpu = 0; cpu < 8; cpu++) {
        char self[8];
        snprintf(self, sizeof self, "%d", cpu);
        single_thread_cpu(cpu, "0-7");
        cache(cpu, 0, 1, self);
        cache(cpu, 1, 2, cpu < 4 ? "0-3" : "4-7");
    }
    struct ag_topo t = read_tree("clusters");
    CHECK(t.ncpus == 7 && t.cache_level == 2 && t.guessed == 0 && !ag_topo_cpu(&t, 5),
          "clusters: %u cpus, L%d, %u guessed", t.ncpus, t.cache_level, t.guessed);
    for (int cpu = 0; cpu < 8; cpu++)
        if (cpu != 5)
            expect(&t, "clusters", cpu, cpu, 0, cpu < 4 ? 0 : 4, 0);
    ag_topo_free(&t);
}

/* Cores that number their caches differently (one without an instruction cache entry), one whose
 * sibling list leaves itself out, and a kernel before 5.8 (core_siblings_list, no package_cpus_list). */
static void mixed(void)
{
    fresh();
    put("0-3", "cpu/online");
    for (int cpu = 0; cpu < 4; cpu++) {
        char self[8];
        snprintf(self, sizeof self, "%d", cpu);
        put_int(cpu, "cpu/cpu%d/topology/core_id", cpu);
        put_int(0, "cpu/cpu%d/topology/physical_package_id", cpu);
        put(cpu == 3 ? "" : self, "cpu/cpu%d/topology/thread_siblings_list", cpu);
        put("0-3", "cpu/cpu%d/topology/core_siblings_list", cpu);
        cache(cpu, 0, 1, self);
        if (cpu < 2) {
            cache(cpu, 1, 1, self);
            cache(cpu, 2, 2, self);
            cache(cpu, 3, 3, "0-3");
        } else {
            cache(cpu, 1, 2, self);
            cache(cpu, 2, 3, "0-3");
        }
    }
    put("0-3", "node/node0/cpulist");
    struct ag_topo t = read_tree("mixed");
    CHECK(t.ncpus == 4 && t.cache_level == 3 && t.guessed == 0, "mixed: %u cpus, L%d, %u guessed", t.ncpus,
          t.cache_level, t.guessed);
    for (int cpu = 0; cpu < 4; cpu++)
        expect(&t, "mixed", cpu, cpu, 0, 0, 0);
    ag_topo_free(&t);
}

/* Private L2 caches and an L3 on only some cores (a sysfs that lists none for one): the L3 groups
 * where there is one, the core's own L2 where not; then no L3 at all: the L2 groups, at level 2. */
static void private_l2(void)
{
    for (int with_l3 = 1; with_l3 >= 0; with_l3--) {
        fresh();
        put("0-3", "cpu/online");
        for (int cpu = 0; cpu < 4; cpu++) {
            char self[8];
            snprintf(self, sizeof self, "%d", cpu);
            single_thread_cpu(cpu, "0-3");
            cache(cpu, 0, 2, self);
            if (with_l3 && cpu != 2)
                cache(cpu, 1, 3, "0-1,3");
        }
        const char *name = with_l3 ? "L3 on three cores" : "no L3";
        struct ag_topo t = read_tree(name);
        CHECK(t.ncpus == 4 && t.cache_level == (with_l3 ? 3 : 2) && t.guessed == 0, "%s: %u cpus, L%d, %u guessed",
              name, t.ncpus, t.cache_level, t.guessed);
        for (int cpu = 0; cpu < 4; cpu++)
            expect(&t, name, cpu, cpu, 0, with_l3 && cpu != 2 ? 0 : cpu, 0);
        ag_topo_free(&t);
    }
}

/* No topology or cache directories (some containers): every CPU is counted as guessed, so that the
 * library turns to hwloc (topo.c topo_load); nothing is invented. */
static void bare(void)
{
    fresh();
    put("0-2", "cpu/online");
    struct ag_topo t = read_tree("bare");
    CHECK(t.ncpus == 3 && t.guessed == 3, "bare: %u cpus, %u guessed", t.ncpus, t.guessed);
    for (unsigned i = 0; i < t.ncpus; i++)
        CHECK(t.cpu[i].core == -1 && t.cpu[i].package == -1 && t.cpu[i].numa == 0,
              "bare: cpu %d has core %d package %d numa %d", t.cpu[i].cpu, t.cpu[i].core, t.cpu[i].package,
              t.cpu[i].numa);
    ag_topo_free(&t);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/ag_sysfs_XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    two_sockets();
    clusters();
    mixed();
    private_l2();
    bare();
    char cmd[sizeof root + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "%s", cmd);
    return check_done();
}
