/* test_shm_dead.c — robust process-shared barriers (owner.c): a participant process killed inside a
 * wait, or between arrive and depart, no longer keeps ag_barrier_reset at EBUSY.
 *
 * For every algorithm, with 3 and 4 forked processes sharing one MAP_SHARED mapping: a few episodes;
 * then one participant (a different tid from case to case) enters a wait its partners never join, and
 * while it is inside, alive, reset is EBUSY; it is SIGKILLed; one survivor enters (a dead and a live
 * participant inside: still EBUSY); the others join with a 200 ms deadline, so every survivor returns
 * ETIMEDOUT or AG_EBROKEN; reset then succeeds (the dead process reaped, or still a zombie), leaves no
 * marker and no sleeper count behind, and a replacement process with the dead one's tid runs more
 * episodes with the survivors, checked by the arrival counter and one AG_SERIAL per episode. Then the
 * liveness rules themselves: this process, a reused pid, another namespace, a live, a zombie and a
 * reaped child, a zombie leader whose other thread still runs, and a forked child's own identity.
 * Behaviour only: deadlines give liveness, no duration is asserted. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "check.h"
#include "internal.h"
#include "owner.h"
#include "proc_state.h"
#include "spec.h"

#define EPISODES_BEFORE 50
#define EPISODES_AFTER 300
#define MAXPROC 4
#define CTL_BYTES 4096

/* The mapping: this control block, then the barrier segment. */
struct ctl {
    _Atomic int phase;           /* 1: the first survivor enters, 2: the others, 3: run with the replacement */
    _Atomic unsigned done_before, returned;
    _Atomic uint64_t arrived;
    _Atomic unsigned errors, timeouts, broken;
    _Atomic unsigned serial[EPISODES_AFTER];
};

enum role { SURVIVOR, VICTIM, REPLACEMENT };

/* Polls (1 ms apart, at most a minute: a hang is a failure) until *v reaches want. */
static int await_at_least(_Atomic unsigned *v, unsigned want)
{
    for (int i = 0; i < 60000 && atomic_load(v) < want; i++)
        usleep(1000);
    return atomic_load(v) >= want;
}

static int await_phase(struct ctl *c, int want)
{
    for (int i = 0; i < 60000 && atomic_load(&c->phase) < want; i++)
        usleep(1000);
    return atomic_load(&c->phase) >= want;
}

/* One episode, whole or split; a deadline in ms. */
static int episode(ag_barrier_t *b, unsigned tid, int split, long ms)
{
    struct timespec dl = in_ms(ms);
    if (!split)
        return ag_barrier_wait_until(b, tid, &dl);
    ag_token_t tok;
    int rc = ag_barrier_arrive(b, tid, &tok);
    return rc ? rc : ag_barrier_depart(b, tid, tok, &dl);
}

/* Episodes with the counter check of test_shm.c: between two episodes every participant has arrived
 * at the first and none at the one after the second. 0 or a failure status. */
static int run_episodes(ag_barrier_t *b, struct ctl *c, unsigned tid, unsigned n, int split, unsigned episodes,
                        int count_serial)
{
    for (unsigned k = 0; k < episodes; k++) {
        atomic_fetch_add_explicit(&c->arrived, 1, memory_order_relaxed);
        int rc = episode(b, tid, split, 60000);
        if (rc == AG_SERIAL && count_serial)
            atomic_fetch_add_explicit(&c->serial[k], 1, memory_order_relaxed);
        else if (rc != 0 && rc != AG_SERIAL) {
            atomic_fetch_add(&c->errors, 1);
            return 4;
        }
        uint64_t seen = atomic_load_explicit(&c->arrived, memory_order_relaxed);
        if (seen < (uint64_t)(k + 1) * n || seen >= (uint64_t)(k + 2) * n) {
            atomic_fetch_add(&c->errors, 1);
            return 5;
        }
    }
    return 0;
}

/* The survivors' part once the victim is dead: wait until one call fails (an episode may still
 * complete first where the victim's arrival had counted). first: the survivor that enters alone. */
static int until_broken(ag_barrier_t *b, struct ctl *c, unsigned tid, int split, int first)
{
    for (int i = 0; i < 4; i++) {
        int rc = episode(b, tid, split, first && i == 0 ? 60000 : 200);
        if (rc == ETIMEDOUT || rc == AG_EBROKEN) {
            atomic_fetch_add(rc == ETIMEDOUT ? &c->timeouts : &c->broken, 1);
            return 0;
        }
        if (rc != 0 && rc != AG_SERIAL) {
            atomic_fetch_add(&c->errors, 1);
            return 6;
        }
    }
    return 7; /* a dead participant never let the survivors fail */
}

