/* machine_contention.c — the optional contention parameters of a machine description (issue 12 item 1;
 * sim/machines/README.md): $.interconnect.links (link occupancy), $.coherence.three_leg (home-node paths
 * on multi-socket machines), $.coherence.smt_issue (SMT siblings sharing their core's issue) and
 * $.coherence.occupancy (requests queueing at the line's directory slice). Checked whole at load;
 * absent, the machine has none of them. */
#include <stdio.h>
#include <string.h>

#include "machine_json.h"

/* A level by name at path, or -1 after a refusal. */
static int level_at(struct ld *l, json_t *obj, const char *path, const char *key)
{
    const char *name = ld_str(l, obj, path, key);
    if (!name)
        return -1;
    int k = sim_machine_level(l->m, name);
    if (k < 0)
        ld_bad(l, "%s.%s: '%s' is not a level of $.topology.levels", path, key, name);
    return k;
}

/* $.interconnect.links: [{between, transfer, count?}]: each unit of `between` has ports whose occupancy
 * a line transfer crossing the unit's boundary holds for transfer / count. */
static int ld_links(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *ic = json_object_get(l->root, "interconnect"), *links = ic ? json_object_get(ic, "links") : NULL, *e;
    m->nlinks = 0;
    if (!links)
        return 0;
    if (!json_is_array(links) || json_array_size(links) > SIM_MAX_LEVELS)
        return ld_bad(l, "$.interconnect.links: must be an array of at most %d link classes {between, transfer}",
                      SIM_MAX_LEVELS);
    size_t i;
    json_array_foreach(links, i, e) {
        char p[64], pq[96];
        snprintf(p, sizeof p, "$.interconnect.links[%zu]", i);
        if (!json_is_object(e))
            return ld_bad(l, "%s: must be an object {between, transfer, count}", p);
        int k = level_at(l, e, p, "between");
        double ns, count = 1;
        snprintf(pq, sizeof pq, "%s.transfer", p);
        if (k < 0 || ld_quantity(l, json_object_get(e, "transfer"), pq, "time", &ns))
            return -1;
        json_t *c = json_object_get(e, "count");
        snprintf(pq, sizeof pq, "%s.count", p);
        if (c && ld_quantity(l, c, pq, "count", &count))
            return -1;
        if (count < 1)
            return ld_bad(l, "%s.value: a port needs at least one link", pq);
        unsigned units = sim_machine_unit(m, m->threads - 1, (unsigned)k) + 1;
        m->link[m->nlinks++] = (struct sim_link){ k, units, m->threads / units, ns / count };
    }
    return 0;
}

/* $.coherence.three_leg: {level, home, base}: a line's home node is a unit of `level` (home "init": the
 * node of the participant that initializes the barrier, whose memset first touches every line; "hash":
 * spread by the run's seed); `base` is the layer of a transfer inside one node. */
static int ld_three_leg(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *co = json_object_get(l->root, "coherence"), *tl = co ? json_object_get(co, "three_leg") : NULL;
    const char *p = "$.coherence.three_leg";
    m->nnodes = 0;
    if (!tl)
        return 0;
    if (!json_is_object(tl))
        return ld_bad(l, "%s: must be an object {level, home, base}", p);
    if (m->attach >= 0)
        return ld_bad(l, "%s: for machines of fixed layers; a noc layer's via_home path already passes the home",
                      p);
    int k = level_at(l, tl, p, "level");
    const char *home = k < 0 ? NULL : ld_str(l, tl, p, "home"), *base = home ? ld_str(l, tl, p, "base") : NULL;
    if (!base)
        return -1;
    if (strcmp(home, "init") && strcmp(home, "hash"))
        return ld_bad(l, "%s.home: '%s'; expected init or hash", p, home);
    int b = sim_machine_layer(m, base);
    if (b < 0)
        return ld_bad(l, "%s.base: '%s' is not a layer id of $.latency_layers", p, base);
    m->node_level = (unsigned)k;
    m->nnodes = sim_machine_unit(m, m->threads - 1, (unsigned)k) + 1;
    m->node_init = !strcmp(home, "init");
    m->node_base_ns = m->layer[b].ns;
    return 0;
}

/* $.coherence.smt_issue: {share}: the issue a busy SMT sibling takes from a thread's core-bound step. */
static int ld_smt(struct ld *l)
{
    json_t *co = json_object_get(l->root, "coherence"), *si = co ? json_object_get(co, "smt_issue") : NULL;
    l->m->smt_share = 0;
    if (!si)
        return 0;
    if (!json_is_object(si))
        return ld_bad(l, "$.coherence.smt_issue: must be an object {share}");
    return ld_quantity(l, json_object_get(si, "share"), "$.coherence.smt_issue.share", "ratio", &l->m->smt_share);
}

int ld_contention(struct ld *l) { return ld_links(l) || ld_three_leg(l) || ld_smt(l) ? -1 : 0; }

/* $.coherence.occupancy (optional): requests that miss queue at the line's directory slice, one per unit
 * of `slices`, each holding it for `request` (issue 12 item 1). Absent: not modeled. */
int ld_occupancy(struct ld *l, json_t *oc)
{
    struct sim_machine *m = l->m;
    m->dir_level = -1;
    m->ndir = 0;
    if (!oc)
        return 0;
    if (!json_is_object(oc))
        return ld_bad(l, "$.coherence.occupancy: expected an object with slices and request");
    int k = level_at(l, oc, "$.coherence.occupancy", "slices");
    if (k < 0 ||
        ld_quantity(l, json_object_get(oc, "request"), "$.coherence.occupancy.request", "time", &m->dir_request_ns))
        return -1;
    m->dir_level = k;
    m->ndir = sim_machine_unit(m, m->threads - 1, (unsigned)k) + 1;
    return 0;
}
