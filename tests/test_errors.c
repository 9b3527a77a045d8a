/* test_errors.c — every bad input returns its documented code and a message that says what was wrong. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "andgate.h"
#include "check.h"
#include "internal.h"
#include "topo.h"

static int init_msg(const ag_config_t *cfg, char *msg, size_t len)
{
    ag_barrier_t *b = (ag_barrier_t *)0x1; /* must stay untouched on failure */
    int rc = ag_barrier_init(&b, cfg);
    int rc2 = ag_config_check(cfg, msg, len);
    CHECK(rc == rc2, "init %d vs check %d", rc, rc2);
    if (rc)
        CHECK(b == (ag_barrier_t *)0x1, "out written on failure");
    else
        ag_barrier_destroy(b);
    return rc;
}

static void expect_bad(const char *algo, const char *wait, const char *want)
{
    char msg[512];
    ag_config_t cfg = { .nthreads = 4, .algo = algo, .wait = wait };
    int rc = init_msg(&cfg, msg, sizeof msg);
    CHECK(rc == EINVAL, "algo=%s wait=%s: rc %d", algo, wait, rc);
    CHECK(strstr(msg, want) != NULL, "algo=%s wait=%s: message '%s' lacks '%s'", algo, wait, msg, want);
}

struct waiter {
    ag_barrier_t *b;
    int rc;
};

static void *wait_one(void *p)
{
    struct waiter *w = p;
    w->rc = ag_barrier_wait(w->b, 1);
    return NULL;
}

static void test_busy(const char *algo, const char *wait)
{
    ag_barrier_t *b;
    ag_config_t cfg = { .nthreads = 2, .algo = algo, .wait = wait };
    CHECK(ag_barrier_init(&b, &cfg) == 0, "init %s", algo);
    struct waiter w = { b, -5 };
    pthread_t th;
    pthread_create(&th, NULL, wait_one, &w);
    /* white box: wait until the participant has marked itself inside (it cannot leave before tid 0
     * arrives), then destroy must refuse */
    while (!flag_load(&b->run.fl, ag_at(b->self, 1) + 1))
        sched_yield();
    int rc = ag_barrier_destroy(b);
    CHECK(rc == EBUSY, "%s: destroy while a participant waits returned %d", algo, rc);
    if (rc != EBUSY)
        return; /* the barrier is gone; do not touch it */
    int mine = ag_barrier_wait(b, 0);
    pthread_join(th, NULL);
    CHECK((mine == AG_SERIAL) + (w.rc == AG_SERIAL) == 1 && (mine == 0 || w.rc == 0),
          "%s: wait codes %d, %d", algo, mine, w.rc);
    CHECK(ag_barrier_destroy(b) == 0, "%s: destroy after all left", algo);
}

/* NULL pointers and nthreads 0 */
static void test_nulls(void)
{
    char msg[512];
    ag_barrier_t *b;
    CHECK(ag_barrier_init(NULL, &(ag_config_t){ .nthreads = 1 }) == EINVAL, "NULL out");
    CHECK(ag_barrier_init(&b, NULL) == EINVAL, "NULL cfg");
    CHECK(ag_config_check(NULL, msg, sizeof msg) == EINVAL && strstr(msg, "NULL"), "NULL cfg msg: %s", msg);
    ag_config_t zero = { .nthreads = 0 };
    CHECK(init_msg(&zero, msg, sizeof msg) == EINVAL, "nthreads 0");
    CHECK(strstr(msg, "nthreads is 0") != NULL, "message: %s", msg);
    CHECK(ag_barrier_wait(NULL, 0) == EINVAL, "wait NULL");
    CHECK(ag_barrier_destroy(NULL) == EINVAL, "destroy NULL");
    CHECK(strcmp(ag_barrier_describe(NULL), "(null barrier)") == 0, "describe NULL");
    CHECK(ag_config_check(&zero, NULL, 0) == EINVAL, "check without a message buffer");
}

/* tid out of range */
static void test_tid(void)
{
    ag_barrier_t *b;
    ag_config_t three = { .nthreads = 3, .algo = "central", .wait = "pause" };
    CHECK(ag_barrier_init(&b, &three) == 0, "init");
    CHECK(ag_barrier_wait(b, 3) == EINVAL, "tid == nthreads");
    CHECK(ag_barrier_wait(b, 1u << 31) == EINVAL, "huge tid");
    CHECK(ag_barrier_destroy(b) == 0, "destroy unused barrier");
}

