/* slots.c — a resource that serves one request per slot of fixed length: a directory slice (directory.c)
 * or a link port (links.c) (issue 12 item 1; sim/machines/README.md, "Directory occupancy", "Link
 * occupancy").
 *
 * Time is cut into slots of the resource's service time, each serving one request; a request issued at
 * t takes the first free slot from t on. Slots rather than one busy-until time because the engine charges
 * operations in the order participants run, which is only roughly the order of their start times: a
 * request issued at a later time must not delay one issued earlier. Every reservation at or after the
 * low-water time the caller passes is kept: before it no request placed from now on starts
 * (sim_low_water: every request is issued at its participant's clock or later, and no participant that
 * will run again is behind the earliest ready one). So a burst of any size queues in full (1023 spinners
 * re-reading a released flag at once wait for 1023 slots), and what is kept decides only the memory, not
 * which requests see a reservation (tests/sim/test_slots.c). Before the twenty-second part (2026-12-01)
 * a reservation was kept only if not in the past of the request being placed, and a request placed later
 * for an earlier time then missed it (docs/results.md, "A slot ring's size is no longer part of the
 * model").
 *
 * The kept reservations are runs of taken slots, sorted, disjoint and never adjacent (two that touch are
 * merged), in r->run[head, head + n). A resource sees its requests in bursts (one flag's readers, one
 * round's transfers), so a burst is one run however long it is, and most resources hold a run or two:
 * they fit in the resource's own record (inl), one cache line in an array of them. Until the twenty-seventh
 * part (2026-12-02) the slots were entries of a table indexed by slot id (16 bytes each, a table of
 * thousands per directory slice): every request of a 1024-participant run then missed the host's caches
 * on an entry of its own, a fifth of the simulator's time. Runs hold the same set of slots, so every
 * result is the same. */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdlib.h>
#include <string.h>

void sim_slots_init(struct slot_res *r)
{
    *r = (struct slot_res){ .run = r->inl, .cap = SLOT_RUNS_INLINE };
}

void sim_slots_free(struct slot_res *r)
{
    if (r->run != r->inl)
        free(r->run);
    *r = (struct slot_res){ .run = r->inl, .cap = SLOT_RUNS_INLINE };
}

struct slot_res *sim_slots_array(unsigned n)
{
    struct slot_res *r = aligned_alloc(_Alignof(struct slot_res), (n ? n : 1) * sizeof *r);
    for (unsigned k = 0; r && k < n; k++)
        sim_slots_init(&r[k]);
    return r;
}

void sim_slots_array_free(struct slot_res *r, unsigned n)
{
    for (unsigned k = 0; r && k < n; k++)
        sim_slots_free(&r[k]);
    free(r);
}

/* Room for one more run at the end: the dropped runs' room is taken back first, then the array doubles
 * (out of memory: the earliest run is dropped, an approximation the run then counts as an early one) */
static int room(struct slot_res *r)
{
    if (r->head + r->n < r->cap)
        return 0;
    if (r->head) {
        memmove(r->run, r->run + r->head, r->n * sizeof *r->run);
        r->head = 0;
        return 0;
    }
    struct slot_run *run = malloc(2 * r->cap * sizeof *run);
    if (!run)
        return -1;
    memcpy(run, r->run, r->n * sizeof *run);
    if (r->run != r->inl)
        free(r->run);
    r->run = run;
    r->cap *= 2;
    return 0;
}

static unsigned long early; /* requests placed before the caller's low-water time: a broken bound */

unsigned long sim_slots_early(void) { return early; }

/* The first run (index into r->run) that ends after slot b, head + n if none: the last run first, where
 * a request in time order lands, then a binary search */
static unsigned after(const struct slot_res *r, int64_t b)
{
    unsigned lo = r->head, hi = r->head + r->n;
    if (!r->n || r->run[hi - 1].end <= b)
        return hi;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (r->run[mid].end <= b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Take the first free slot from b on; returns it */
static int64_t take_one(struct slot_res *r, int64_t b)
{
    unsigned k = after(r, b), end = r->head + r->n;
    struct slot_run *run = r->run;
    if (k < end && run[k].start <= b) { /* b is taken: the run's end is free (runs never touch) */
        b = run[k].end++;
        if (k + 1 < end && run[k + 1].start == run[k].end) { /* it now touches the next: one run */
            run[k].end = run[k + 1].end;
            memmove(&run[k + 1], &run[k + 2], (end - k - 2) * sizeof *run);
            r->n--;
        }
        return b;
    }
    int left = k > r->head && run[k - 1].end == b, right = k < end && run[k].start == b + 1;
    if (left && right) { /* b fills the gap between two runs */
        run[k - 1].end = run[k].end;
        memmove(&run[k], &run[k + 1], (end - k - 1) * sizeof *run);
        r->n--;
    } else if (left) {
        run[k - 1].end = b + 1;
    } else if (right) {
        run[k].start = b;
    } else { /* a run of its own at k, the runs from k on moved up by one */
        unsigned off = k - r->head;
        if (room(r)) { /* no memory: forget the earliest run rather than fail the simulation */
            early++;
            r->head++, r->n--;
            off -= off > 0; /* it lay before b, or it was the one after it */
            room(r);        /* takes its place back: no allocation */
        }
        run = r->run;
        k = r->head + off;
        memmove(&run[k + 1], &run[k], (r->n - off) * sizeof *run);
        run[k] = (struct slot_run){ b, b + 1 };
        r->n++;
    }
    return b;
}

double sim_slots_take(struct slot_res *r, double t, double w, unsigned need, double low)
{
    if (low > t) { /* sim_low_water was no bound: keep what this request may find, and count it */
        early++;
        low = t;
    }
    int64_t b = (int64_t)(t / w), first = -1, lo = (int64_t)(low / w);
    while (r->n && r->run[r->head].end <= lo) /* no request starts there any more */
        r->head++, r->n--;
    if (!r->n)
        r->head = 0;
    for (unsigned k = 0; k < need; k++, b++) {
        b = take_one(r, b);
        if (first < 0)
            first = b;
    }
    double start = (double)first * w;
    return start > t ? start : t;
}
