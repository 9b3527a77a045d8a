/* test_slots.c — the slot resource of the directory slices and link ports (sim/slots.c): sim_slots_take
 * places every request where a resource that remembered every reservation would, though it forgets
 * those before the low-water time. Random streams of requests (start times at or after a low-water time
 * that moves forward, bursts of several slots, several slot widths, far out of time order so that runs
 * of taken slots split, fill and merge) go to a resource and to a plain reference (a table of every slot
 * ever taken); every returned start must be the reference's. The slot table before the twenty-second
 * part (2026-12-01), which dropped reservations in the past of the request being placed, fails this (a
 * request placed later for an earlier time missed them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "engine_state.h"

#define SPAN 200000 /* slot ids a stream can reach: the reference's table */

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* the reference: the first free slot from t's on, need of them, every one remembered */
static double ref_take(unsigned char *taken, double t, double w, unsigned need)
{
    int64_t b = (int64_t)(t / w), first = -1;
    for (unsigned k = 0; k < need; k++, b++) {
        while (taken[b])
            b++;
        taken[b] = 1;
        if (first < 0)
            first = b;
    }
    double start = (double)first * w;
    return start > t ? start : t;
}

/* one stream: requests from a low-water time that advances by small random steps, each up to `ahead`
 * ns past it (how far out of time order they come), bursts of 1..maxneed slots */
static void stream(double w, double ahead, unsigned maxneed, unsigned nreq)
{
    struct slot_res r;
    sim_slots_init(&r);
    unsigned char *taken = calloc(SPAN + 64 * maxneed * (size_t)nreq, 1);
    double low = 0;
    unsigned bad = 0, most = 0;
    for (unsigned q = 0; q < nreq; q++) {
        low += (double)(next() % 1000) / 1000.0 * w * 2;    /* the low-water time moves on */
        double t = low + (double)(next() % 1000) / 1000.0 * ahead;
        unsigned need = 1 + (unsigned)(next() % maxneed);
        double want = ref_take(taken, t, w, need);
        bad += sim_slots_take(&r, t, w, need, low) != want;
        most = r.n > most ? r.n : most;
    }
    CHECK(bad == 0, "w %.2f ns, requests up to %.0f ns ahead, bursts to %u: %u of %u requests placed "
          "elsewhere than a resource that keeps every slot\n", w, ahead, maxneed, bad, nreq);
    CHECK(ahead < 100 * w || most > SLOT_RUNS_INLINE, "w %.2f ns, requests up to %.0f ns ahead: never more "
          "than %u runs at once, the runs outside the record were not exercised\n", w, ahead, most);
    sim_slots_free(&r);
    free(taken);
}

int main(void)
{
    unsigned long early0 = sim_slots_early();
    stream(1.0, 0.5, 1, 20000);    /* nearly in time order, one slot each (a link port) */
    stream(2.5, 40.0, 1, 20000);   /* out of order by 16 slots */
    stream(4.0, 400.0, 3, 20000);  /* out of order by 100 slots, bursts (a directory's invalidations) */
    stream(1.0, 3000.0, 8, 10000); /* far out of order, long bursts */
    CHECK(sim_slots_early() == early0, "requests at or after their low-water time were counted early\n");
    /* a low-water time after the request (a broken bound) is counted, and the request still placed */
    struct slot_res r;
    sim_slots_init(&r);
    double a = sim_slots_take(&r, 10.0, 1.0, 1, 5.0), b = sim_slots_take(&r, 10.0, 1.0, 1, 50.0);
    CHECK(a == 10.0 && b == 11.0, "two requests at 10 ns: %.1f and %.1f, expected 10 and 11\n", a, b);
    CHECK(sim_slots_early() == early0 + 1, "a low-water time after the request: counted %lu, expected 1\n",
          sim_slots_early() - early0);
    sim_slots_free(&r);
    return check_done();
}