static int participant(void *seg, size_t len, struct ctl *c, unsigned tid, unsigned n, int split, enum role role,
                       int first)
{
    ag_barrier_t *b;
    if (ag_barrier_attach_shm(&b, seg, len) != 0)
        return 12;
    int st = 0;
    if (role == REPLACEMENT) {
        st = run_episodes(b, c, tid, n, split, EPISODES_AFTER, 1);
        ag_barrier_destroy(b);
        return st;
    }
    if ((st = run_episodes(b, c, tid, n, split, EPISODES_BEFORE, 0)))
        return st;
    atomic_fetch_add(&c->done_before, 1);
    if (role == VICTIM) {
        /* inside for good: the partners are held back until this process is dead */
        if (split) {
            ag_token_t tok;
            if (ag_barrier_arrive(b, tid, &tok) != 0)
                return 8;
            for (;;)
                pause();
        }
        ag_barrier_wait(b, tid);
        return 9; /* never: nobody joins */
    }
    if (!await_phase(c, first ? 1 : 2))
        return 13;
    if ((st = until_broken(b, c, tid, split, first)))
        return st;
    atomic_fetch_add(&c->returned, 1);
    if (!await_phase(c, 3))
        return 14;
    st = run_episodes(b, c, tid, n, split, EPISODES_AFTER, 1);
    ag_barrier_destroy(b);
    return st;
}

static int await_inside(ag_barrier_t *b, unsigned want)
{
    for (int i = 0; i < 60000 && ag_inside_count(b) != want; i++)
        usleep(1000);
    return ag_inside_count(b) == want;
}

static int exit_status(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void dead_case(const char *algo, const char *wait, unsigned n, unsigned victim, int split, int zombie)
{
    char what[160];
    snprintf(what, sizeof what, "%s wait=%s n=%u victim=%u%s%s", algo, wait, n, victim, split ? " split" : "",
             zombie ? " (reset before reaping)" : "");
    ag_config_t cfg = { .nthreads = n, .algo = algo, .wait = wait, .flags = AG_PSHARED };
    size_t len = ag_barrier_shm_size(&cfg), total = CTL_BYTES + len;
    unsigned char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!len || m == MAP_FAILED) {
        CHECK(0, "%s: size or mapping", what);
        return;
    }
    struct ctl *c = (struct ctl *)(void *)m;
    void *seg = m + CTL_BYTES;
    ag_barrier_t *b = NULL;
    if (ag_barrier_init_shm(seg, len, &cfg) != 0 || ag_barrier_attach_shm(&b, seg, len) != 0) {
        CHECK(0, "%s: init or attach", what);
        munmap(m, total);
        return;
    }
    pid_t pid[MAXPROC];
    unsigned first = victim == 0 ? 1 : 0; /* the survivor that enters alone */
    for (unsigned t = 0; t < n; t++)
        if ((pid[t] = fork()) == 0)
            _exit(participant(seg, len, c, t, n, split, t == victim ? VICTIM : SURVIVOR, t == first));

    int ok = await_at_least(&c->done_before, n) && await_inside(b, 1);
    CHECK(ok, "%s: the victim never got inside (%u done, %u inside)", what, (unsigned)c->done_before,
          ag_inside_count(b));
    CHECK(ag_barrier_reset(b) == EBUSY, "%s: reset while a live participant is inside must be EBUSY", what);
    kill(pid[victim], SIGKILL);
    siginfo_t si;
    if (zombie) /* dead, not reaped: /proc still shows it, as a zombie */
        waitid(P_PID, (id_t)pid[victim], &si, WEXITED | WNOWAIT);
    else
        CHECK(exit_status(pid[victim]) == 100 + SIGKILL, "%s: the victim was not killed", what);

    atomic_store(&c->phase, 1);
    CHECK(await_inside(b, 2), "%s: the first survivor never got inside (%u inside)", what, ag_inside_count(b));
    CHECK(ag_barrier_reset(b) == EBUSY, "%s: reset with a dead and a live participant inside must be EBUSY", what);
    atomic_store(&c->phase, 2);
    ok = await_at_least(&c->returned, n - 1);
    CHECK(ok, "%s: %u of %u survivors returned", what, (unsigned)c->returned, n - 1);
    CHECK(c->timeouts >= 1 && c->timeouts + c->broken == n - 1 && c->errors == 0,
          "%s: %u timed out, %u saw AG_EBROKEN, %u errors", what, (unsigned)c->timeouts, (unsigned)c->broken,
          (unsigned)c->errors);
    CHECK(ag_barrier_is_broken(b), "%s: not broken after the timeouts", what);
    int rc = ag_barrier_reset(b);
    CHECK(rc == 0, "%s: reset after the survivors returned: %d (%s)", what, rc, ag_strerror(rc));
    CHECK(!ag_barrier_is_broken(b) && ag_inside_count(b) == 0, "%s: after reset: broken %d, %u inside", what,
          ag_barrier_is_broken(b), ag_inside_count(b));
    unsigned left = 0;
    for (uint32_t i = 0; b->sleepers && i < b->run.fl.nslots; i++)
        left += atomic_load(&b->sleepers[i]) != 0;
    CHECK(left == 0, "%s: %u sleeper counts left after reset", what, left);
    if (zombie)
        CHECK(exit_status(pid[victim]) == 100 + SIGKILL, "%s: the victim was not killed", what);

    /* the replacement takes the dead one's tid; everybody starts counting again */
    atomic_store(&c->arrived, 0);
    for (unsigned k = 0; k < EPISODES_AFTER; k++)
        atomic_store(&c->serial[k], 0);
    if ((pid[victim] = fork()) == 0)
        _exit(participant(seg, len, c, victim, n, split, REPLACEMENT, 0));
    atomic_store(&c->phase, 3);
    for (unsigned t = 0; t < n; t++) {
        int st = exit_status(pid[t]);
        CHECK(st == 0, "%s: %s %u exited with %d", what, t == victim ? "replacement" : "survivor", t, st);
    }
    unsigned bad = 0;
    for (unsigned k = 0; k < EPISODES_AFTER; k++)
        bad += c->serial[k] != 1;
    CHECK(c->errors == 0 && bad == 0, "%s: after the replacement, %u counter errors, %u episodes without exactly "
          "one AG_SERIAL", what, (unsigned)c->errors, bad);
    CHECK(ag_barrier_reset(b) == 0, "%s: reset when idle", what);
    ag_barrier_destroy(b);
    munmap(m, total);
}

