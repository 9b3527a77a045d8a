/* slots.c — a resource that serves one request per slot of fixed length: a directory slice (directory.c)
 * or a link port (links.c) (issue 12 item 1; sim/machines/README.md, "Directory occupancy", "Link
 * occupancy").
 *
 * Time is cut into slots of the resource's service time, each serving one request; a request issued at
 * t takes the first free slot from t on. Slots rather than one busy-until time because the engine charges
 * operations in the order participants run, which is only roughly the order of their start times: a
 * request issued at a later time must not delay one issued earlier. The slots are kept in a ring indexed
 * by slot id modulo its capacity, and the ring grows (doubling) rather than overwrite a reservation that a
 * later request could still find: one at or after the low-water time the caller passes, before which no
 * request placed from now on starts (sim_low_water: every request is issued at its participant's clock
 * or later, and no participant that will run again is behind the earliest ready one). So a burst of any
 * size queues in full (1023 spinners re-reading a released flag at once wait for 1023 slots), and a
 * ring's capacity decides only where entries sit, not which requests see them: the results do not
 * depend on the starting sizes (tests/sim/test_slots.c). Before the twenty-second part (2026-12-01) a
 * reservation was kept only if not in the past of the request being placed, and a request placed later
 * for an earlier time then missed it: 4,096-slot rings from the start moved 41 of 434 test records by
 * 0.98-1.01x (docs/results.md, "A slot ring's size is no longer part of the model"). */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdlib.h>

int sim_slots_init(struct slot_ring *r, unsigned cap)
{
    if (!cap || (cap & (cap - 1)))
        return -1; /* a power of two: at() masks */
    r->e = malloc(cap * sizeof *r->e);
    if (!r->e)
        return -1;
    r->cap = cap;
    for (unsigned k = 0; k < cap; k++)
        r->e[k] = (struct slot){ -1, 0 };
    return 0;
}

/* cap is a power of two (the callers' initial sizes, doubled by grow): the slot id modulo cap is a mask */
static struct slot *at(struct slot_ring *r, int64_t b) { return &r->e[(uint64_t)b & (r->cap - 1)]; }

/* The first free slot from b on. A taken slot points past itself (skip) to where the search goes on;
 * the pointers of the taken run just crossed are pointed at the free slot found (path compression), so
 * a long run of taken slots is crossed once, not by every request. */
static int64_t free_slot(struct slot_ring *r, int64_t b)
{
    int64_t f = b;
    while (at(r, f)->id == f)
        f = at(r, f)->skip;
    while (b < f && at(r, b)->id == b) {
        int64_t next = at(r, b)->skip;
        at(r, b)->skip = f;
        b = next;
    }
    return f;
}

/* Twice the ring, every entry at its slot id's new place (two ids that shared a place cannot both be
 * live: reserve grows before that happens). Out of memory: the ring stays, reserve overwrites. */
static int grow(struct slot_ring *r)
{
    unsigned cap = 2 * r->cap;
    struct slot *e = malloc(cap * sizeof *e);
    if (!e)
        return -1;
    for (unsigned k = 0; k < cap; k++)
        e[k] = (struct slot){ -1, 0 };
    for (unsigned k = 0; k < r->cap; k++)
        if (r->e[k].id >= 0)
            e[(uint64_t)r->e[k].id & (cap - 1)] = r->e[k];
    free(r->e);
    r->e = e;
    r->cap = cap;
    return 0;
}

/* Take slot b; the entry's previous holder must lie before slot lo, where no request starts any more */
static void reserve(struct slot_ring *r, int64_t b, int64_t lo)
{
    while (at(r, b)->id >= lo && at(r, b)->id != b && grow(r) == 0) {
    }
    *at(r, b) = (struct slot){ b, b + 1 };
}

static unsigned long early; /* requests placed before the caller's low-water time: a broken bound */

unsigned long sim_slots_early(void) { return early; }

double sim_slots_take(struct slot_ring *r, double t, double w, unsigned need, double low)
{
    if (low > t) { /* sim_low_water was no bound: keep what this request may find, and count it */
        early++;
        low = t;
    }
    int64_t b0 = (int64_t)(t / w), b = b0, first = -1, lo = (int64_t)(low / w);
    for (unsigned k = 0; k < need; k++, b++) {
        b = free_slot(r, b);
        reserve(r, b, lo);
        if (first < 0)
            first = b;
    }
    double start = (double)first * w;
    return start > t ? start : t;
}
