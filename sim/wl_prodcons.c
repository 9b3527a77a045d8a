/* wl_prodcons.c — `--workload prodcons`: 004 §VIII-E's synthetic benchmark, "one producer many consumers
 * ... a few calls to the three synchronization primitives (mutex, barrier, and condition) using six
 * threads", whose average time per call is Table XI. 004 gives neither the item count nor the code; this
 * is the model's (docs/sim.md):
 *
 *   participant 0 produces, the others consume; items in rounds of one item per consumer;
 *   a round: the producer computes each item (--work-ns), takes the mutex, puts the round's items in
 *   the queue, broadcasts "not empty" and unlocks; each consumer takes the mutex, waits on the
 *   condition while the queue is empty, takes one item, unlocks and computes it (--work-ns); then all
 *   meet at the barrier (each consumer takes exactly one item per round: it is in the barrier after it).
 *   Inside a critical section: --cs-ns of compute and an atomic on the queue's line (the queue's count).
 *
 * Checked at the end: every item produced was consumed exactly once, and the queue is empty. */
#define _GNU_SOURCE
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>

struct pc {
    unsigned rounds, per_round, head, tail; /* the queue: items [head, tail) of ring */
    unsigned *ring, *taken;                  /* ring [per_round]; taken [items]: times consumed */
};

static struct pc *pc(struct sim *s) { return s->wl->state; }

static int pc_setup(struct sim *s, char *err, size_t len)
{
    if (s->n < 2)
        return snprintf(err, len, "--workload prodcons: one producer and at least one consumer (--threads 2 or more)"), -1;
    struct pc *q = calloc(1, sizeof *q);
    s->wl->state = q;
    if (!q)
        return snprintf(err, len, "out of memory"), -1;
    q->per_round = s->n - 1;
    unsigned items = s->o->items ? s->o->items : 1;
    q->rounds = (items + q->per_round - 1) / q->per_round;
    q->ring = calloc(q->per_round, sizeof *q->ring);
    q->taken = calloc((size_t)q->rounds * q->per_round, sizeof *q->taken);
    if (!q->ring || !q->taken || wl_iterations(s, q->rounds))
        return snprintf(err, len, "out of memory for %u rounds", q->rounds), -1;
    return 0;
}

static void pc_teardown(struct sim *s)
{
    struct pc *q = pc(s);
    if (q)
        free(q->ring), free(q->taken), free(q);
    s->wl->state = NULL;
}

static void produce(struct sim *s, unsigned round)
{
    struct pc *q = pc(s);
    for (unsigned i = 0; i < q->per_round; i++)
        sim_compute(s, s->o->work_ns);
    wl_lock(s, 0);
    for (unsigned i = 0; i < q->per_round; i++) {
        q->ring[q->tail++ % q->per_round] = round * q->per_round + i;
        sim_fetch_add(&s->run.fl, sim_wl_slot(s, 0), 1);
    }
    sim_compute(s, s->o->cs_ns);
    s->res->wl.produced += q->per_round;
    wl_broadcast(s, 0, 0);
    wl_unlock(s, 0);
}

static void consume(struct sim *s)
{
    struct pc *q = pc(s);
    wl_lock(s, 0);
    while (q->head == q->tail) /* a predicate loop: a wake-up is no promise */
        wl_cond_wait(s, 0, 0);
    unsigned item = q->ring[q->head++ % q->per_round];
    sim_fetch_add(&s->run.fl, sim_wl_slot(s, 0), (uint64_t)-1);
    sim_compute(s, s->o->cs_ns);
    q->taken[item]++;
    s->res->wl.consumed++;
    wl_unlock(s, 0);
    sim_compute(s, s->o->work_ns);
}

static void pc_body(struct sim *s, unsigned tid)
{
    for (unsigned r = 0; r < pc(s)->rounds && s->res->ok; r++) {
        if (tid == 0)
            produce(s, r);
        else
            consume(s);
        wl_barrier(s);
        wl_iteration_end(s, r);
    }
}

static void pc_check(struct sim *s)
{
    struct pc *q = pc(s);
    uint64_t all = (uint64_t)q->rounds * q->per_round, once = 0;
    for (uint64_t i = 0; i < all; i++)
        once += q->taken[i] == 1;
    s->res->wl.checksum_ok = once == all && q->head == q->tail && s->slots[sim_wl_slot(s, 0)] == 0;
    if (s->res->wl.produced != all || s->res->wl.consumed != all || !s->res->wl.checksum_ok)
        sim_fail(s, "prodcons: an item was lost, duplicated or left in the queue");
}

const struct sim_workload sim_wl_prodcons = {
    .name = "prodcons",
    .nmutex = 1,
    .ncond = 1,
    .nslots = 1,
    .setup = pc_setup,
    .body = pc_body,
    .check = pc_check,
    .teardown = pc_teardown,
};
