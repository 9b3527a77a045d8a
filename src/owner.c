/* owner.c — robust process-shared barriers: who is inside, and whether that process still exists.
 *
 * A participant process that dies inside a wait (or between arrive and depart) leaves its inside
 * marker set for good; the survivors time out and see AG_EBROKEN, and ag_barrier_reset would say
 * EBUSY forever. So, as with a robust mutex, each participant slot of a process-shared barrier records
 * its owner: the process that entered through it last. ag_barrier_reset counts a marker only while its
 * owner may still run; a marker whose owner is certainly gone is not inside (reset clears it).
 *
 * The owner words sit in the participant's own line of the arena (algo.h: AG_SELF_OWNER, three slots
 * after the episode number and the marker), so stamping costs no extra cache line and no stores once a
 * process owns the slot. Invariants:
 *   I1  a marker set by process P is preceded, in P's program order, by P's stamp of the same slot;
 *       the marker's store is a release, reset's load of it an acquire, so a reset that sees the marker
 *       sees P's stamp or a later one (a later stamp is another process entering through the slot);
 *   I2  a stamp reads as a whole or as unknown: pid 0 goes first, the pid last (releases), and reset
 *       reads pid, start, namespace, pid again (acquires) and takes only an unchanged nonzero pid;
 *   I3  DEAD is final: a process that no longer exists never stores again (its threads have left
 *       their memory behind before the kernel shows it gone; reset overwrites whatever it left), and a
 *       process that exists is never reported DEAD (ag_owner_state), so reset never clears the marker
 *       of a live waiter.
 * What reset may not know (another pid namespace, /proc hidden) counts as alive: EBUSY, as before.
 */
#define _GNU_SOURCE
#include "owner.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "sysfs.h"

/* ---- reading /proc ---- */

struct stat_fields {
    long pid;
    char state;
    long threads;
    uint64_t start;
};

/* Fields 1 (pid), 3 (state), 20 (num_threads) and 22 (starttime) of /proc/<who>/stat. The command name
 * (field 2) is in parentheses and may hold anything, ')' too: the fields resume after the last ')'. */
static int read_stat(const char *who, struct stat_fields *s)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", who);
    if (ag_sysfs_text(path, buf, sizeof buf) != 0)
        return -1;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2])
        return -1;
    s->pid = strtol(buf, NULL, 10);
    s->state = p[2];
    p += 3;
    for (int field = 4; field <= 22; field++) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p)
            return -1;
        if (field == 20)
            s->threads = (long)v;
        if (field == 22)
            s->start = v;
        p = end;
    }
    return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return (h ^ 0xff) * UINT64_C(0x100000001b3); /* a separator: "ab"+"c" differs from "a"+"bc" */
}

/* The pid and time namespaces of this process ("pid:[4026531836]"): pids mean something only within
 * the first, start times only within the second. 0 when the pid namespace cannot be read. */
static uint64_t ns_key(void)
{
    char pid_ns[64] = "", time_ns[64] = "";
    ssize_t k = readlink("/proc/self/ns/pid", pid_ns, sizeof pid_ns - 1);
    if (k <= 0)
        return 0;
    pid_ns[k] = '\0';
    k = readlink("/proc/self/ns/time", time_ns, sizeof time_ns - 1); /* absent before Linux 5.6 */
    time_ns[k > 0 ? k : 0] = '\0';
    uint64_t h = fnv1a(fnv1a(UINT64_C(0xcbf29ce484222325), pid_ns), time_ns);
    return h ? h : 1;
}

/* ---- this process ---- */

static struct {
    _Atomic uint64_t pid, start, ns;
    _Atomic int valid;
} self_id;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forget_self(void)
{
    atomic_store_explicit(&self_id.valid, 0, memory_order_relaxed); /* the child: one thread */
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, forget_self); /* glibc drops it when the library is unloaded */
}

void ag_owner_of(pid_t pid, struct ag_owner *o)
{
    char who[24];
    struct stat_fields s;
    uint64_t ns = ns_key();
    snprintf(who, sizeof who, "%ld", (long)pid);
    *o = (struct ag_owner){ 0, 0, 0 };
    if (pid > 0 && ns && read_stat(who, &s) == 0)
        *o = (struct ag_owner){ (uint64_t)pid, s.start, ns };
}

void ag_owner_self(struct ag_owner *o)
{
    /* acquire: pairs with the release below, so the three fields are those of the same reading */
    if (atomic_load_explicit(&self_id.valid, memory_order_acquire)) {
        o->pid = atomic_load_explicit(&self_id.pid, memory_order_relaxed);
        o->start = atomic_load_explicit(&self_id.start, memory_order_relaxed);
        o->ns = atomic_load_explicit(&self_id.ns, memory_order_relaxed);
        return;
    }
    pthread_once(&atfork_once, register_atfork);
    struct stat_fields s;
    uint64_t ns = ns_key();
    *o = (struct ag_owner){ 0, 0, 0 };
    /* /proc/self must be this process as /proc shows it to others: a /proc of another pid namespace
     * would give a pid that names somebody else there */
    if (ns && read_stat("self", &s) == 0 && s.pid == (long)getpid())
        *o = (struct ag_owner){ (uint64_t)s.pid, s.start, ns };
    /* threads racing here compute the same values */
    atomic_store_explicit(&self_id.pid, o->pid, memory_order_relaxed);
    atomic_store_explicit(&self_id.start, o->start, memory_order_relaxed);
    atomic_store_explicit(&self_id.ns, o->ns, memory_order_relaxed);
    atomic_store_explicit(&self_id.valid, 1, memory_order_release);
}

