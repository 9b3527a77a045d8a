/* cpus.c — the CPUs the process may use: its affinity (at load and of every thread now), the cgroup's
 * cpuset and CPU quota. Usable CPUs = the CPUs the process may run on (not the calling thread's mask),
 * capped by the quota (rounded up); see "the CPUs of the process" below. */
#define _GNU_SOURCE
#include "andgate.h" /* ag_usable_cpus is public: its AG_API declaration exports it from libandgate.so */
#include "topo.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* This process's cgroups, from one read of /proc/self/cgroup: for the cpu and the cpuset controllers,
 * the path of v1's hierarchy of that controller when there is one, else v2's single hierarchy's. */
enum { CG_PATH = 512 };
struct cgroups {
    char cpu[CG_PATH], cpuset[CG_PATH];
    int cpu_v1, cpuset_v1;
};

/* One line of /proc/self/cgroup for one controller (want: ",cpu,"): a v1 hierarchy naming it wins over
 * v2's. */
static void cgroup_take(char *rel, int *v1, const char *ctl, const char *want, const char *path)
{
    char list[256];
    snprintf(list, sizeof list, ",%s,", ctl);
    if (ctl[0] == '\0' && !*v1) { /* v2's single hierarchy has no controllers ("0::/path") */
        snprintf(rel, CG_PATH, "%s", path);
    } else if (strstr(list, want)) {
        snprintf(rel, CG_PATH, "%s", path);
        *v1 = 1;
    }
}

static void cgroups_read(struct cgroups *g)
{
    char text[4096], *save = NULL;
    *g = (struct cgroups){ 0 };
    if (ag_sysfs_text("/proc/self/cgroup", text, sizeof text))
        return;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        /* "ID:CONTROLLERS:PATH" */
        char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        cgroup_take(g->cpu, &g->cpu_v1, ctl + 1, ",cpu,", path);
        cgroup_take(g->cpuset, &g->cpuset_v1, ctl + 1, ",cpuset,", path);
    }
}

/* cgroup v2: the smallest cpu.max quota on the path from our cgroup to the root; v1: cfs quota. */
static unsigned cpu_limit(const struct cgroups *g)
{
    char rel[CG_PATH], path[768];
    unsigned best = 0;
    memcpy(rel, g->cpu, sizeof rel);
    for (;;) {
        long long quota = -1, period = 0;
        if (!g->cpu_v1) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", rel);
            char text[64], qs[32];
            if (ag_sysfs_text(path, text, sizeof text) == 0 && sscanf(text, "%31s %lld", qs, &period) == 2 &&
                strcmp(qs, "max") != 0)
                quota = atoll(qs);
        } else {
            int qi, pi;
            snprintf(path, sizeof path, "/sys/fs/cgroup/cpu,cpuacct%s/cpu.cfs_quota_us", rel);
            if (ag_sysfs_int(path, &qi) == 0) {
                quota = qi;
                snprintf(path, sizeof path, "/sys/fs/cgroup/cpu,cpuacct%s/cpu.cfs_period_us", rel);
                if (ag_sysfs_int(path, &pi) == 0)
                    period = pi;
            }
        }
        if (quota > 0 && period > 0) {
            unsigned n = (unsigned)((quota + period - 1) / period);
            if (!best || n < best)
                best = n;
        }
        if (rel[0] == '\0' || strcmp(rel, "/") == 0)
            break;
        char *slash = strrchr(rel, '/');
        if (!slash)
            break;
        *slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
    }
    return best;
}

unsigned ag_cgroup_cpu_limit(void)
{
    struct cgroups g;
    cgroups_read(&g);
    return cpu_limit(&g);
}

static void set_cpu(int cpu, void *arg)
{
    if (cpu >= 0 && cpu < CPU_SETSIZE)
        CPU_SET(cpu, (cpu_set_t *)arg);
}

/* The cgroup's cpuset (v2 cpuset.cpus.effective, v1 cpuset.effective_cpus); 0 when there is none. */
static int cgroup_cpuset(const struct cgroups *g, cpu_set_t *set)
{
    char path[768];
    CPU_ZERO(set);
    if (g->cpuset_v1)
        snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", g->cpuset);
    else
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective", g->cpuset);
    return ag_sysfs_cpulist(path, set_cpu, set) >= 0;
}

/* ---- the CPUs of the process ----
 * A thread's affinity mask is not the process's: OpenMP runtimes and programs pin their threads, each
 * to one CPU (libgomp pins the initial thread in its constructor, before any other library's runs),
 * and a team of two pinned threads on two CPUs is not oversubscribed. What the process may run on is
 * the union of the mask it was started with (read when this library is loaded) and the masks of all
 * its threads now, within its cgroup's cpuset; the cgroup's CPU quota caps how many of those it can
 * keep busy. Re-read at every call (a barrier's init), so threads pinned since count. */

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

void ag_cpu_budget(struct ag_cpu_budget *b, cpu_set_t *process)
{
    cpu_set_t threads, cpuset;
    struct cgroups g;
    *b = (struct ag_cpu_budget){ 0 };
    cgroups_read(&g);
    CPU_ZERO(process);
    if (threads_affinity(&threads)) {
        b->threads = (unsigned)CPU_COUNT(&threads);
        CPU_OR(process, process, &threads);
    }
    if (at_load_ok) {
        b->at_load = (unsigned)CPU_COUNT(&at_load);
        CPU_OR(process, process, &at_load);
    }
    if (cgroup_cpuset(&g, &cpuset) && CPU_COUNT(&cpuset) > 0) {
        b->cpuset = (unsigned)CPU_COUNT(&cpuset);
        cpu_set_t both;
        CPU_AND(&both, process, &cpuset);
        if (CPU_COUNT(&both) > 0)
            *process = both;
    }
    b->process = (unsigned)CPU_COUNT(process);
    b->quota = cpu_limit(&g);
    b->usable = b->quota && b->quota < b->process ? b->quota : b->process;
    if (!b->usable)
        b->usable = 1;
}

unsigned ag_process_cpus(int *cpus, unsigned max)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    unsigned n = 0;
    ag_cpu_budget(&b, &set);
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

unsigned ag_usable_cpus(void)
{
    struct ag_cpu_budget b;
    cpu_set_t set;
    ag_cpu_budget(&b, &set);
    return b.usable;
}
