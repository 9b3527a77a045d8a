/* test_cgroup.c — a CPU quota set on the process's cgroup, or on a parent of it, caps the usable CPUs and
 * leaves the wait policy to the CPUs the process may run on (issue 10 item 1), wherever the
 * cpu controller is mounted (cgroup.c: /sys/fs/cgroup/cpu as well as /sys/fs/cgroup/cpu,cpuacct and v2),
 * and a barrier's init sees a change once its copy of the limits is AG_CGROUP_TTL_NS old.
 *
 * It makes two cgroups of its own, andgate-test-PID and andgate-test-PID/leaf, at the top of the cpu
 * controller's hierarchy, moves itself in and out, and removes them. Exit 77 (skipped) where it cannot:
 * not root, no writable cpu controller (a container), or fewer than 2 usable CPUs to cap. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "check.h"
#include "topo.h"

static char top[256], parent[320], leaf[400];
static int v2;

static int put(const char *dir, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0;
    return fclose(f) || rc ? -1 : 0;
}

static int enter(const char *dir)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    return put(dir, "cgroup.procs", pid);
}

/* A quota of `cpus` whole CPUs on dir, or none (cpus 0). */
static int quota(const char *dir, unsigned cpus)
{
    char text[64];
    if (v2) {
        snprintf(text, sizeof text, cpus ? "%u 100000\n" : "max 100000\n", cpus * 100000u);
        return put(dir, "cpu.max", text);
    }
    snprintf(text, sizeof text, "%ld\n", cpus ? (long)cpus * 100000L : -1L);
    return put(dir, "cpu.cfs_period_us", "100000\n") || put(dir, "cpu.cfs_quota_us", text);
}

/* The top of a writable cpu controller hierarchy: v1's, under either name, or v2's with cpu enabled. */
static int find_top(void)
{
    static const char *v1[] = { "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct" };
    struct stat st;
    for (unsigned i = 0; i < 2; i++) {
        char probe[300];
        snprintf(probe, sizeof probe, "%s/cpu.cfs_quota_us", v1[i]);
        if (stat(probe, &st) == 0) {
            snprintf(top, sizeof top, "%s", v1[i]);
            return 0;
        }
    }
    if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0 &&
        put("/sys/fs/cgroup", "cgroup.subtree_control", "+cpu\n") == 0) {
        snprintf(top, sizeof top, "/sys/fs/cgroup");
        v2 = 1;
        return 0;
    }
    return -1;
}

static void settle(void) /* past the age at which a barrier's init reads the limits again */
{
    struct timespec ts = { 0, (long)AG_CGROUP_TTL_NS + 50000000L };
    nanosleep(&ts, NULL);
}

/* With the process capped at one CPU's time: usable 1; a barrier of as many participants as CPUs still
 * spins first (a quota takes time, not CPUs: barrier.c), one of more gets the oversubscribed policy. */
static void capped(const char *where, unsigned cpus)
{
    CHECK(ag_usable_cpus() == 1, "%s: usable %u, want 1", where, ag_usable_cpus());
    CHECK(ag_cgroup_cpu_limit() == 1, "%s: quota %u CPUs, want 1", where, ag_cgroup_cpu_limit());
    CHECK(ag_process_cpu_count() == cpus, "%s: %u CPUs, want %u", where, ag_process_cpu_count(), cpus);
    for (unsigned n = cpus; n <= cpus + 1; n++) {
        ag_barrier_t *b;
        ag_config_t cfg = { .nthreads = n, .wait = "auto" };
        CHECK(ag_barrier_init(&b, &cfg) == 0, "%s: init", where);
        int yields = strstr(ag_barrier_describe(b), "spin_ns=0,yield_ns=") != NULL;
        CHECK(yields == (n > cpus), "%s: a barrier of %u on %u CPUs: %s", where, n, cpus, ag_barrier_describe(b));
        ag_barrier_destroy(b);
    }
}

int main(void)
{
    unsigned before = ag_usable_cpus(), cpus = ag_process_cpu_count(); /* also fills the library's copy */
    if (geteuid() != 0 || before < 2 || find_top() != 0) {
        printf("skipped: needs root, a writable cpu cgroup controller and 2 usable CPUs (usable %u)\n", before);
        return 77;
    }
    snprintf(parent, sizeof parent, "%s/andgate-test-%d", top, (int)getpid());
    snprintf(leaf, sizeof leaf, "%s/leaf", parent);
    if (mkdir(parent, 0755) || mkdir(leaf, 0755)) {
        printf("skipped: cannot make cgroups under %s: %s\n", top, strerror(errno));
        rmdir(parent);
        return 77;
    }
    if (v2 && put(parent, "cgroup.subtree_control", "+cpu\n"))
        printf("note: cpu not enabled below %s\n", parent);

    /* the quota on the cgroup the process is in */
    CHECK(quota(parent, 1) == 0 && enter(parent) == 0, "quota and move into %s: %s", parent, strerror(errno));
    settle();
    capped("quota on the process's cgroup", cpus);

    /* the quota on a parent, none on the process's cgroup: the parent's binds */
    CHECK(quota(leaf, 0) == 0 && enter(leaf) == 0, "move into %s: %s", leaf, strerror(errno));
    settle();
    capped("quota on the parent cgroup", cpus);

    /* out again: back to what it was */
    CHECK(enter(top) == 0, "move back to %s: %s", top, strerror(errno));
    settle();
    CHECK(ag_usable_cpus() == before, "after leaving the cgroups: usable %u, want %u", ag_usable_cpus(), before);
    CHECK(rmdir(leaf) == 0 && rmdir(parent) == 0, "remove %s: %s", parent, strerror(errno));
    return check_done();
}
