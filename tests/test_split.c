/* test_split.c — split-phase barriers: the work between arrive and depart overlaps the barrier where
 * the algorithm completes its arrival in arrive (checked by ordering, nothing is timed), and misuse is
 * refused. The semantics under random work are test_semantics --split. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

#include "andgate.h"
#include "check.h"
#include "internal.h"

struct pair {
    ag_barrier_t *b;
    sem_t a_arrived, b_done;
    int rc_a, rc_b;
    int native;
};

/* A arrives, then "works" until B has departed: B's depart can only return if A's arrival was
 * complete when arrive returned. */
static void *party_a(void *p)
{
    struct pair *x = p;
    ag_token_t tok;
    x->rc_a = ag_barrier_arrive(x->b, 0, &tok);
    sem_post(&x->a_arrived);
    sem_wait(&x->b_done); /* the work between arrive and depart */
    if (x->rc_a == 0) {
        struct timespec dl = in_ms(5000);
        x->rc_a = ag_barrier_depart(x->b, 0, tok, &dl);
    }
    return NULL;
}

static void overlap_case(const struct ag_algo *a, const char *wait)
{
    struct pair x = { .native = a->arrive != NULL };
    ag_config_t cfg = { .nthreads = 2, .algo = a->k.name, .wait = wait };
    CHECK(ag_barrier_init(&x.b, &cfg) == 0, "%s init", a->k.name);
    sem_init(&x.a_arrived, 0, 0);
    sem_init(&x.b_done, 0, 0);
    pthread_t th;
    pthread_create(&th, NULL, party_a, &x);
    sem_wait(&x.a_arrived);
    ag_token_t tok;
    x.rc_b = ag_barrier_arrive(x.b, 1, &tok);
    struct timespec dl = in_ms(x.native ? 5000 : 50);
    if (x.rc_b == 0)
        x.rc_b = ag_barrier_depart(x.b, 1, tok, &dl);
    sem_post(&x.b_done);
    pthread_join(th, NULL);
    if (x.native) {
        /* B completed while A was still working between its arrive and its depart */
        CHECK((x.rc_b == 0 || x.rc_b == AG_SERIAL) && (x.rc_a == 0 || x.rc_a == AG_SERIAL) &&
                  (x.rc_a == AG_SERIAL) + (x.rc_b == AG_SERIAL) == 1,
              "%s wait=%s: native split phase, departs returned A %d, B %d", a->k.name, wait, x.rc_a, x.rc_b);
    } else {
        /* the arrival happens in depart: B cannot complete before A departs, so it times out */
        CHECK(x.rc_b == ETIMEDOUT && x.rc_a == AG_EBROKEN, "%s wait=%s: depart-side split phase, A %d, B %d",
              a->k.name, wait, x.rc_a, x.rc_b);
        CHECK(ag_barrier_reset(x.b) == 0, "reset");
    }
    CHECK(ag_barrier_destroy(x.b) == 0, "%s destroy", a->k.name);
    sem_destroy(&x.a_arrived);
    sem_destroy(&x.b_done);
}

int main(void)
{
    for (unsigned i = 0; i < ag_nalgos; i++) {
        overlap_case(ag_algos[i], "auto");
        overlap_case(ag_algos[i], "block");
    }
    /* the algorithms the API promises a native split phase */
    const char *native[] = { "central", "counting", "ticket", "combining", "dtour" };
    for (unsigned i = 0; i < sizeof native / sizeof native[0]; i++)
        CHECK(ag_algo_find(native[i], strlen(native[i]))->arrive != NULL, "%s should split natively", native[i]);

    /* misuse */
    ag_barrier_t *b;
    ag_config_t cfg = { .nthreads = 2, .algo = "central", .wait = "pause" };
    CHECK(ag_barrier_init(&b, &cfg) == 0, "init");
    ag_token_t tok;
    CHECK(ag_barrier_depart(b, 0, 0, NULL) == EINVAL, "depart without arrive");
    CHECK(ag_barrier_arrive(b, 0, NULL) == EINVAL, "NULL token");
    CHECK(ag_barrier_arrive(b, 2, &tok) == EINVAL, "tid out of range");
    CHECK(ag_barrier_arrive(b, 0, &tok) == 0, "arrive");
    CHECK(ag_barrier_arrive(b, 0, &tok) == EINVAL, "arrive twice");
    CHECK(ag_barrier_wait(b, 0) == EINVAL, "a plain wait between arrive and depart");
    CHECK(ag_barrier_destroy(b) == EBUSY, "destroy while arrived");
    CHECK(ag_barrier_reset(b) == EBUSY, "reset while arrived");
    struct timespec bad = { 0, -1 };
    CHECK(ag_barrier_depart(b, 0, tok, &bad) == EINVAL, "malformed deadline");
    ag_token_t tok1;
    CHECK(ag_barrier_arrive(b, 1, &tok1) == 0, "second arrive");
    int r0 = ag_barrier_depart(b, 0, tok, NULL), r1 = ag_barrier_depart(b, 1, tok1, NULL);
    CHECK((r0 == AG_SERIAL) + (r1 == AG_SERIAL) == 1 && (r0 == 0 || r1 == 0), "departs %d %d", r0, r1);
    CHECK(ag_barrier_cancel(b) == 0 && ag_barrier_arrive(b, 0, &tok) == AG_EBROKEN, "arrive on a broken barrier");
    CHECK(ag_barrier_reset(b) == 0 && ag_barrier_destroy(b) == 0, "reset, destroy");

    /* the same misuse with one participant, which completes on arrival without waiting */
    ag_config_t one = { .nthreads = 1 };
    CHECK(ag_barrier_init(&b, &one) == 0, "init, one participant");
    CHECK(ag_barrier_arrive(b, 0, &tok) == 0, "one participant: arrive");
    CHECK(ag_barrier_wait(b, 0) == EINVAL, "one participant: a plain wait between arrive and depart");
    CHECK(ag_barrier_wait_until(b, 0, NULL) == EINVAL, "one participant: wait_until between arrive and depart");
    CHECK(ag_barrier_destroy(b) == EBUSY, "one participant: destroy while arrived");
    CHECK(ag_barrier_depart(b, 0, tok, NULL) == AG_SERIAL, "one participant: depart");
    CHECK(ag_barrier_wait(b, 0) == AG_SERIAL && ag_barrier_destroy(b) == 0, "one participant: wait, destroy");
    return check_done();
}