/* ---- the liveness rules (owner.c) ---- */

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* A process whose main thread has exited while another thread runs (main calls pthread_exit). */
static pid_t fork_zombie_leader(void)
{
    pid_t p = fork();
    if (p == 0) {
        pthread_t th;
        if (pthread_create(&th, NULL, sleeper, NULL) != 0)
            _exit(1);
        pthread_exit(NULL);
    }
    return p;
}

static void liveness_case(void)
{
    struct ag_owner me, o;
    ag_owner_self(&me);
    if (!me.pid) {
        printf("note: /proc does not show this process; only the unknown-owner rules are checked\n");
        CHECK(ag_owner_state(&me) == AG_OWNER_UNKNOWN, "no /proc: unknown");
        return;
    }
    CHECK(me.pid == (uint64_t)getpid(), "self: pid %llu, getpid %ld", (unsigned long long)me.pid, (long)getpid());
    CHECK(ag_owner_state(&me) == AG_OWNER_ALIVE, "self is alive");
    o = me;
    o.start++;
    CHECK(ag_owner_state(&o) == AG_OWNER_DEAD, "our pid with another start time: its owner is gone");
    o = me;
    o.ns ^= 1;
    CHECK(ag_owner_state(&o) == AG_OWNER_UNKNOWN, "another namespace: unknown");
    o = me;
    o.pid = 0;
    CHECK(ag_owner_state(&o) == AG_OWNER_UNKNOWN, "pid 0: unknown");

    /* a forked child reads its own identity, although the parent's is cached */
    struct ag_owner *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t p = fork();
    if (p == 0) {
        ag_owner_self(shared);
        _exit(0);
    }
    exit_status(p);
    CHECK(shared->pid == (uint64_t)p && shared->ns == me.ns, "a forked child's identity: pid %llu, want %ld",
          (unsigned long long)shared->pid, (long)p);
    munmap(shared, sizeof *shared);

    /* a live child, then a zombie, then reaped */
    if ((p = fork()) == 0)
        sleeper(NULL);
    ag_owner_of(p, &o);
    CHECK(o.pid == (uint64_t)p && ag_owner_state(&o) == AG_OWNER_ALIVE, "a live child is alive");
    kill(p, SIGKILL);
    siginfo_t si;
    waitid(P_PID, (id_t)p, &si, WEXITED | WNOWAIT);
    CHECK(ag_owner_state(&o) == AG_OWNER_DEAD, "a zombie is dead");
    exit_status(p);
    CHECK(ag_owner_state(&o) == AG_OWNER_DEAD, "a reaped child is dead");

    /* the leader has exited, another thread runs: alive */
    p = fork_zombie_leader();
    ag_owner_of(p, &o);
    for (int i = 0; i < 60000 && proc_state(p, 0) != 'Z'; i++)
        usleep(1000);
    CHECK(proc_state(p, 0) == 'Z', "the leader did not exit (state %c)", proc_state(p, 0));
    CHECK(ag_owner_state(&o) == AG_OWNER_ALIVE, "a zombie leader with a live thread is alive");
    kill(p, SIGKILL);
    waitid(P_PID, (id_t)p, &si, WEXITED | WNOWAIT);
    CHECK(ag_owner_state(&o) == AG_OWNER_DEAD, "the killed thread group is dead");
    exit_status(p);
}