/* flags */
static void test_flags(void)
{
    char msg[512];
    ag_barrier_t *b;
    ag_config_t fl = { .nthreads = 2, .flags = 0x80 };
    CHECK(init_msg(&fl, msg, sizeof msg) == EINVAL && strstr(msg, "unknown flags"), "flags: %s", msg);
    fl.flags = AG_PSHARED;
    CHECK(ag_barrier_init(&b, &fl) == EINVAL, "AG_PSHARED barriers are made with ag_barrier_init_shm");
    CHECK(ag_config_check(&fl, msg, sizeof msg) == 0, "an AG_PSHARED configuration is valid: %s", msg);
}

/* spec strings */
static void test_specs(void)
{
    expect_bad("nosuch", "auto", "unknown algorithm 'nosuch'; expected one of: central, counting");
    expect_bad("", "auto", "empty algorithm spec");
    expect_bad("dissemination:ways=0", "auto", "bad value '0' for ways; expected an integer in 1..64");
    expect_bad("combining:arity=1", "auto", "bad value '1' for arity; expected an integer in 2..");
    expect_bad("dissemination:fanin=4", "auto", "unknown key 'fanin'; expected one of: ways, pad, line");
    expect_bad("central:line=96", "auto", "bad value '96' for line; expected one of 64|128");
    expect_bad("stour:pad=tight", "auto", "expected one of line|packed");
    expect_bad("hybrid:group=socket", "auto", "expected one of core|cache|numa or an integer in 1..");
    expect_bad("ticket:", "auto", "empty key list");
    expect_bad("tournament:wake", "auto", "'wake' is not key=value");
    expect_bad("dissemination:ways=2,ways=3", "auto", "given twice");
    expect_bad("central", "sleepy", "unknown wait policy 'sleepy'; expected one of: spin, pause");
    expect_bad("central", "hybrid:spin_ns=-5", "bad value '-5' for spin_ns");
    expect_bad("central", "backoff:max_ns=1", "expected an integer in 64..");
}

/* cpus[] must name online CPUs */
static void test_cpus(void)
{
    char msg[512];
    int cpus[2] = { 0, 100000 };
    ag_config_t withcpus = { .nthreads = 2, .algo = "central", .cpus = cpus };
    CHECK(init_msg(&withcpus, msg, sizeof msg) == EINVAL && strstr(msg, "cpus[1] = 100000"), "cpus: %s", msg);
}

/* the environment is read when the config leaves a spec NULL, through the same parser */
static void test_environment(void)
{
    char msg[512];
    ag_barrier_t *b;
    setenv("ANDGATE_ALGO", "ticket", 1);
    setenv("ANDGATE_WAIT", "yield", 1);
    ag_config_t envcfg = { .nthreads = 2 };
    CHECK(ag_barrier_init(&b, &envcfg) == 0, "env init");
    CHECK(strcmp(ag_barrier_describe(b), "ticket:line=64 wait=yield") == 0, "env describe: %s",
          ag_barrier_describe(b));
    ag_barrier_destroy(b);
    setenv("ANDGATE_ALGO", "bogus", 1);
    CHECK(init_msg(&envcfg, msg, sizeof msg) == EINVAL && strstr(msg, "unknown algorithm 'bogus'"), "env: %s",
          msg);
    unsetenv("ANDGATE_ALGO");
    unsetenv("ANDGATE_WAIT");
    setenv("ANDGATE_TOPOLOGY", "lstopo", 1);
    CHECK(init_msg(&envcfg, msg, sizeof msg) == EINVAL &&
          strstr(msg, "ANDGATE_TOPOLOGY='lstopo': expected hwloc or sysfs"), "env topology: %s", msg);
    unsetenv("ANDGATE_TOPOLOGY");
    CHECK(ag_barrier_init(&b, &envcfg) == 0, "env init after ANDGATE_TOPOLOGY is unset");
    ag_barrier_destroy(b);
    setenv("ANDGATE_MEMBARRIER", "off", 1);
    CHECK(init_msg(&envcfg, msg, sizeof msg) == EINVAL &&
          strstr(msg, "ANDGATE_MEMBARRIER='off': expected 0 or 1"), "env membarrier: %s", msg);
    setenv("ANDGATE_MEMBARRIER", "1", 1);
    CHECK(ag_barrier_init(&b, &envcfg) == 0, "env init with ANDGATE_MEMBARRIER=1");
    ag_barrier_destroy(b);
    unsetenv("ANDGATE_MEMBARRIER");
}

/* Two CPUs of this thread's affinity on different cores, as libandgate's topology sees them: 1, or 0
 * when there are none. */
static int two_cores(int out[2])
{
    int cpus[1024];
    unsigned n = ag_affinity_cpus(cpus, 1024);
    const struct ag_topo *t = ag_topo_get();
    const struct ag_cpuinfo *first = n ? ag_topo_cpu(t, cpus[0]) : NULL;
    for (unsigned i = 1; first && first->core >= 0 && i < n; i++) {
        const struct ag_cpuinfo *c = ag_topo_cpu(t, cpus[i]);
        if (c && c->core >= 0 && (c->core != first->core || c->package != first->package)) {
            out[0] = cpus[0];
            out[1] = cpus[i];
            return 1;
        }
    }
    return 0;
}

