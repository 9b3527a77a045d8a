/* machine_load.c — loading a machine description (machine.h; the format is documented in
 * sim/machines/README.md). JSON is parsed with jansson; every field the model reads is checked here and
 * a refusal names it by its JSON path. */
#define _GNU_SOURCE
#include "machine_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int load_topology(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *topo = ld_member(l, l->root, "$", "topology", JSON_OBJECT);
    json_t *lv = topo ? ld_member(l, topo, "$.topology", "levels", JSON_ARRAY) : NULL;
    if (!lv)
        return -1;
    size_t nl = json_array_size(lv);
    if (nl < 3 || nl > SIM_MAX_LEVELS)
        return ld_bad(l, "$.topology.levels: %zu levels; 3 to %d expected (socket ... core, smt)", nl, SIM_MAX_LEVELS);
    double threads = 1;
    for (size_t i = 0; i < nl; i++) {
        char p[64];
        snprintf(p, sizeof p, "$.topology.levels[%zu]", i);
        json_t *e = json_array_get(lv, i);
        const char *name = ld_str(l, e, p, "name");
        double c;
        if (!name)
            return -1;
        char pc[80];
        snprintf(pc, sizeof pc, "%s.count", p);
        if (ld_quantity(l, json_object_get(e, "count"), pc, "count", &c))
            return -1;
        if (c < 1 || c > SIM_MAX_THREADS)
            return ld_bad(l, "%s.value: must be from 1 to %d", pc, SIM_MAX_THREADS);
        snprintf(m->level[i], sizeof m->level[i], "%s", name);
        m->count[i] = (unsigned)c;
        threads *= c;
    }
    m->nlevels = (unsigned)nl;
    if (strcmp(m->level[0], "socket") || strcmp(m->level[nl - 2], "core") || strcmp(m->level[nl - 1], "smt"))
        return ld_bad(l, "$.topology.levels: the first level must be 'socket' and the last two 'core', 'smt'");
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->level[i], m->level[j]))
                return ld_bad(l, "$.topology.levels[%zu].name: '%s' repeats", i, m->level[i]);
    double ht;
    if (ld_quantity(l, json_object_get(topo, "hardware_threads"), "$.topology.hardware_threads", "count", &ht))
        return -1;
    if (ht != threads)
        return ld_bad(l, "$.topology.hardware_threads.value: %g, but the level counts multiply to %g", ht, threads);
    if (threads > SIM_MAX_THREADS)
        return ld_bad(l, "$.topology.hardware_threads.value: %g exceeds the simulator's %d", threads, SIM_MAX_THREADS);
    m->threads = (unsigned)threads;
    return 0;
}

static int load_layers(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *ls = ld_member(l, l->root, "$", "latency_layers", JSON_ARRAY);
    if (!ls)
        return -1;
    size_t n = json_array_size(ls);
    if (n < 1 || n > SIM_MAX_LAYERS)
        return ld_bad(l, "$.latency_layers: %zu layers; 1 to %d expected", n, SIM_MAX_LAYERS);
    for (size_t i = 0; i < n; i++) {
        char p[64], q[96];
        snprintf(p, sizeof p, "$.latency_layers[%zu]", i);
        json_t *e = json_array_get(ls, i);
        const char *id = ld_str(l, e, p, "id"), *kind = id ? ld_str(l, e, p, "kind") : NULL;
        if (!kind)
            return -1;
        struct sim_layer *y = &m->layer[i];
        if (strlen(id) >= sizeof y->id || sim_machine_layer(m, id) >= 0)
            return ld_bad(l, "%s.id: '%s' is too long or repeats", p, id);
        snprintf(y->id, sizeof y->id, "%s", id);
        m->nlayers = (unsigned)i + 1;
        if (!strcmp(kind, "fixed")) {
            y->path = SIM_PATH_FIXED;
            snprintf(q, sizeof q, "%s.latency", p);
            if (ld_quantity(l, json_object_get(e, "latency"), q, "time", &y->ns))
                return -1;
        } else if (!strcmp(kind, "noc")) {
            const char *path = ld_str(l, e, p, "path");
            if (!path)
                return -1;
            if (!strcmp(path, "direct"))
                y->path = SIM_PATH_DIRECT;
            else if (!strcmp(path, "via_home"))
                y->path = SIM_PATH_VIA_HOME;
            else if (!strcmp(path, "home_roundtrip"))
                y->path = SIM_PATH_HOME_ROUNDTRIP;
            else
                return ld_bad(l, "%s.path: '%s'; expected direct, via_home or home_roundtrip", p, path);
            snprintf(q, sizeof q, "%s.base", p);
            if (ld_quantity(l, json_object_get(e, "base"), q, "time", &y->ns))
                return -1;
        } else {
            return ld_bad(l, "%s.kind: '%s'; expected fixed or noc", p, kind);
        }
    }
    return 0;
}

