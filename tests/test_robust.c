/* test_robust.c — timeouts, the broken state, cancellation and reset, for every algorithm and wait
 * policy. Behaviour only: "promptly" is checked as "returns", never against a time limit. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "andgate.h"
#include "check.h"
#include "internal.h"
#include "spec.h"

static const char *const waits[] = { "spin", "pause", "backoff:max_ns=2000", "yield", "block",
                                     "hybrid:spin_ns=5000,yield_ns=5000", "auto" };
#define NWAITS (sizeof waits / sizeof waits[0])

struct waiter {
    ag_barrier_t *b;
    unsigned tid;
    int timed; /* wait_until with a 30 ms deadline, else plain wait */
    int rc;
};

static void *waiter(void *p)
{
    struct waiter *w = p;
    struct timespec dl = in_ms(30);
    w->rc = w->timed ? ag_barrier_wait_until(w->b, w->tid, &dl) : ag_barrier_wait(w->b, w->tid);
    return NULL;
}

/* After a reset the barrier must work again: 3 participants, 1000 episodes, one AG_SERIAL each. */
struct after {
    ag_barrier_t *b;
    unsigned tid, episodes;
    _Atomic unsigned *serial, *errors;
};

static void *after_reset(void *p)
{
    struct after *a = p;
    for (unsigned k = 0; k < a->episodes; k++) {
        int rc = ag_barrier_wait(a->b, a->tid);
        if (rc == AG_SERIAL)
            atomic_fetch_add(&a->serial[k], 1);
        else if (rc)
            atomic_fetch_add(a->errors, 1);
    }
    return NULL;
}

static void works_after_reset(ag_barrier_t *b, const char *what, unsigned episodes)
{
    _Atomic unsigned *serial = calloc(episodes, sizeof *serial), errors = 0;
    pthread_t th[3];
    struct after a[3];
    for (unsigned t = 0; t < 3; t++) {
        a[t] = (struct after){ b, t, episodes, serial, &errors };
        pthread_create(&th[t], NULL, after_reset, &a[t]);
    }
    for (unsigned t = 0; t < 3; t++)
        pthread_join(th[t], NULL);
    unsigned bad = 0;
    for (unsigned k = 0; k < episodes; k++)
        bad += serial[k] != 1;
    CHECK(errors == 0 && bad == 0, "%s: after reset, %u errors, %u episodes without exactly one AG_SERIAL", what,
          (unsigned)errors, bad);
    free(serial);
}

/* Pure spinning with 3 participants on fewer CPUs costs a timeslice per episode: those policies get
 * 100 episodes after a reset there, every other policy 1000. */
static unsigned after_episodes(const char *wait)
{
    int spins = !strcmp(wait, "spin") || !strcmp(wait, "pause") || !strncmp(wait, "backoff", 7);
    return spins && ag_usable_cpus() < 3 ? 100 : 1000;
}

/* 3 participants, one never arrives: the two others time out or see the barrier broken. */
static void timeout_case(const char *algo, const char *wait)
{
    char what[160];
    snprintf(what, sizeof what, "%s wait=%s", algo, wait);
    ag_barrier_t *b;
    ag_config_t cfg = { .nthreads = 3, .algo = algo, .wait = wait };
    if (ag_barrier_init(&b, &cfg) != 0) {
        CHECK(0, "%s: init", what);
        return;
    }
    struct waiter w[2] = { { b, 0, 1, -99 }, { b, 2, 1, -99 } };
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, waiter, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    int timed = (w[0].rc == ETIMEDOUT) + (w[1].rc == ETIMEDOUT);
    int broken = (w[0].rc == AG_EBROKEN) + (w[1].rc == AG_EBROKEN);
    CHECK(timed >= 1 && timed + broken == 2, "%s: waiters returned %d and %d", what, w[0].rc, w[1].rc);
    CHECK(ag_barrier_is_broken(b), "%s: not broken after a timeout", what);
    CHECK(ag_barrier_wait(b, 1) == AG_EBROKEN, "%s: a late arrival must see AG_EBROKEN", what);
    CHECK(ag_barrier_reset(b) == 0, "%s: reset", what);
    CHECK(!ag_barrier_is_broken(b), "%s: still broken after reset", what);
    works_after_reset(b, what, after_episodes(wait));
    CHECK(ag_barrier_destroy(b) == 0, "%s: destroy", what);
}

