/* cgroup.c — the CPU limits of the process's cgroups: the cpuset it may run on and its CPU quota (topo.h,
 * struct ag_cgroup; cpus.c turns them into usable CPUs).
 *
 * Where the files are. /proc/self/cgroup names the process's cgroup in each hierarchy ("ID:CONTROLLERS:
 * PATH"; v2's single hierarchy is "0::PATH"); /proc/self/mountinfo says where each hierarchy is mounted and
 * which of its cgroups the mount shows at its mount point (its "root" field: a container without a cgroup
 * namespace sees its own cgroup, "/docker/ID", as the mount's top). A controller's directory is the mount
 * point followed by PATH less that root. A v1 hierarchy with the controller wins over v2's (hybrid systems
 * mount v2 without controllers). Nothing is assumed of mount points: systemd mounts v1's cpu controller at
 * /sys/fs/cgroup/cpu,cpuacct, others at /sys/fs/cgroup/cpu — until 2026-11-27 this file read only the
 * former, and a quota on the latter went unseen (usable CPUs 2 under a 1-CPU quota).
 *
 * What is read. The quota: the smallest on the path from the process's cgroup up to the mount's top (the
 * kernel's CFS bandwidth control is hierarchical: a parent's limit binds its children), v2 cpu.max, v1
 * cpu.cfs_quota_us over cpu.cfs_period_us, rounded up to whole CPUs. The cpuset: the nearest
 * cpuset.cpus.effective (v2; a cgroup without the cpuset controller has its parent's) or
 * cpuset.effective_cpus (v1). The online CPUs too: without a cpuset they bound what a thread can be given.
 *
 * How often. These change only when an administrator moves the process or changes a limit, while a program
 * may make barriers by the thousand (a pthread_barrier_init per phase, under the shim), and the reads cost
 * 30-100 us of system calls. So a barrier's init takes them from a copy at most AG_CGROUP_TTL_NS old, read
 * again by whichever init finds it older, under a lock (a child forked while another thread held it gets
 * it anew). `andgate info` reads them fresh. Nothing here allocates (sysfs.c says why), and a read's
 * scratch is static, under that lock: a barrier's init may run on a thread with a 16 KiB stack. */
#define _GNU_SOURCE
#include "topo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "now.h"
#include "sysfs.h"

enum { CG_PATH = 512 };

/* One controller's place: the mount point and the process's cgroup below it. */
struct place {
    const char *name; /* "cpu" or "cpuset" */
    char mnt[CG_PATH], rel[CG_PATH];
    int v1;    /* from a v1 hierarchy (else v2's) */
    int found; /* a mount was found for it (else the conventional /sys/fs/cgroup paths) */
};
enum { CG_CPU, CG_CPUSET, CG_N };

/* Whether a comma-separated list ("rw,cpu,cpuacct") holds name. */
static int has_option(const char *opts, const char *name)
{
    char list[512], want[32];
    snprintf(list, sizeof list, ",%s,", opts);
    snprintf(want, sizeof want, ",%s,", name);
    return strstr(list, want) != NULL;
}

/* One line of /proc/self/cgroup, for each controller (arg: the CG_N places): a v1 hierarchy naming it
 * wins over v2's. */
static void cgroup_line(char *line, void *arg)
{
    char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
    if (!path)
        return;
    *path++ = '\0';
    ctl++;
    for (struct place *p = arg; p < (struct place *)arg + CG_N; p++)
        if (ctl[0] == '\0' && !p->v1) { /* v2: "0::/path" */
            snprintf(p->rel, sizeof p->rel, "%s", path);
        } else if (has_option(ctl, p->name)) {
            snprintf(p->rel, sizeof p->rel, "%s", path);
            p->v1 = 1;
        }
}

/* mountinfo escapes blanks and backslashes in paths as octal (\040) */
static void unescape(char *s)
{
    char *d = s;
    while (*s) {
        int octal = s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
                    s[3] <= '7';
        if (octal) {
            *d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
            s += 4;
        } else {
            *d++ = *s++;
        }
    }
    *d = '\0';
}

/* One line of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPEROPTIONS" (proc(5)). For each controller (arg: the CG_N places), the first mount of its
 * hierarchy whose root holds the process's cgroup is the place. */
static void mount_line(char *line, void *arg)
{
    char *f[6], *save = NULL, *t = strtok_r(line, " ", &save);
    int n = 0;
    for (; t && n < 6; t = strtok_r(NULL, " ", &save))
        f[n++] = t;
    while (t && strcmp(t, "-") != 0)
        t = strtok_r(NULL, " ", &save);
    char *type = t ? strtok_r(NULL, " ", &save) : NULL, *source = type ? strtok_r(NULL, " ", &save) : NULL;
    char *super = source ? strtok_r(NULL, " ", &save) : NULL;
    if (n < 6 || !super)
        return;
    char *root = f[3], *mnt = f[4];
    unescape(root);
    unescape(mnt);
    size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
    for (struct place *p = arg; p < (struct place *)arg + CG_N; p++) {
        int match = p->v1 ? !strcmp(type, "cgroup") && has_option(super, p->name) : !strcmp(type, "cgroup2");
        if (p->found || !match || strncmp(p->rel, root, rl) != 0 || (p->rel[rl] != '/' && p->rel[rl] != '\0'))
            continue;
        memmove(p->rel, p->rel + rl, strlen(p->rel + rl) + 1);
        snprintf(p->mnt, sizeof p->mnt, "%s", mnt);
        p->found = 1;
    }
}

