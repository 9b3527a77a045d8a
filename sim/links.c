/* links.c — interconnect links have occupancy (issue 12 item 1; sim/machines/README.md, "Link
 * occupancy"): every unit of a link class's level has an out port and an in port, each a slot resource
 * (slots.c) serving one line transfer per the class's transfer time. A transfer between threads in
 * different units of the level queues at the sender's out port, then at the receiver's in port, so
 * concurrent transfers that leave (or enter) the same cluster, panel or socket go one after another:
 * a dissemination round in which every thread of a panel writes a flag in another panel pays the
 * panel's port that many times (002 §IV, DIS). Ports are indexed class by class, unit by unit, out
 * before in. */
#define _GNU_SOURCE
#include "engine_state.h"

static unsigned nports(const struct sim_machine *m)
{
    unsigned n = 0;
    for (unsigned c = 0; c < m->nlinks; c++)
        n += 2 * m->link[c].nunits;
    return n;
}

int sim_links_init(struct sim *s)
{
    unsigned n = nports(s->m);
    if (!n)
        return 0;
    s->ports = sim_slots_array(n);
    return s->ports ? 0 : -1;
}

void sim_links_free(struct sim *s)
{
    sim_slots_array_free(s->ports, nports(s->m));
    s->ports = NULL;
}

double sim_link_take(struct sim *s, unsigned from, unsigned to, double t)
{
    const struct sim_machine *m = s->m;
    struct slot_res *port = s->ports;
    const double low = sim_low_water(s);
    for (unsigned c = 0; c < m->nlinks; port += 2 * m->link[c].nunits, c++) {
        const struct sim_link *k = &m->link[c];
        unsigned uf = from / k->below, ut = to / k->below;
        if (uf == ut || k->ns <= 0)
            continue;
        t = sim_slots_take(&port[2 * uf], t, k->ns, 1, low);     /* the sender's out port */
        t = sim_slots_take(&port[2 * ut + 1], t, k->ns, 1, low); /* then the receiver's in port */
    }
    return t;
}