struct waiter {
    ag_barrier_t *b;
    int rc;
};

static void *wait_as_tid0(void *arg)
{
    struct waiter *w = arg;
    struct timespec dl = in_ms(60000);
    w->rc = ag_barrier_wait_until(w->b, 0, &dl);
    return NULL;
}

static int completed(int a, int b)
{
    return (a == 0 || a == AG_SERIAL) && (b == 0 || b == AG_SERIAL) && (a == AG_SERIAL) + (b == AG_SERIAL) == 1;
}

/* Destroying an attached handle detaches this process and frees the handle: EBUSY while a participant
 * of this process is inside through it (a wait, or between arrive and depart), as for a private
 * barrier; a participant of another process inside does not keep this process attached. */
static void detach_case(void)
{
    ag_config_t cfg = { .nthreads = 2, .algo = "central", .wait = "block", .flags = AG_PSHARED };
    size_t len = ag_barrier_shm_size(&cfg);
    void *seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ag_barrier_t *b, *mate, *other;
    if (!len || seg == MAP_FAILED || ag_barrier_init_shm(seg, len, &cfg) || ag_barrier_attach_shm(&b, seg, len) ||
        ag_barrier_attach_shm(&mate, seg, len)) {
        CHECK(0, "detach: init or attach");
        return;
    }
    struct waiter w = { b, -1 };
    pthread_t th;
    pthread_create(&th, NULL, wait_as_tid0, &w);
    CHECK(await_inside(b, 1), "detach: the waiter never got inside");
    int rc = ag_barrier_destroy(b);
    CHECK(rc == EBUSY, "detach while this process's participant waits through the handle: %d, want EBUSY", rc);
    int mine = ag_barrier_wait(mate, 1);
    pthread_join(th, NULL);
    CHECK(completed(mine, w.rc), "detach: the episode after the refused detach: %d %d", mine, w.rc);
    if (rc != EBUSY)
        return; /* b was freed under its waiter */
    ag_token_t t0, t1;
    CHECK(ag_barrier_arrive(b, 0, &t0) == 0 && ag_barrier_destroy(b) == EBUSY, "detach between arrive and depart");
    CHECK(ag_barrier_arrive(mate, 1, &t1) == 0, "detach: the mate's arrive");
    rc = ag_barrier_depart(b, 0, t0, NULL);
    CHECK(completed(rc, ag_barrier_depart(mate, 1, t1, NULL)), "detach: the split episode");
    CHECK(ag_barrier_destroy(b) == 0, "detach once no participant of this process is inside");
    pid_t p = fork();
    if (p == 0) { /* another process waits as tid 0 */
        struct waiter cw = { NULL, -1 };
        if (ag_barrier_attach_shm(&cw.b, seg, len))
            _exit(1);
        wait_as_tid0(&cw);
        _exit(cw.rc == 0 || cw.rc == AG_SERIAL ? 0 : 2);
    }
    CHECK(await_inside(mate, 1), "detach: the other process never got inside");
    CHECK(ag_barrier_attach_shm(&other, seg, len) == 0 && ag_barrier_destroy(other) == 0,
          "detach while only another process's participant is inside");
    rc = ag_barrier_wait(mate, 1);
    CHECK(exit_status(p) == 0 && (rc == 0 || rc == AG_SERIAL), "detach: the other process's episode (%d)", rc);
    CHECK(ag_barrier_destroy(mate) == 0, "detach the mate");
    munmap(seg, len);
}

int main(void)
{
    static const char *const waits[] = { "block", "hybrid:spin_ns=2000,yield_ns=2000", "auto" };
    liveness_case();
    struct ag_owner me;
    ag_owner_self(&me);
    if (!me.pid) { /* reset cannot tell a dead participant here: it stays EBUSY, by design */
        printf("note: no usable /proc: the killed-participant cases are skipped\n");
        return check_done();
    }
    detach_case();
    unsigned k = 0;
    for (unsigned a = 0; a < ag_algo_table.n; a++)
        for (unsigned n = 3; n <= 4; n++)
            for (int split = 0; split < 2; split++, k++)
                dead_case(ag_algo_table.get(a)->name, waits[k % 3], n, (k / 2) % n, split, (int)(k % 4 == 1));
    return check_done();
}