/* $.interconnect.coordinates.positions (co: the coordinates, or NULL): where each attach unit (of level at)
 * sits, nd coordinates each below the dims d, no two units at one place. 0, or -1 after a refusal. */
static int load_positions(struct ld *l, json_t *co, const char *at, size_t nd, const double *d)
{
    struct sim_machine *m = l->m;
    json_t *pos = co ? ld_member(l, co, "$.interconnect.coordinates", "positions", JSON_ARRAY) : NULL;
    if (!pos)
        return co ? -1 : ld_bad(l, "$.interconnect.coordinates: missing (the machine has a noc layer)");
    if (json_array_size(pos) != m->nattach)
        return ld_bad(l, "$.interconnect.coordinates.positions: %zu entries for %u %s units",
                      json_array_size(pos), m->nattach, at);
    m->pos = calloc(m->nattach, sizeof *m->pos);
    for (unsigned u = 0; u < m->nattach; u++) {
        json_t *e = json_array_get(pos, u);
        if (!json_is_array(e) || json_array_size(e) != nd)
            return ld_bad(l, "$.interconnect.coordinates.positions[%u]: must be %s", u,
                          m->ring ? "[stop]" : "[x, y]");
        for (size_t k = 0; k < nd; k++) {
            json_t *x = json_array_get(e, k);
            if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) >= (json_int_t)d[k])
                return ld_bad(l, "$.interconnect.coordinates.positions[%u][%zu]: must be a whole number "
                              "in [0, %g)", u, k, d[k]);
            m->pos[u][k] = (unsigned)json_integer_value(x);
        }
        for (unsigned v = 0; v < u; v++)
            if (m->pos[v][0] == m->pos[u][0] && m->pos[v][1] == m->pos[u][1])
                return ld_bad(l, "$.interconnect.coordinates.positions[%u]: same place as [%u]", u, v);
    }
    return 0;
}

static int load_interconnect(struct ld *l)
{
    struct sim_machine *m = l->m;
    m->attach = -1;
    int noc = 0;
    for (unsigned i = 0; i < m->nlayers; i++)
        noc |= m->layer[i].path != SIM_PATH_FIXED;
    json_t *ic = json_object_get(l->root, "interconnect");
    if (!noc && !json_is_object(ic))
        return 0;
    if (!json_is_object(ic))
        return ld_bad(l, "$.interconnect: missing (the machine has a noc layer)");
    const char *kind = ld_str(l, ic, "$.interconnect", "kind");
    if (!kind)
        return -1;
    json_t *co = json_object_get(ic, "coordinates");
    if (!noc && !co)
        return 0;
    const char *at;
    if ((m->attach = ld_level(l, ic, "$.interconnect", "attach_level", &at, &m->nattach)) < 0)
        return -1;
    json_t *dims = ld_member(l, ic, "$.interconnect", "dims", JSON_ARRAY);
    if (!dims)
        return -1;
    size_t nd = json_array_size(dims);
    m->ring = strstr(kind, "ring") != NULL;
    if (nd != (m->ring ? 1u : 2u))
        return ld_bad(l, "$.interconnect.dims: %zu entries; a %s needs %s", nd, kind,
                   m->ring ? "[stops]" : "[columns, rows]");
    double d[2] = { 0, 0 };
    for (size_t i = 0; i < nd; i++) {
        char p[64];
        snprintf(p, sizeof p, "$.interconnect.dims[%zu]", i);
        if (ld_quantity(l, json_array_get(dims, i), p, "count", &d[i]))
            return -1;
        if (d[i] < 1 || d[i] > SIM_MAX_THREADS)
            return ld_bad(l, "%s.value: must be from 1 to %d", p, SIM_MAX_THREADS);
    }
    m->ring_stops = (unsigned)d[0];
    json_t *bi = json_object_get(ic, "bidirectional");
    m->bidirectional = bi ? json_is_true(bi) : 1;
    if (load_positions(l, co, at, nd, d))
        return -1;
    json_t *hop = ld_member(l, ic, "$.interconnect", "hop", JSON_OBJECT);
    double r, k;
    if (!hop || ld_quantity(l, json_object_get(hop, "router"), "$.interconnect.hop.router", "time", &r) ||
        ld_quantity(l, json_object_get(hop, "link"), "$.interconnect.hop.link", "time", &k))
        return -1;
    m->hop_ns = r + k;
    return 0;
}

