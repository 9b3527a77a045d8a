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

/* This process's cgroup path (v2: the "0::" line; v1: the cpu controller's), into rel; v1 or not. */
static int cgroup_rel(char *rel, size_t len, const char *v1_controller)
{
    char text[4096], *save = NULL;
    rel[0] = '\0';
    if (ag_sysfs_text("/proc/self/cgroup", text, sizeof text))
        return 0;
    int v1 = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        /* "ID:CONTROLLERS:PATH"; v2's single hierarchy has no controllers ("0::/path") */
        char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        char list[256], want[64];
        snprintf(list, sizeof list, ",%s,", ctl + 1);
        snprintf(want, sizeof want, ",%s,", v1_controller);
        if (ctl[1] == '\0' && !v1) {
            snprintf(rel, len, "%s", path);
        } else if (strstr(list, want)) {
            snprintf(rel, len, "%s", path);
            v1 = 1;
        }
    }
    return v1;
}

/* cgroup v2: the smallest cpu.max quota on the path from our cgroup to the root; v1: cfs quota. */
unsigned ag_cgroup_cpu_limit(void)
{
    char rel[512], path[768];
    unsigned best = 0;
    int v1 = cgroup_rel(rel, sizeof rel, "cpu");
    for (;;) {
        long long quota = -1, period = 0;
        if (!v1) {
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

static void set_cpu(int cpu, void *arg)
{
    if (cpu >= 0 && cpu < CPU_SETSIZE)
        CPU_SET(cpu, (cpu_set_t *)arg);
}

/* The cgroup's cpuset (v2 cpuset.cpus.effective, v1 cpuset.effective_cpus); 0 when there is none. */
static int cgroup_cpuset(cpu_set_t *set)
{
    char rel[512], path[768];
    int v1 = cgroup_rel(rel, sizeof rel, "cpuset");
    CPU_ZERO(set);
    if (v1)
        snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", rel);
    else
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective", rel);
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
    *b = (struct ag_cpu_budget){ 0 };
    CPU_ZERO(process);
    if (threads_affinity(&threads)) {
        b->threads = (unsigned)CPU_COUNT(&threads);
        CPU_OR(process, process, &threads);
    }
    if (at_load_ok) {
        b->at_load = (unsigned)CPU_COUNT(&at_load);
        CPU_OR(process, process, &at_load);
    }
    if (cgroup_cpuset(&cpuset) && CPU_COUNT(&cpuset) > 0) {
        b->cpuset = (unsigned)CPU_COUNT(&cpuset);
        cpu_set_t both;
        CPU_AND(&both, process, &cpuset);
        if (CPU_COUNT(&both) > 0)
            *process = both;
    }
    b->process = (unsigned)CPU_COUNT(process);
    b->quota = ag_cgroup_cpu_limit();
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