/* 3 participants, 2 waiting without a deadline; a thread that is no participant cancels. */
static void cancel_case(const char *algo, const char *wait)
{
    char what[160];
    snprintf(what, sizeof what, "%s wait=%s (cancel)", algo, wait);
    ag_barrier_t *b;
    ag_config_t cfg = { .nthreads = 3, .algo = algo, .wait = wait };
    if (ag_barrier_init(&b, &cfg) != 0) {
        CHECK(0, "%s: init", what);
        return;
    }
    struct waiter w[2] = { { b, 1, 0, -99 }, { b, 2, 0, -99 } };
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, waiter, &w[i]);
    /* wait until both are inside (however loaded the machine), then give blocking policies time to fall
     * asleep (not needed for the checks: being inside is what makes reset EBUSY) */
    for (int spins = 0; ag_inside_count(b) < 2 && spins < 600000; spins++)
        usleep(100);
    CHECK(ag_inside_count(b) == 2, "%s: the waiters never got inside", what);
    usleep(20000);
    CHECK(ag_barrier_reset(b) == EBUSY, "%s: reset while participants wait must be EBUSY", what);
    CHECK(ag_barrier_cancel(b) == 0, "%s: cancel", what);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK(w[0].rc == AG_EBROKEN && w[1].rc == AG_EBROKEN, "%s: waiters returned %d and %d", what, w[0].rc,
          w[1].rc);
    CHECK(ag_barrier_reset(b) == 0, "%s: reset", what);
    works_after_reset(b, what, after_episodes(wait) / 10);
    ag_barrier_destroy(b);
}

int main(void)
{
    for (unsigned a = 0; a < ag_algo_table.n; a++)
        for (unsigned w = 0; w < NWAITS; w++) {
            timeout_case(ag_algo_table.get(a)->name, waits[w]);
            cancel_case(ag_algo_table.get(a)->name, waits[w]);
        }

    /* edge cases */
    ag_barrier_t *b;
    ag_config_t two = { .nthreads = 2, .algo = "dissemination", .wait = "pause" };
    CHECK(ag_barrier_init(&b, &two) == 0, "init");
    struct timespec bad = { 0, 1000000000L }, past = { 0, 0 };
    CHECK(ag_barrier_wait_until(b, 0, &bad) == EINVAL, "malformed timespec");
    CHECK(ag_barrier_wait_until(b, 2, NULL) == EINVAL, "tid out of range");
    CHECK(!ag_barrier_is_broken(b), "EINVAL does not break the barrier");
    CHECK(ag_barrier_wait_until(b, 0, &past) == ETIMEDOUT, "a deadline in the past, partner absent");
    CHECK(ag_barrier_wait_until(b, 1, NULL) == AG_EBROKEN, "then broken");
    CHECK(ag_barrier_reset(b) == 0 && ag_barrier_reset(b) == 0, "reset twice");
    ag_barrier_destroy(b);
    ag_config_t one = { .nthreads = 1 };
    CHECK(ag_barrier_init(&b, &one) == 0, "init n=1");
    CHECK(ag_barrier_wait_until(b, 0, &past) == AG_SERIAL, "one participant never waits, so never times out");
    CHECK(ag_barrier_cancel(b) == 0 && ag_barrier_wait(b, 0) == AG_EBROKEN, "cancel n=1");
    CHECK(ag_barrier_reset(b) == 0 && ag_barrier_wait(b, 0) == AG_SERIAL, "reset n=1");
    ag_barrier_destroy(b);
    CHECK(ag_barrier_cancel(NULL) == EINVAL && ag_barrier_reset(NULL) == EINVAL && !ag_barrier_is_broken(NULL),
          "NULL barrier");
    return check_done();
}