/* auto resolves to a concrete, described choice */
static void test_auto(void)
{
    ag_barrier_t *b;
    ag_config_t one = { .nthreads = 1 };
    CHECK(ag_barrier_init(&b, &one) == 0, "auto n=1");
    CHECK(strncmp(ag_barrier_describe(b), "central:", 8) == 0, "auto n=1: %s", ag_barrier_describe(b));
    CHECK(ag_barrier_wait(b, 0) == AG_SERIAL, "single participant is always serial");
    ag_barrier_destroy(b);
    ag_config_t many = { .nthreads = 4 * ag_usable_cpus() + 1, .wait = "auto" };
    CHECK(ag_barrier_init(&b, &many) == 0, "auto oversubscribed");
    CHECK(strstr(ag_barrier_describe(b), "wait=hybrid:spin_ns=0,yield_ns=20000,stall_ns=200000") != NULL,
          "oversubscribed auto yields, then blocks: %s",
          ag_barrier_describe(b));
    CHECK(strncmp(ag_barrier_describe(b), "central:", 8) == 0 && !strstr(ag_barrier_describe(b), "lead_ns"),
          "oversubscribed without cfg.cpus: central, no leader spin (nobody is known to share a CPU): %s",
          ag_barrier_describe(b));
    ag_barrier_destroy(b);
    int two[2];
    if (two_cores(two)) { /* 4 participants placed two to a CPU on two cores: a counter per CPU */
        int cpus[4] = { two[0], two[0], two[1], two[1] };
        ag_config_t pairs = { .nthreads = 4, .wait = "hybrid:spin_ns=0,yield_ns=5000,lead_ns=20000", .cpus = cpus };
        CHECK(ag_barrier_init(&b, &pairs) == 0, "auto with placed pairs");
        CHECK(strncmp(ag_barrier_describe(b), "hybrid:group=core", 17) == 0, "placed pairs, no spinning: %s",
              ag_barrier_describe(b));
        ag_barrier_destroy(b);
        if (ag_usable_cpus() < 4) { /* oversubscribed: wait=auto gives the leaders their spin */
            ag_config_t placed = { .nthreads = 4, .wait = "auto", .cpus = cpus };
            CHECK(ag_barrier_init(&b, &placed) == 0, "auto wait with placed pairs");
            CHECK(strstr(ag_barrier_describe(b), "hybrid:group=core") &&
                  strstr(ag_barrier_describe(b),
                         "wait=hybrid:spin_ns=0,yield_ns=20000,lead_ns=20000,stall_ns=200000"),
                  "placed pairs, wait=auto: %s", ag_barrier_describe(b));
        } else {
            CHECK(ag_barrier_init(&b, &pairs) == 0, "again");
        }
        ag_barrier_destroy(b);
    } else {
        printf("test_errors: no two CPUs on distinct cores here; the placed-pairs case is skipped\n");
    }
    ag_config_t fits = { .nthreads = 1, .wait = "auto" };
    CHECK(ag_barrier_init(&b, &fits) == 0, "auto within CPUs");
    CHECK(strstr(ag_barrier_describe(b), "wait=hybrid:spin_ns=20000,yield_ns=0") != NULL,
          "auto within the CPUs spins, then blocks: %s", ag_barrier_describe(b));
    ag_barrier_destroy(b);
}

/* ag_strerror: every code has a message; distinct codes, distinct messages */
static void test_strerror(void)
{
    const int codes[] = { 0, AG_SERIAL, EINVAL, ENOMEM, EBUSY, ETIMEDOUT, ENOTSUP, AG_EBROKEN };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CHECK(ag_strerror(codes[i]) && *ag_strerror(codes[i]), "strerror(%d)", codes[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(ag_strerror(codes[i]), ag_strerror(codes[j])) != 0, "%d and %d share a message",
                  codes[i], codes[j]);
    }
    CHECK(strstr(ag_strerror(12345), "unknown") != NULL, "unknown code");
}

/* destroy while a participant waits: EBUSY, for a spinning and a blocking policy */
static void test_busy_all(void)
{
    test_busy("central", "pause");
    test_busy("dissemination", "block");
    test_busy("auto", "auto");
}

int main(void)
{
    test_nulls();
    test_tid();
    test_flags();
    test_specs();
    test_cpus();
    test_environment();
    test_auto();
    test_strerror();
    test_busy_all();
    return check_done();
}
