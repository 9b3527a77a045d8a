/* directory.c — the directory slices' request queues (issue 12 item 1; sim/machines/README.md,
 * "Directory occupancy"): a request that misses queues at its line's slice, which serves one request per
 * `request` ns.
 *
 * Time at a slice is cut into slots of that length, each serving one request; a request issued at t
 * takes the first free slot from t on. Slots rather than one busy-until time because the engine charges
 * operations in the order participants run, which is only roughly the order of their start times: a
 * request issued at a later time must not delay one issued earlier. Each slice keeps its slots in a ring
 * indexed by slot id modulo its capacity; a ring grows (doubling) rather than overwrite a reservation
 * that is not in the past of the request being placed, so a burst of any size queues in full (1023
 * spinners re-reading a released flag at once wait for 1023 slots). */
#define _GNU_SOURCE
#include "engine_state.h"

#include <stdlib.h>

enum { DIR_RING0 = 16 };

int sim_dir_init(struct sim *s)
{
    unsigned n = s->m->dir_level < 0 ? 0 : s->m->ndir;
    s->dirs = calloc(n ? n : 1, sizeof *s->dirs);
    if (!s->dirs)
        return -1;
    for (unsigned d = 0; d < n; d++) {
        s->dirs[d].e = malloc(DIR_RING0 * sizeof *s->dirs[d].e);
        if (!s->dirs[d].e)
            return -1; /* sim_dir_free releases what was allocated */
        s->dirs[d].cap = DIR_RING0;
        for (unsigned k = 0; k < DIR_RING0; k++)
            s->dirs[d].e[k] = (struct dir_slot){ -1, 0 };
    }
    return 0;
}

void sim_dir_free(struct sim *s)
{
    if (s->dirs && s->m->dir_level >= 0)
        for (unsigned d = 0; d < s->m->ndir; d++)
            free(s->dirs[d].e);
    free(s->dirs);
}

static struct dir_slot *at(struct dir_ring *r, int64_t b) { return &r->e[(uint64_t)b % r->cap]; }

/* The first free slot from b on. A taken slot points past itself (skip) to where the search goes on;
 * the pointers of the taken run just crossed are pointed at the free slot found (path compression), so
 * a long run of taken slots is crossed once, not by every request. */
static int64_t free_slot(struct dir_ring *r, int64_t b)
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
static int grow(struct dir_ring *r)
{
    unsigned cap = 2 * r->cap;
    struct dir_slot *e = malloc(cap * sizeof *e);
    if (!e)
        return -1;
    for (unsigned k = 0; k < cap; k++)
        e[k] = (struct dir_slot){ -1, 0 };
    for (unsigned k = 0; k < r->cap; k++)
        if (r->e[k].id >= 0)
            e[(uint64_t)r->e[k].id % cap] = r->e[k];
    free(r->e);
    r->e = e;
    r->cap = cap;
    return 0;
}

/* Take slot b for a request placed from slot b0 on: the entry's previous holder must lie before b0 */
static void reserve(struct dir_ring *r, int64_t b, int64_t b0)
{
    while (at(r, b)->id >= b0 && at(r, b)->id != b && grow(r) == 0) {
    }
    *at(r, b) = (struct dir_slot){ b, b + 1 };
}

double sim_dir_take(struct sim *s, struct line *l, double t, double extra)
{
    const struct sim_machine *m = s->m;
    if (m->dir_level < 0 || m->dir_request_ns <= 0)
        return t;
    if (l->dir < 0) { /* spread over the slices by the homes' seeded hash; the home where slices are homes */
        if (l->home >= 0 && m->dir_level == m->attach) {
            l->dir = l->home;
        } else {
            uint64_t h = ((uint64_t)(l - s->lines) + 1) * 0x9E3779B97F4A7C15ull ^ s->o->seed * 0xBF58476D1CE4E5B9ull;
            h ^= h >> 31;
            l->dir = (int)(h % m->ndir);
        }
    }
    double w = m->dir_request_ns;
    struct dir_ring *r = &s->dirs[l->dir];
    int64_t b0 = (int64_t)(t / w), b = b0, first = -1;
    for (double need = 1 + extra / w; need > 0.5; b++) {
        b = free_slot(r, b);
        reserve(r, b, b0);
        if (first < 0)
            first = b;
        need -= 1;
    }
    double start = (double)first * w;
    return start > t ? start : t;
}