/* Both controllers' places, from one read of each file. */
static void locate(struct place *places)
{
    ag_sysfs_lines("/proc/self/cgroup", cgroup_line, places);
    ag_sysfs_lines("/proc/self/mountinfo", mount_line, places);
    for (struct place *p = places; p < places + CG_N; p++)
        if (!p->found) /* no mountinfo: the conventional places */
            snprintf(p->mnt, sizeof p->mnt, p->v1 ? "/sys/fs/cgroup/%s" : "/sys/fs/cgroup", p->name);
}

/* Drops the last component of a cgroup path: "/a/b" -> "/a" -> "" (the mount's top); 0 at the top. */
static int up(char *rel)
{
    char *slash = strrchr(rel, '/');
    if (rel[0] == '\0')
        return 0;
    if (slash)
        *slash = '\0';
    else
        rel[0] = '\0';
    return 1;
}

/* The scratch of a read (under the cache's lock, below): its paths and places would take 3 KiB of a stack
 * that may be a small thread's. */
static char path[2 * CG_PATH + 32];
static struct place places[CG_N];

/* The quota of one cgroup directory in whole CPUs (rounded up); 0 when unlimited or unreadable. */
static unsigned dir_quota(const struct place *p, const char *rel)
{
    long long quota = -1, period = 0;
    if (!p->v1) {
        char text[64], qs[32];
        snprintf(path, sizeof path, "%s%s/cpu.max", p->mnt, rel);
        if (ag_sysfs_text(path, text, sizeof text) == 0 && sscanf(text, "%31s %lld", qs, &period) == 2 &&
            strcmp(qs, "max") != 0)
            quota = atoll(qs);
    } else {
        int qi, pi;
        snprintf(path, sizeof path, "%s%s/cpu.cfs_quota_us", p->mnt, rel);
        if (ag_sysfs_int(path, &qi) == 0) {
            quota = qi;
            snprintf(path, sizeof path, "%s%s/cpu.cfs_period_us", p->mnt, rel);
            if (ag_sysfs_int(path, &pi) == 0)
                period = pi;
        }
    }
    return quota > 0 && period > 0 ? (unsigned)((quota + period - 1) / period) : 0;
}

static unsigned read_quota(const struct place *p)
{
    char rel[CG_PATH];
    unsigned best = 0;
    memcpy(rel, p->rel, sizeof rel);
    do {
        unsigned n = dir_quota(p, rel);
        if (n && (!best || n < best))
            best = n;
    } while (up(rel));
    return best;
}

static void set_cpu(int cpu, void *arg)
{
    if (cpu >= 0 && cpu < CPU_SETSIZE)
        CPU_SET(cpu, (cpu_set_t *)arg);
}

static int read_cpuset(const struct place *p, cpu_set_t *set)
{
    char rel[CG_PATH];
    memcpy(rel, p->rel, sizeof rel);
    do {
        snprintf(path, sizeof path, "%s%s/%s", p->mnt, rel,
                 p->v1 ? "cpuset.effective_cpus" : "cpuset.cpus.effective");
        CPU_ZERO(set);
        if (ag_sysfs_cpulist(path, set_cpu, set) >= 0 && CPU_COUNT(set) > 0)
            return 1;
    } while (up(rel));
    return 0;
}

static void read_all(struct ag_cgroup *g)
{
    places[CG_CPU] = (struct place){ .name = "cpu" };
    places[CG_CPUSET] = (struct place){ .name = "cpuset" };
    *g = (struct ag_cgroup){ 0 };
    locate(places);
    g->quota = read_quota(&places[CG_CPU]);
    g->have_cpuset = read_cpuset(&places[CG_CPUSET], &g->cpuset);
    CPU_ZERO(&g->online);
    g->have_online = ag_sysfs_cpulist("/sys/devices/system/cpu/online", set_cpu, &g->online) >= 0;
}

static struct {
    pthread_mutex_t lock; /* the copy and the scratch above */
    int valid;
    uint64_t at;
    struct ag_cgroup g;
} cache = { PTHREAD_MUTEX_INITIALIZER, 0, 0, { 0 } };

void ag_cgroup_get(struct ag_cgroup *g, int fresh)
{
    pthread_mutex_lock(&cache.lock); /* held for one read at most, every AG_CGROUP_TTL_NS */
    uint64_t now = ag_now_ns();
    if (fresh || !cache.valid || now - cache.at >= AG_CGROUP_TTL_NS) {
        read_all(&cache.g);
        cache.at = now;
        cache.valid = 1;
    }
    *g = cache.g;
    pthread_mutex_unlock(&cache.lock);
}

/* A child forked while another thread of its parent held the lock would never get it */
static void unlock_in_child(void)
{
    pthread_mutex_init(&cache.lock, NULL);
}

__attribute__((constructor)) static void cgroup_at_load(void)
{
    pthread_atfork(NULL, NULL, unlock_in_child);
}

unsigned ag_cgroup_cpu_limit(void)
{
    struct ag_cgroup g;
    ag_cgroup_get(&g, 1);
    return g.quota;
}
