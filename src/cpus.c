/* cpus.c — the CPUs the process may use: its affinity (at load and of every thread now), the cgroup's
 * cpuset and CPU quota (cgroup.c). Usable CPUs = the CPUs the process may run on (not the calling
 * thread's mask), capped by the quota (rounded up); see "the CPUs of the process" below. */
#define _GNU_SOURCE
#include "andgate.h" /* ag_usable_cpus is public: its AG_API declaration exports it from libandgate.so */
#include "topo.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "sysfs.h"

unsigned ag_affinity_cpus(int *cpus, unsigned max)
{
    cpu_set_t set;
    unsigned n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

/* ---- the CPUs of the process ----
 * A thread's affinity mask is not the process's: OpenMP runtimes and programs pin their threads, each
 * to one CPU (libgomp pins the initial thread in its constructor, before any other library's runs),
 * and a team of two pinned threads on two CPUs is not oversubscribed. What the process may run on is
 * the union of the mask it was started with (read when this library is loaded) and the masks of all
 * its threads now, within its cgroup's cpuset; the cgroup's CPU quota caps how many of those it can
 * keep busy. Worked out at every call (a barrier's init), so threads pinned since count; the cgroup's
 * files are read at most every AG_CGROUP_TTL_NS (cgroup.c). */

static cpu_set_t at_load;
static int at_load_ok;

__attribute__((constructor)) static void affinity_at_load(void)
{
    at_load_ok = sched_getaffinity(0, sizeof at_load, &at_load) == 0;
}

struct union_of { cpu_set_t *set; int any; };

static void add_thread(const char *name, void *arg)
{
    struct union_of *u = arg;
    cpu_set_t one;
    int tid = atoi(name);
    if (tid > 0 && sched_getaffinity(tid, sizeof one, &one) == 0) {
        CPU_OR(u->set, u->set, &one);
        u->any = 1;
    }
}

/* The union of the affinity masks of every thread of this process. */
static int threads_affinity(cpu_set_t *set)
{
    CPU_ZERO(set);
    struct union_of u = { set, 0 };
    ag_sysfs_dir("/proc/self/task", add_thread, &u);
    if (!u.any && sched_getaffinity(0, sizeof *set, set) == 0)
        u.any = 1;
    return u.any;
}

/* Whether `a` holds every CPU of `b`. */
static int covers(const cpu_set_t *a, const cpu_set_t *b)
{
    cpu_set_t both;
    CPU_AND(&both, a, b);
    return CPU_EQUAL(&both, b);
}

void ag_cpu_budget(struct ag_cpu_budget *b, cpu_set_t *process, int fresh)
{
    cpu_set_t threads;
    struct ag_cgroup g;
    *b = (struct ag_cpu_budget){ 0 };
    ag_cgroup_get(&g, fresh);
    CPU_ZERO(process);
    if (at_load_ok) {
        b->at_load = (unsigned)CPU_COUNT(&at_load);
        CPU_OR(process, process, &at_load);
    }
    /* A thread's mask lies within the cpuset and the online CPUs (the kernel intersects what
     * sched_setaffinity asks for with them). When the mask at load holds all of those, no thread's mask
     * can add a CPU, and reading them (a directory walk and a system call per thread) is left out. */
    const cpu_set_t *bound = g.have_cpuset ? &g.cpuset : g.have_online ? &g.online : NULL;
    if ((fresh || !at_load_ok || !bound || !covers(&at_load, bound)) && threads_affinity(&threads)) {
        b->threads = (unsigned)CPU_COUNT(&threads);
        CPU_OR(process, process, &threads);
    }
    if (g.have_cpuset) {
        b->cpuset = (unsigned)CPU_COUNT(&g.cpuset);
        cpu_set_t both;
        CPU_AND(&both, process, &g.cpuset);
        if (CPU_COUNT(&both) > 0)
            *process = both;
    }
    b->process = (unsigned)CPU_COUNT(process);
    b->quota = g.quota;
    b->usable = b->quota && b->quota < b->process ? b->quota : b->process;
    if (!b->usable)
        b->usable = 1;
}

unsigned ag_process_cpus(int *cpus, unsigned max)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    unsigned n = 0;
    ag_cpu_budget(&b, &set, 0);
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

unsigned ag_process_cpu_count(void)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    ag_cpu_budget(&b, &set, 0);
    return b.process ? b.process : 1;
}

unsigned ag_usable_cpus(void)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    ag_cpu_budget(&b, &set, 0);
    return b.usable;
}