/* $.coherence.atomic: the read-modify-write mechanism (kind) and its extra cost on an owned line */
static int load_atomic(struct ld *l, json_t *co)
{
    static const char *const kinds[] = { "x86-lock", "armv8-llsc", "armv8-lse", "tile-tns", "unspecified" };
    struct sim_machine *m = l->m;
    json_t *at = ld_member(l, co, "$.coherence", "atomic", JSON_OBJECT);
    const char *ak = at ? ld_str(l, at, "$.coherence.atomic", "kind") : NULL;
    if (!ak || ld_quantity(l, json_object_get(at, "extra"), "$.coherence.atomic.extra", "time", &m->atomic_extra_ns))
        return -1;
    unsigned k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k], ak))
        k++;
    if (k == sizeof kinds / sizeof kinds[0])
        return ld_bad(l, "$.coherence.atomic.kind: '%s'; expected x86-lock, armv8-llsc, armv8-lse, tile-tns or "
                      "unspecified", ak);
    m->atomic_llsc = !strcmp(ak, "armv8-llsc");
    m->atomic_armv8 = !strncmp(ak, "armv8-", 6);
    return 0;
}

static int load_coherence(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *co = ld_member(l, l->root, "$", "coherence", JSON_OBJECT);
    json_t *inv = co ? ld_member(l, co, "$.coherence", "invalidation", JSON_OBJECT) : NULL;
    const char *model = inv ? ld_str(l, inv, "$.coherence.invalidation", "model") : NULL;
    if (!model)
        return -1;
    if (!strcmp(model, "none")) {
        if (m->attach < 0)
            return ld_bad(l, "$.coherence.invalidation.model: 'none' (every access at the line's home) needs "
                       "$.interconnect.attach_level and coordinates to place the homes");
        m->inval_none = 1;
    } else if (!strcmp(model, "alpha")) {
        json_t *al = ld_member(l, inv, "$.coherence.invalidation", "alpha", JSON_OBJECT);
        if (!al)
            return -1;
        for (unsigned k = 0; k < m->nlayers; k++) {
            char p[96];
            snprintf(p, sizeof p, "$.coherence.invalidation.alpha.%s", m->layer[k].id);
            json_t *q = json_object_get(al, m->layer[k].id);
            if (!q) {
                if (k == m->self_layer)
                    continue;
                return ld_bad(l, "%s: missing (every layer other than self needs its α)", p);
            }
            if (ld_quantity(l, q, p, "ratio", &m->layer[k].alpha))
                return -1;
        }
        json_t *each = json_object_get(inv, "per_sharer");
        if (each && ld_quantity(l, each, "$.coherence.invalidation.per_sharer", "time", &m->inval_each_ns))
            return -1;
        const char *key;
        json_t *q;
        json_object_foreach(al, key, q) if (sim_machine_layer(m, key) < 0) return ld_bad(
            l, "$.coherence.invalidation.alpha.%s: not a layer id of $.latency_layers", key);
    } else {
        return ld_bad(l, "$.coherence.invalidation.model: '%s'; expected alpha or none", model);
    }
    if (load_atomic(l, co))
        return -1;
    if (ld_occupancy(l, json_object_get(co, "occupancy")) || ld_transfer_times(l, co))
        return -1;
    json_t *home = json_object_get(co, "home");
    if (home) {
        const char *pol = ld_str(l, home, "$.coherence.home", "policy");
        if (!pol)
            return -1;
        if (strcmp(pol, "hash") && strcmp(pol, "first-touch"))
            return ld_bad(l, "$.coherence.home.policy: '%s'; expected hash or first-touch", pol);
        m->home_first_touch = !strcmp(pol, "first-touch");
    }
    return 0;
}

