/* directory.c — the directory slices' request queues (issue 12 item 1; sim/machines/README.md,
 * "Directory occupancy"): a request that misses queues at its line's slice, which serves one request per
 * `request` ns (a slot resource, slots.c). */
#define _GNU_SOURCE
#include "engine_state.h"

int sim_dir_init(struct sim *s)
{
    s->dirs = sim_slots_array(s->m->dir_level < 0 ? 0 : s->m->ndir);
    if (!s->dirs)
        return -1;
    return sim_links_init(s);
}

void sim_dir_free(struct sim *s)
{
    sim_slots_array_free(s->dirs, s->m->dir_level < 0 ? 0 : s->m->ndir);
    s->dirs = NULL;
    sim_links_free(s);
}

/* The address hash that places a line's home and its directory slice where the machine hashes them
 * (the hardware's is undisclosed: uniform from the run's seed, which stands for where the allocation
 * landed). The address is the line's index in andgate's layout (the broken flag, one line per
 * participant, the algorithm's lines), so an algorithm's lines move by a line per participant from one
 * count to the next; --layout shared-first hashes them as if they came before the participants' own. */
uint64_t sim_line_hash(const struct sim *s, const struct line *l)
{
    uint64_t a = (uint64_t)(l - s->lines);
    if (s->o->shared_first && !s->o->hw && s->n) { /* a software barrier's layout (ag_layout_plan) */
        uint32_t lo = s->self.first / s->line_slots,                                    /* own lines */
            hi = (ag_at(s->self, s->n - 1) + AG_SELF_WIDTH - 1) / s->line_slots + 1,    /* algorithm's */
            end = (s->run.fl.nslots + s->line_slots - 1) / s->line_slots;             /* its end */
        if (a >= lo && a < end)
            a = a >= hi ? a - (hi - lo) : a + (end - hi);
    }
    uint64_t h = (a + 1) * 0x9E3779B97F4A7C15ull ^ s->o->seed * 0xBF58476D1CE4E5B9ull;
    return h ^ h >> 31;
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
            l->dir = (int)(sim_line_hash(s, l) % m->ndir);
        }
    }
    unsigned need = 0; /* the request, and one slot per `extra` worth of further invalidations, rounded */
    for (double x = 1 + extra / m->dir_request_ns; x > 0.5; x -= 1)
        need++;
    return sim_slots_take(&s->dirs[l->dir], t, m->dir_request_ns, need, sim_low_water(s));
}
