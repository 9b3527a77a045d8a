/* test_topo.c — topology invariants, hwloc and sysfs agreeing on this machine, usable CPUs, and the
 * participant shapes (rank order, groups) built from cfg.cpus. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "andgate.h"
#include "check.h"
#include "shape.h"
#include "topo.h"

static void invariants(const struct ag_topo *t, const char *src)
{
    CHECK(t->ncpus >= 1, "%s: no CPUs", src);
    for (unsigned i = 0; i < t->ncpus; i++) {
        const struct ag_cpuinfo *a = &t->cpu[i];
        CHECK(a->core >= 0 && a->cache >= 0 && a->numa >= 0 && a->package >= 0, "%s: cpu %d has unknown ids",
              src, a->cpu);
        if (i)
            CHECK(t->cpu[i - 1].cpu < a->cpu, "%s: cpus not sorted at %u", src, i);
        CHECK(ag_topo_cpu(t, a->cpu) == a, "%s: lookup of cpu %d", src, a->cpu);
        for (unsigned j = 0; j < t->ncpus; j++) {
            const struct ag_cpuinfo *b = &t->cpu[j];
            if (a->core == b->core && a->package == b->package)
                CHECK(a->cache == b->cache && a->numa == b->numa, "%s: SMT siblings %d, %d split", src, a->cpu,
                      b->cpu);
            if (a->cache == b->cache)
                CHECK(a->package == b->package, "%s: cache group %d spans packages", src, a->cache);
        }
    }
    CHECK(ag_topo_cpu(t, -1) == NULL && ag_topo_cpu(t, 1 << 20) == NULL, "%s: absent CPUs found", src);
}

/* same partition of CPUs under a field */
static int same_partition(const struct ag_topo *x, const struct ag_topo *y, size_t off)
{
    if (x->ncpus != y->ncpus)
        return 0;
    for (unsigned i = 0; i < x->ncpus; i++)
        for (unsigned j = 0; j < x->ncpus; j++) {
            int ex = *(const int *)((const char *)&x->cpu[i] + off) == *(const int *)((const char *)&x->cpu[j] + off);
            int ey = *(const int *)((const char *)&y->cpu[i] + off) == *(const int *)((const char *)&y->cpu[j] + off);
            if (ex != ey || x->cpu[i].cpu != y->cpu[i].cpu)
                return 0;
        }
    return 1;
}

/* A pinned thread is not a pinned process (issue 10): after the calling thread pins itself to one CPU,
 * the process still has every CPU it had, and so does a barrier made from that thread. */
static void pinned_thread_keeps_usable(const int *aff, unsigned naff, unsigned quota)
{
    unsigned usable = quota && quota < naff ? quota : naff;
    cpu_set_t one, all;
    CPU_ZERO(&one);
    CPU_SET(aff[naff - 1], &one);
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0 && sched_setaffinity(0, sizeof one, &one) == 0, "pin");
    struct ag_cpu_budget b;
    cpu_set_t process;
    ag_cpu_budget(&b, &process, 1);
    CHECK(b.threads == 1 && b.at_load == naff, "budget after pinning: threads %u (want 1), at load %u (want %u)",
          b.threads, b.at_load, naff);
    CHECK(ag_usable_cpus() == usable, "usable %u after pinning the calling thread, %u before", ag_usable_cpus(),
          usable);
    ag_barrier_t *bar;
    ag_config_t cfg = { .nthreads = usable, .wait = "auto" };
    CHECK(ag_barrier_init(&bar, &cfg) == 0, "init from a pinned thread");
    CHECK(usable < 2 || strstr(ag_barrier_describe(bar), "spin_ns=0") == NULL,
          "a pinned thread's barrier of %u on %u usable CPUs got the oversubscribed policy: %s", usable, usable,
          ag_barrier_describe(bar));
    ag_barrier_destroy(bar);
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0, "unpin");
}

/* A barrier's init reads the threads' masks only where they can add a CPU (cpus.c): what it finds must be
 * what reading everything finds, and a thread that widened its mask beyond the one the process started
 * with (the ctest under taskset -c 0) adds its CPUs at once. */
static atomic_int widened, done;

static void *widen(void *arg)
{
    cpu_set_t *all = arg;
    atomic_store(&widened, sched_setaffinity(0, sizeof *all, all) == 0 ? 1 : -1);
    while (!atomic_load(&done))
        sched_yield();
    return NULL;
}