static int load(struct ld *l)
{
    struct sim_machine *m = l->m;
    if (!json_is_object(l->root))
        return ld_bad(l, "$: must be an object");
    const char *fmt = ld_str(l, l->root, "$", "format");
    if (!fmt)
        return -1;
    if (strcmp(fmt, "andgate-machine/1"))
        return ld_bad(l, "$.format: '%s'; expected andgate-machine/1", fmt);
    const char *name = ld_str(l, l->root, "$", "name"), *title = name ? ld_str(l, l->root, "$", "title") : NULL;
    if (!title)
        return -1;
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->title, sizeof m->title, "%s", title);
    json_t *clock = ld_member(l, l->root, "$", "clock", JSON_OBJECT);
    if (!clock || ld_quantity(l, json_object_get(clock, "core"), "$.clock.core", "GHz", &m->ghz))
        return -1;
    if (m->ghz <= 0)
        return ld_bad(l, "$.clock.core.value: must be positive");
    double line;
    if (ld_quantity(l, json_object_get(l->root, "cache_line"), "$.cache_line", "bytes", &line))
        return -1;
    if (line < 16 || line > 1024 || ((unsigned)line & ((unsigned)line - 1)))
        return ld_bad(l, "$.cache_line.value: %g bytes; the simulator models lines of a power of two from 16 to "
                   "1024 bytes", line);
    m->line_bytes = (unsigned)line;
    if (load_topology(l) || load_layers(l) || load_interconnect(l) || ld_layer_map(l) || load_coherence(l) ||
        ld_devices(l) || ld_os(l) || ld_contention(l))
        return -1;
    /* the cache groups: the innermost shared_by level above the core */
    unsigned core = m->nlevels - 2;
    m->cache_level = 0;
    json_t *caches = json_object_get(l->root, "caches"), *c;
    size_t i;
    json_array_foreach(caches, i, c) {
        json_t *by = json_object_get(c, "shared_by");
        int k = json_is_string(by) ? sim_machine_level(m, json_string_value(by)) : -1;
        if (json_is_string(by) && k < 0 && strcmp(json_string_value(by), "machine"))
            return ld_bad(l, "$.caches[%zu].shared_by: '%s' is not a topology level", i, json_string_value(by));
        if (k >= 0 && (unsigned)k < core && (unsigned)k > m->cache_level)
            m->cache_level = (unsigned)k;
    }
    return 0;
}

int sim_machine_load(const char *name_or_file, struct sim_machine *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (!sim_machine_find(name_or_file, m->file, sizeof m->file)) {
        if (!strcmp(name_or_file, "host"))
            snprintf(err, errlen, "machine 'host': no host.json yet; `andgate info --measure` writes it");
        else
            snprintf(err, errlen, "machine '%s': no %s.json in $ANDGATE_MACHINES, ~/.local/share/andgate/machines "
                                  "or the installed machines (andgate sim --machines lists them)",
                     name_or_file, name_or_file);
        return -1;
    }
    struct stat st; /* jansson would say "FILE:-1:-1: unable to open" or "'[' or '{' expected" for these */
    if (stat(m->file, &st)) {
        snprintf(err, errlen, "--machine %s: %s", m->file, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--machine %s: a directory; expected a machine file (sim/machines/README.md)", m->file);
        return -1;
    }
    json_error_t je;
    json_t *root = json_load_file(m->file, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (je.line < 0) /* not read at all (permissions) */
            snprintf(err, errlen, "--machine %s: %s", m->file, je.text);
        else
            snprintf(err, errlen, "%s:%d:%d: %s", m->file, je.line, je.column, je.text);
        return -1;
    }
    struct ld l = { m, root, err, errlen };
    char msg[400];
    l.err = msg, l.errlen = sizeof msg;
    if (load(&l)) {
        snprintf(err, errlen, "%s: %s", m->file, msg);
        json_decref(root);
        free(m->uid), free(m->um), free(m->pos);
        m->uid = NULL, m->um = NULL, m->pos = NULL;
        return -1;
    }
    m->doc = root;
    return 0;
}

void sim_machine_free(struct sim_machine *m)
{
    json_decref(m->doc);
    free(m->uid);
    free(m->um);
    free(m->pos);
    memset(m, 0, sizeof *m);
}