enum ag_owner_state ag_owner_state(const struct ag_owner *o)
{
    struct ag_owner me;
    ag_owner_self(&me);
    if (!o->pid || o->pid > INT_MAX || !me.pid || me.ns != o->ns)
        return AG_OWNER_UNKNOWN;
    char who[24];
    struct stat_fields s;
    snprintf(who, sizeof who, "%llu", (unsigned long long)o->pid);
    if (read_stat(who, &s) != 0) /* reaped, or hidden from us (hidepid): kill tells which */
        return kill((pid_t)o->pid, 0) != 0 && errno == ESRCH ? AG_OWNER_DEAD : AG_OWNER_UNKNOWN;
    /* The owner existed when it stamped, before this read. Had it lived on, the pid would still be its
     * own; another start time means it was reaped and the pid given to a new process. */
    if (s.start != o->start)
        return AG_OWNER_DEAD;
    /* A zombie with one thread left is a thread group that has wholly exited: every thread is past
     * giving up its memory. A zombie leader with live threads (main called pthread_exit) is alive. */
    if ((s.state == 'Z' || s.state == 'X' || s.state == 'x') && s.threads <= 1)
        return AG_OWNER_DEAD;
    return AG_OWNER_ALIVE;
}

/* ---- the owner words of a participant slot ---- */

void ag_owner_stamp(ag_barrier_t *b, unsigned tid)
{
    const ag_flags_t *f = &b->run.fl;
    uint32_t me = ag_at(b->self, tid), w = me + AG_SELF_OWNER;
    /* arrived split-phase or inside: the slot's holder keeps it until it returns, and this call is
     * refused (ag_refuse), so the holder's stamp stays for reset to read */
    if (flag_load(f, me + 1) != 0)
        return;
    struct ag_owner o;
    ag_owner_self(&o);
    /* our own earlier stamp reads back unchanged: nothing to store (the common case, every episode) */
    if (flag_load(f, w) == o.pid && flag_load(f, w + 1) == o.start && flag_load(f, w + 2) == o.ns)
        return;
    /* I2: unknown while the words change; the pid, stored last, publishes them (release) */
    flag_put(f, w, 0);
    flag_put(f, w + 1, o.start);
    flag_put(f, w + 2, o.ns);
    flag_put(f, w, o.pid);
}

/* The stamp of slot me, or pid 0 when it was being rewritten (I2). */
static void read_stamp(const ag_flags_t *f, uint32_t me, struct ag_owner *o)
{
    uint32_t w = me + AG_SELF_OWNER;
    uint64_t pid = flag_load(f, w);
    o->start = flag_load(f, w + 1);
    o->ns = flag_load(f, w + 2);
    o->pid = flag_load(f, w) == pid ? pid : 0;
}

unsigned ag_inside_live(const ag_barrier_t *b)
{
    const ag_flags_t *f = &b->run.fl;
    if (!f->pshared)
        return ag_inside_count(b);
    unsigned k = 0;
    for (unsigned t = 0; t < b->run.n; t++) {
        uint32_t me = ag_at(b->self, t);
        /* acquire: pairs with the marker's release store in ag_episode / ag_arrive, so the stamp read
         * next is the one made before that marker, or a later one (I1) */
        if (flag_load(f, me + 1) == 0)
            continue;
        struct ag_owner o;
        read_stamp(f, me, &o);
        k += ag_owner_state(&o) != AG_OWNER_DEAD;
    }
    return k;
}

unsigned ag_inside_here(const ag_barrier_t *b)
{
    const ag_flags_t *f = &b->run.fl;
    struct ag_owner self = { 0, 0, 0 };
    int known = 0;
    unsigned k = 0;
    for (unsigned t = 0; t < b->run.n; t++) {
        uint32_t me = ag_at(b->self, t);
        if (flag_load(f, me + 1) == 0) /* acquire, as in ag_inside_live: the stamp is the marker's (I1) */
            continue;
        if (!known)
            ag_owner_self(&self), known = 1;
        struct ag_owner o;
        read_stamp(f, me, &o);
        /* an identity /proc cannot give (pid 0 here) tells nobody apart: count it, so that a handle is
         * never freed under a waiter of its own process */
        k += !self.pid || (o.pid == self.pid && o.start == self.start && o.ns == self.ns);
    }
    return k;
}