static void quick_budget_is_exact(void)
{
    struct ag_cpu_budget q, f;
    cpu_set_t pq, pf, all;
    ag_cpu_budget(&q, &pq, 0);
    ag_cpu_budget(&f, &pf, 1);
    CHECK(q.usable == f.usable && CPU_EQUAL(&pq, &pf), "init's budget: usable %u of %u, read fully %u of %u",
          q.usable, q.process, f.usable, f.process);
    CPU_ZERO(&all);
    const struct ag_topo *t = ag_topo_get();
    for (unsigned i = 0; i < t->ncpus; i++)
        CPU_SET(t->cpu[i].cpu, &all);
    if (f.process >= (unsigned)CPU_COUNT(&all))
        return; /* nothing to widen to */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, widen, &all) == 0, "thread");
    while (!atomic_load(&widened))
        sched_yield();
    ag_cpu_budget(&q, &pq, 0);
    ag_cpu_budget(&f, &pf, 1);
    CHECK(atomic_load(&widened) == 1 && q.process == f.process && q.process > 1,
          "a thread widened to %d CPUs: init's budget has %u process CPUs, read fully %u", CPU_COUNT(&all),
          q.process, f.process);
    atomic_store(&done, 1);
    pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
    /* --usable N: the count this run must find (the test under taskset -c 0 expects 1) */
    unsigned expect_usable = argc == 3 && !strcmp(argv[1], "--usable") ? (unsigned)atoi(argv[2]) : 0;
    const struct ag_topo *t = ag_topo_get();
    invariants(t, t->source);

    struct ag_topo sys, hw;
    CHECK(ag_topo_read(&sys, AG_TOPO_SYSFS) == 0, "sysfs topology");
    invariants(&sys, "sysfs");
    if (ag_topo_read(&hw, AG_TOPO_HWLOC) == 0) {
        invariants(&hw, "hwloc");
        CHECK(same_partition(&hw, &sys, offsetof(struct ag_cpuinfo, core)), "hwloc and sysfs cores differ");
        CHECK(same_partition(&hw, &sys, offsetof(struct ag_cpuinfo, numa)), "NUMA nodes differ");
        CHECK(same_partition(&hw, &sys, offsetof(struct ag_cpuinfo, package)), "packages differ");
        CHECK(hw.cache_level != sys.cache_level || same_partition(&hw, &sys, offsetof(struct ag_cpuinfo, cache)),
              "cache groups at L%d differ", hw.cache_level);
        ag_topo_free(&hw);
    } else {
        printf("note: built without hwloc; sysfs only\n");
    }
    ag_topo_free(&sys);

    /* usable CPUs: what the process may run on, capped by the cgroup quota */
    int aff[CPU_SETSIZE];
    unsigned naff = ag_affinity_cpus(aff, CPU_SETSIZE), q = ag_cgroup_cpu_limit();
    pinned_thread_keeps_usable(aff, naff, q); /* before anything else asks: nothing cached helps it */
    unsigned u = ag_usable_cpus();
    CHECK(naff >= 1 && u >= 1 && u <= naff, "usable %u of affinity %u", u, naff);
    CHECK(!q || u <= q, "usable %u above the cgroup limit %u", u, q);
    for (unsigned i = 0; i < naff; i++)
        CHECK(ag_topo_cpu(t, aff[i]) != NULL, "affinity cpu %d not in the topology", aff[i]);
    if (expect_usable)
        CHECK(u == expect_usable, "usable %u, expected %u (--usable)", u, expect_usable);
    quick_budget_is_exact();

    /* shapes: cfg.cpus orders participants by topology, CPU, then tid */
    struct ag_shape sh;
    int last = t->cpu[t->ncpus - 1].cpu, first = t->cpu[0].cpu;
    int cpus[6] = { last, first, last, first, first, last };
    CHECK(ag_shape_build(&sh, 6, cpus, NULL, NULL, 0) == 0, "shape");
    for (unsigned r = 0; r < 6; r++) {
        CHECK(sh.rank[sh.order[r]] == r, "rank/order inverse at %u", r);
        if (r)
            CHECK(cpus[sh.order[r - 1]] <= cpus[sh.order[r]] || t->ncpus == 1, "rank order by cpu at %u", r);
    }
    CHECK(sh.order[0] == 1 && sh.order[1] == 3 && sh.order[2] == 4, "participants on the first CPU first, by tid");
    for (int l = 0; l < 3; l++)
        for (unsigned r = 1; r < 6; r++) {
            unsigned a = sh.group[l][sh.order[r - 1]], b = sh.group[l][sh.order[r]];
            CHECK(b == a || b == a + 1, "level %d groups contiguous and increasing in rank order", l);
        }
    CHECK(sh.ngroups[AG_LVL_CORE] == (t->ncpus > 1 && t->cpu[0].core != t->cpu[t->ncpus - 1].core ? 2u : 1u),
          "two cores, two core groups (%u)", sh.ngroups[AG_LVL_CORE]);
    ag_shape_free(&sh);

    char msg[128];
    int bad[2] = { first, -3 };
    CHECK(ag_shape_build(&sh, 2, bad, NULL, msg, sizeof msg) == EINVAL && strstr(msg, "cpus[1] = -3"), "bad cpu: %s",
          msg);
    /* default placement: participant i on the i-th affinity CPU, wrapping */
    CHECK(ag_shape_build(&sh, 5, NULL, NULL, NULL, 0) == 0, "default shape");
    CHECK(sh.ngroups[AG_LVL_CORE] <= naff, "default placement uses affinity CPUs");
    ag_shape_free(&sh);
    return check_done();
}
