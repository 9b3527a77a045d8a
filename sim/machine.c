/* machine.c — loading and evaluating a machine description (machine.h; the format is documented in
 * sim/machines/README.md). JSON is parsed with jansson; every field the model reads is checked here and
 * a refusal names it by its JSON path. */
#define _GNU_SOURCE
#include "machine.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AG_MACHINES_DIR
#define AG_MACHINES_DIR ""
#endif
#ifndef AG_SOURCE_MACHINES_DIR
#define AG_SOURCE_MACHINES_DIR ""
#endif

struct ld {
    struct sim_machine *m;
    json_t *root;
    char *err;
    size_t errlen;
};

static int bad(struct ld *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->err, l->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static json_t *member(struct ld *l, json_t *obj, const char *path, const char *key, int type)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!v) {
        bad(l, "%s.%s: missing", path, key);
        return NULL;
    }
    if (type >= 0 && (int)json_typeof(v) != type &&
        !(type == JSON_REAL && json_is_integer(v))) {
        static const char *const names[] = { "an object", "an array", "a string", "a whole number", "a number",
                                             "true or false", "true or false", "null" };
        bad(l, "%s.%s: must be %s", path, key, names[type]);
        return NULL;
    }
    return v;
}

static const char *str(struct ld *l, json_t *obj, const char *path, const char *key)
{
    json_t *v = member(l, obj, path, key, JSON_STRING);
    return v ? json_string_value(v) : NULL;
}

/* A quantity {value, unit, source}: the value, in ns for times. want: "time", "count", "GHz", "bytes",
 * "ratio" or NULL for anything. */
static int quantity(struct ld *l, json_t *q, const char *path, const char *want, double *out)
{
    if (!q)
        return bad(l, "%s: missing", path);
    if (!json_is_object(q))
        return bad(l, "%s: must be a quantity {value, unit, source}", path);
    json_t *v = json_object_get(q, "value"), *u = json_object_get(q, "unit"), *s = json_object_get(q, "source");
    if (!json_is_number(v))
        return bad(l, "%s.value: must be a number", path);
    if (!json_is_string(u))
        return bad(l, "%s.unit: must be a string", path);
    if (!json_is_string(s) || json_string_length(s) < 8)
        return bad(l, "%s.source: every number needs its source (see sim/machines/README.md)", path);
    double x = json_number_value(v), given = x;
    const char *unit = json_string_value(u);
    if (!isfinite(x) || x < 0)
        return bad(l, "%s.value: must be a finite number, not negative", path);
    /* every quantity the model reads is at most 10^9 of its unit (a second in ns, 10^9 cycles, a
     * billion units): larger values overflow the engine's virtual clock or counters */
    if (x > 1e9)
        return bad(l, "%s.value: %g is larger than the simulator models (at most 10^9 %s)", path, x, unit);
    if (want && !strcmp(want, "GHz") && strcmp(unit, "GHz") && strcmp(unit, "MHz"))
        return bad(l, "%s.unit: '%s' where GHz or MHz was expected", path, unit);
    if (!strcmp(unit, "cycles")) {
        json_t *c = json_object_get(q, "clock");
        const char *dom = json_is_string(c) ? json_string_value(c) : "core";
        json_t *clk = json_object_get(json_object_get(l->root, "clock"), dom);
        if (!clk)
            return bad(l, "%s.clock: clock domain '%s' is not in $.clock", path, dom);
        double ghz;
        char p[96];
        snprintf(p, sizeof p, "$.clock.%s", dom);
        if (quantity(l, clk, p, "GHz", &ghz))
            return -1;
        if (ghz <= 0)
            return bad(l, "%s.value: must be positive", p);
        x /= ghz;
        if (x > 1e9)
            return bad(l, "%s.value: %g cycles at %g GHz is larger than the simulator models (at most 10^9 ns)",
                       path, given, ghz);
        unit = "ns";
    }
    if (want) {
        int ok = !strcmp(want, "time") ? !strcmp(unit, "ns")
               : !strcmp(want, "GHz")  ? (!strcmp(unit, "GHz") || !strcmp(unit, "MHz"))
                                       : !strcmp(unit, want);
        if (!ok)
            return bad(l, "%s.unit: '%s' where %s was expected", path, unit,
                       !strcmp(want, "time") ? "ns or cycles" : want);
        if (!strcmp(unit, "MHz"))
            x /= 1000;
        if ((!strcmp(want, "count") || !strcmp(want, "bytes")) && x != (double)(long long)x)
            return bad(l, "%s.value: must be a whole number", path);
        if (!strcmp(want, "ratio") && x > 1)
            return bad(l, "%s.value: %g is not in [0, 1]", path, x);
    }
    *out = x;
    return 0;
}

static int layer_index(const struct sim_machine *m, const char *id)
{
    for (unsigned i = 0; i < m->nlayers; i++)
        if (!strcmp(m->layer[i].id, id))
            return (int)i;
    return -1;
}

int sim_machine_level(const struct sim_machine *m, const char *name)
{
    for (unsigned i = 0; i < m->nlevels; i++)
        if (!strcmp(m->level[i], name))
            return (int)i;
    return -1;
}

unsigned sim_machine_unit(const struct sim_machine *m, unsigned hw, unsigned lvl)
{
    unsigned below = 1;
    for (unsigned k = lvl + 1; k < m->nlevels; k++)
        below *= m->count[k];
    return hw / below;
}

static int load_topology(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *topo = member(l, l->root, "$", "topology", JSON_OBJECT);
    json_t *lv = topo ? member(l, topo, "$.topology", "levels", JSON_ARRAY) : NULL;
    if (!lv)
        return -1;
    size_t nl = json_array_size(lv);
    if (nl < 3 || nl > SIM_MAX_LEVELS)
        return bad(l, "$.topology.levels: %zu levels; 3 to %d expected (socket ... core, smt)", nl, SIM_MAX_LEVELS);
    double threads = 1;
    for (size_t i = 0; i < nl; i++) {
        char p[64];
        snprintf(p, sizeof p, "$.topology.levels[%zu]", i);
        json_t *e = json_array_get(lv, i);
        const char *name = str(l, e, p, "name");
        double c;
        if (!name)
            return -1;
        char pc[80];
        snprintf(pc, sizeof pc, "%s.count", p);
        if (quantity(l, json_object_get(e, "count"), pc, "count", &c))
            return -1;
        if (c < 1 || c > SIM_MAX_THREADS)
            return bad(l, "%s.value: must be from 1 to %d", pc, SIM_MAX_THREADS);
        snprintf(m->level[i], sizeof m->level[i], "%s", name);
        m->count[i] = (unsigned)c;
        threads *= c;
    }
    m->nlevels = (unsigned)nl;
    if (strcmp(m->level[0], "socket") || strcmp(m->level[nl - 2], "core") || strcmp(m->level[nl - 1], "smt"))
        return bad(l, "$.topology.levels: the first level must be 'socket' and the last two 'core', 'smt'");
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->level[i], m->level[j]))
                return bad(l, "$.topology.levels[%zu].name: '%s' repeats", i, m->level[i]);
    double ht;
    if (quantity(l, json_object_get(topo, "hardware_threads"), "$.topology.hardware_threads", "count", &ht))
        return -1;
    if (ht != threads)
        return bad(l, "$.topology.hardware_threads.value: %g, but the level counts multiply to %g", ht, threads);
    if (threads > SIM_MAX_THREADS)
        return bad(l, "$.topology.hardware_threads.value: %g exceeds the simulator's %d", threads, SIM_MAX_THREADS);
    m->threads = (unsigned)threads;
    return 0;
}

static int load_layers(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *ls = member(l, l->root, "$", "latency_layers", JSON_ARRAY);
    if (!ls)
        return -1;
    size_t n = json_array_size(ls);
    if (n < 1 || n > SIM_MAX_LAYERS)
        return bad(l, "$.latency_layers: %zu layers; 1 to %d expected", n, SIM_MAX_LAYERS);
    for (size_t i = 0; i < n; i++) {
        char p[64], q[96];
        snprintf(p, sizeof p, "$.latency_layers[%zu]", i);
        json_t *e = json_array_get(ls, i);
        const char *id = str(l, e, p, "id"), *kind = id ? str(l, e, p, "kind") : NULL;
        if (!kind)
            return -1;
        struct sim_layer *y = &m->layer[i];
        if (strlen(id) >= sizeof y->id || layer_index(m, id) >= 0)
            return bad(l, "%s.id: '%s' is too long or repeats", p, id);
        snprintf(y->id, sizeof y->id, "%s", id);
        m->nlayers = (unsigned)i + 1;
        if (!strcmp(kind, "fixed")) {
            y->path = SIM_PATH_FIXED;
            snprintf(q, sizeof q, "%s.latency", p);
            if (quantity(l, json_object_get(e, "latency"), q, "time", &y->ns))
                return -1;
        } else if (!strcmp(kind, "noc")) {
            const char *path = str(l, e, p, "path");
            if (!path)
                return -1;
            if (!strcmp(path, "direct"))
                y->path = SIM_PATH_DIRECT;
            else if (!strcmp(path, "via_home"))
                y->path = SIM_PATH_VIA_HOME;
            else if (!strcmp(path, "home_roundtrip"))
                y->path = SIM_PATH_HOME_ROUNDTRIP;
            else
                return bad(l, "%s.path: '%s'; expected direct, via_home or home_roundtrip", p, path);
            snprintf(q, sizeof q, "%s.base", p);
            if (quantity(l, json_object_get(e, "base"), q, "time", &y->ns))
                return -1;
        } else {
            return bad(l, "%s.kind: '%s'; expected fixed or noc", p, kind);
        }
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
        return bad(l, "$.interconnect: missing (the machine has a noc layer)");
    const char *kind = str(l, ic, "$.interconnect", "kind");
    if (!kind)
        return -1;
    json_t *co = json_object_get(ic, "coordinates");
    if (!noc && !co)
        return 0;
    const char *at = str(l, ic, "$.interconnect", "attach_level");
    if (!at)
        return -1;
    int a = sim_machine_level(m, at);
    if (a < 0)
        return bad(l, "$.interconnect.attach_level: '%s' is not a topology level", at);
    m->attach = a;
    m->nattach = sim_machine_unit(m, m->threads - 1, (unsigned)a) + 1;
    json_t *dims = member(l, ic, "$.interconnect", "dims", JSON_ARRAY);
    if (!dims)
        return -1;
    size_t nd = json_array_size(dims);
    m->ring = strstr(kind, "ring") != NULL;
    if (nd != (m->ring ? 1u : 2u))
        return bad(l, "$.interconnect.dims: %zu entries; a %s needs %s", nd, kind,
                   m->ring ? "[stops]" : "[columns, rows]");
    double d[2] = { 0, 0 };
    for (size_t i = 0; i < nd; i++) {
        char p[64];
        snprintf(p, sizeof p, "$.interconnect.dims[%zu]", i);
        if (quantity(l, json_array_get(dims, i), p, "count", &d[i]))
            return -1;
        if (d[i] < 1 || d[i] > SIM_MAX_THREADS)
            return bad(l, "%s.value: must be from 1 to %d", p, SIM_MAX_THREADS);
    }
    m->ring_stops = (unsigned)d[0];
    json_t *bi = json_object_get(ic, "bidirectional");
    m->bidirectional = bi ? json_is_true(bi) : 1;
    json_t *pos = co ? member(l, co, "$.interconnect.coordinates", "positions", JSON_ARRAY) : NULL;
    if (!pos)
        return co ? -1 : bad(l, "$.interconnect.coordinates: missing (the machine has a noc layer)");
    if (json_array_size(pos) != m->nattach)
        return bad(l, "$.interconnect.coordinates.positions: %zu entries for %u %s units",
                   json_array_size(pos), m->nattach, at);
    m->pos = calloc(m->nattach, sizeof *m->pos);
    for (unsigned u = 0; u < m->nattach; u++) {
        json_t *e = json_array_get(pos, u);
        if (!json_is_array(e) || json_array_size(e) != nd)
            return bad(l, "$.interconnect.coordinates.positions[%u]: must be %s", u, m->ring ? "[stop]" : "[x, y]");
        for (size_t k = 0; k < nd; k++) {
            json_t *x = json_array_get(e, k);
            if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) >= (json_int_t)d[k])
                return bad(l, "$.interconnect.coordinates.positions[%u][%zu]: must be a whole number in [0, %g)", u,
                           k, d[k]);
            m->pos[u][k] = (unsigned)json_integer_value(x);
        }
        for (unsigned v = 0; v < u; v++)
            if (m->pos[v][0] == m->pos[u][0] && m->pos[v][1] == m->pos[u][1])
                return bad(l, "$.interconnect.coordinates.positions[%u]: same place as [%u]", u, v);
    }
    json_t *hop = member(l, ic, "$.interconnect", "hop", JSON_OBJECT);
    double r, k;
    if (!hop || quantity(l, json_object_get(hop, "router"), "$.interconnect.hop.router", "time", &r) ||
        quantity(l, json_object_get(hop, "link"), "$.interconnect.hop.link", "time", &k))
        return -1;
    m->hop_ns = r + k;
    return 0;
}

/* The README's "Which layer a pair uses". */
static int pair_layer(struct ld *l, json_t *lm, json_t *um, int umlvl, unsigned a, unsigned b, int self)
{
    struct sim_machine *m = l->m;
    if (a == b)
        return self;
    unsigned diff = 0;
    while (diff < m->nlevels && sim_machine_unit(m, a, diff) == sim_machine_unit(m, b, diff))
        diff++;
    const char *id;
    char where[160];
    if (um && (int)diff <= umlvl) {
        unsigned ua = sim_machine_unit(m, a, (unsigned)umlvl), ub = sim_machine_unit(m, b, (unsigned)umlvl);
        json_t *v = json_array_get(json_array_get(json_object_get(um, "layers"), ua), ub);
        snprintf(where, sizeof where, "$.layer_map.unit_matrix.layers[%u][%u]", ua, ub);
        if (!json_is_string(v))
            return bad(l, "%s: no layer for hardware threads %u and %u", where, a, b);
        id = json_string_value(v);
    } else {
        const char *shared = diff == 0 ? "machine" : m->level[diff - 1];
        json_t *v = json_object_get(json_object_get(lm, "by_shared_level"), shared);
        snprintf(where, sizeof where, "$.layer_map.by_shared_level.%s", shared);
        if (!json_is_string(v))
            return bad(l, "%s: missing (hardware threads %u and %u share a %s and nothing below)", where, a, b, shared);
        id = json_string_value(v);
    }
    int k = layer_index(m, id);
    return k >= 0 ? k : bad(l, "%s: '%s' is not a layer id of $.latency_layers", where, id);
}

static int load_layer_map(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *lm = member(l, l->root, "$", "layer_map", JSON_OBJECT);
    const char *self = lm ? str(l, lm, "$.layer_map", "self") : NULL;
    if (!self)
        return -1;
    int s = layer_index(m, self);
    if (s < 0)
        return bad(l, "$.layer_map.self: '%s' is not a layer id of $.latency_layers", self);
    if (m->layer[s].path != SIM_PATH_FIXED)
        return bad(l, "$.layer_map.self: '%s' must be a fixed layer", self);
    m->self_layer = (unsigned)s;
    json_t *um = json_object_get(lm, "unit_matrix");
    int umlvl = -1;
    if (um) {
        const char *lvn = str(l, um, "$.layer_map.unit_matrix", "level");
        if (!lvn)
            return -1;
        umlvl = sim_machine_level(m, lvn);
        if (umlvl < 0)
            return bad(l, "$.layer_map.unit_matrix.level: '%s' is not a topology level", lvn);
        unsigned units = sim_machine_unit(m, m->threads - 1, (unsigned)umlvl) + 1;
        json_t *rows = member(l, um, "$.layer_map.unit_matrix", "layers", JSON_ARRAY);
        if (!rows)
            return -1;
        if (json_array_size(rows) != units)
            return bad(l, "$.layer_map.unit_matrix.layers: %zu rows for %u %s units", json_array_size(rows), units,
                       lvn);
        for (unsigned i = 0; i < units; i++) {
            json_t *row = json_array_get(rows, i);
            if (!json_is_array(row) || json_array_size(row) != units)
                return bad(l, "$.layer_map.unit_matrix.layers[%u]: must be a list of %u entries", i, units);
            for (unsigned j = 0; j < units; j++) { /* null on the diagonal, symmetric elsewhere */
                json_t *x = json_array_get(row, j), *y = json_array_get(json_array_get(rows, j), i);
                if (i == j ? !json_is_null(x) : !json_is_string(x))
                    return bad(l, "$.layer_map.unit_matrix.layers[%u][%u]: must be %s", i, j,
                               i == j ? "null (the diagonal)" : "a layer id");
                if (i != j && (!json_is_string(y) || strcmp(json_string_value(x), json_string_value(y))))
                    return bad(l, "$.layer_map.unit_matrix.layers[%u][%u]: differs from [%u][%u] (the matrix is "
                               "symmetric)", i, j, j, i);
            }
        }
    }
    json_t *by = json_object_get(lm, "by_shared_level");
    const char *key;
    json_t *val;
    json_object_foreach(by, key, val) if (strcmp(key, "machine") && sim_machine_level(m, key) < 0) return bad(
        l, "$.layer_map.by_shared_level.%s: not a topology level (or 'machine')", key);
    size_t T = m->threads;
    m->pair = malloc(T * T);
    for (unsigned a = 0; a < T; a++)
        for (unsigned b = 0; b < T; b++) {
            int k = b < a ? m->pair[(size_t)b * T + a] : pair_layer(l, lm, um, umlvl, a, b, s);
            if (k < 0)
                return -1;
            m->pair[(size_t)a * T + b] = (unsigned char)k;
        }
    for (unsigned k = 0; k < m->nlayers; k++)
        if (m->layer[k].path != SIM_PATH_FIXED && m->attach < 0)
            return bad(l, "$.latency_layers[%u]: a noc layer needs $.interconnect.attach_level", k);
    return 0;
}

static int load_coherence(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *co = member(l, l->root, "$", "coherence", JSON_OBJECT);
    json_t *inv = co ? member(l, co, "$.coherence", "invalidation", JSON_OBJECT) : NULL;
    const char *model = inv ? str(l, inv, "$.coherence.invalidation", "model") : NULL;
    if (!model)
        return -1;
    if (!strcmp(model, "none")) {
        if (m->attach < 0)
            return bad(l, "$.coherence.invalidation.model: 'none' (every access at the line's home) needs "
                       "$.interconnect.attach_level and coordinates to place the homes");
        m->inval_none = 1;
    } else if (!strcmp(model, "alpha")) {
        json_t *al = member(l, inv, "$.coherence.invalidation", "alpha", JSON_OBJECT);
        if (!al)
            return -1;
        for (unsigned k = 0; k < m->nlayers; k++) {
            char p[96];
            snprintf(p, sizeof p, "$.coherence.invalidation.alpha.%s", m->layer[k].id);
            json_t *q = json_object_get(al, m->layer[k].id);
            if (!q) {
                if (k == m->self_layer)
                    continue;
                return bad(l, "%s: missing (every layer other than self needs its α)", p);
            }
            if (quantity(l, q, p, "ratio", &m->layer[k].alpha))
                return -1;
        }
        const char *key;
        json_t *q;
        json_object_foreach(al, key, q) if (layer_index(m, key) < 0) return bad(
            l, "$.coherence.invalidation.alpha.%s: not a layer id of $.latency_layers", key);
    } else {
        return bad(l, "$.coherence.invalidation.model: '%s'; expected alpha or none", model);
    }
    json_t *at = member(l, co, "$.coherence", "atomic", JSON_OBJECT);
    if (!at || quantity(l, json_object_get(at, "extra"), "$.coherence.atomic.extra", "time", &m->atomic_extra_ns))
        return -1;
    json_t *home = json_object_get(co, "home");
    if (home) {
        const char *pol = str(l, home, "$.coherence.home", "policy");
        if (!pol)
            return -1;
        if (strcmp(pol, "hash") && strcmp(pol, "first-touch"))
            return bad(l, "$.coherence.home.policy: '%s'; expected hash or first-touch", pol);
        m->home_first_touch = !strcmp(pol, "first-touch");
    }
    return 0;
}

/* $.devices (optional): an object of hardware-barrier devices (sim/hw), each an object whose members are
 * a description string or quantities; a device reads its quantities later (sim_machine_param), so they
 * are checked here, at load, like every other number. */
static int load_devices(struct ld *l)
{
    json_t *devs = json_object_get(l->root, "devices"), *dev, *q;
    const char *name, *key;
    if (!devs)
        return 0;
    if (!json_is_object(devs))
        return bad(l, "$.devices: must be an object of devices, e.g. {\"hbs\": {...}}");
    json_object_foreach(devs, name, dev) {
        char p[160], pq[320];
        snprintf(p, sizeof p, "$.devices.%s", name);
        if (!json_is_object(dev))
            return bad(l, "%s: must be an object (a device's description and quantities)", p);
        json_object_foreach(dev, key, q) {
            double x;
            snprintf(pq, sizeof pq, "%s.%s", p, key);
            if (!strcmp(key, "description")) {
                if (!json_is_string(q))
                    return bad(l, "%s: must be a string", pq);
            } else if (json_is_object(q) && quantity(l, q, pq, NULL, &x)) {
                return -1;
            }
        }
    }
    return 0;
}

static int load(struct ld *l)
{
    struct sim_machine *m = l->m;
    if (!json_is_object(l->root))
        return bad(l, "$: must be an object");
    const char *fmt = str(l, l->root, "$", "format");
    if (!fmt)
        return -1;
    if (strcmp(fmt, "andgate-machine/1"))
        return bad(l, "$.format: '%s'; expected andgate-machine/1", fmt);
    const char *name = str(l, l->root, "$", "name"), *title = name ? str(l, l->root, "$", "title") : NULL;
    if (!title)
        return -1;
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->title, sizeof m->title, "%s", title);
    json_t *clock = member(l, l->root, "$", "clock", JSON_OBJECT);
    if (!clock || quantity(l, json_object_get(clock, "core"), "$.clock.core", "GHz", &m->ghz))
        return -1;
    if (m->ghz <= 0)
        return bad(l, "$.clock.core.value: must be positive");
    double line;
    if (quantity(l, json_object_get(l->root, "cache_line"), "$.cache_line", "bytes", &line))
        return -1;
    if (line < 16 || line > 1024 || ((unsigned)line & ((unsigned)line - 1)))
        return bad(l, "$.cache_line.value: %g bytes; the simulator models lines of a power of two from 16 to "
                   "1024 bytes", line);
    m->line_bytes = (unsigned)line;
    if (load_topology(l) || load_layers(l) || load_interconnect(l) || load_layer_map(l) || load_coherence(l) ||
        load_devices(l))
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
            return bad(l, "$.caches[%zu].shared_by: '%s' is not a topology level", i, json_string_value(by));
        if (k >= 0 && (unsigned)k < core && (unsigned)k > m->cache_level)
            m->cache_level = (unsigned)k;
    }
    return 0;
}

/* The search path, in order: $ANDGATE_MACHINES (':'-separated), the XDG data directory, the installed
 * and the source sim/machines. Writes up to max directories into dirs (storage in buf). */
static unsigned search_path(char *buf, size_t len, const char **dirs, unsigned max)
{
    unsigned n = 0;
    size_t used = 0;
    const char *env = getenv("ANDGATE_MACHINES"), *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (env) {
        snprintf(buf, len, "%s", env);
        used = strlen(buf) + 1;
        for (char *save, *d = strtok_r(buf, ":", &save); d && n < max; d = strtok_r(NULL, ":", &save))
            dirs[n++] = d;
    }
    if (used < len && n < max) {
        if (x && *x)
            snprintf(buf + used, len - used, "%s/andgate/machines", x);
        else
            snprintf(buf + used, len - used, "%s/.local/share/andgate/machines", home ? home : "");
        dirs[n++] = buf + used;
    }
    static const char installed[] = AG_MACHINES_DIR, source[] = AG_SOURCE_MACHINES_DIR;
    if (n < max && installed[0])
        dirs[n++] = installed;
    if (n < max && source[0])
        dirs[n++] = source;
    return n;
}

static int find_file(const char *name, char *out, size_t len)
{
    if (strchr(name, '/') || (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".json"))) {
        snprintf(out, len, "%s", name);
        return 1;
    }
    char buf[4096];
    const char *dirs[32];
    unsigned nd = search_path(buf, sizeof buf, dirs, 32);
    for (unsigned i = 0; i < nd; i++)
        if (strlen(dirs[i]) + strlen(name) + 7 <= len &&
            (snprintf(out, len, "%s/%s.json", dirs[i], name), access(out, R_OK) == 0))
            return 1;
    return 0;
}

unsigned sim_machine_names(char names[][64], unsigned max)
{
    char buf[4096];
    const char *dirs[32];
    unsigned nd = search_path(buf, sizeof buf, dirs, 32), n = 0;
    for (unsigned i = 0; i < nd; i++) {
        DIR *d = opendir(dirs[i]);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            size_t l = strlen(e->d_name);
            if (l <= 5 || l - 5 >= 64 || strcmp(e->d_name + l - 5, ".json") || !strcmp(e->d_name, "schema.json"))
                continue;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(l - 5), e->d_name);
            unsigned k = 0;
            while (k < n && strcmp(names[k], name))
                k++;
            if (k == n && n < max)
                snprintf(names[n++], 64, "%s", name);
        }
        if (d)
            closedir(d);
    }
    return n;
}

int sim_machine_load(const char *name_or_file, struct sim_machine *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (!find_file(name_or_file, m->file, sizeof m->file)) {
        if (!strcmp(name_or_file, "host"))
            snprintf(err, errlen, "machine 'host': no host.json yet; `andgate info --measure` writes it");
        else
            snprintf(err, errlen, "machine '%s': no %s.json in $ANDGATE_MACHINES, ~/.local/share/andgate/machines "
                                  "or the installed machines (andgate sim --machines lists them)",
                     name_or_file, name_or_file);
        return -1;
    }
    json_error_t je;
    json_t *root = json_load_file(m->file, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "%s:%d:%d: %s", m->file, je.line, je.column, je.text);
        return -1;
    }
    struct ld l = { m, root, err, errlen };
    char msg[400];
    l.err = msg, l.errlen = sizeof msg;
    if (load(&l)) {
        snprintf(err, errlen, "%s: %s", m->file, msg);
        json_decref(root);
        free(m->pair), free(m->pos);
        m->pair = NULL, m->pos = NULL;
        return -1;
    }
    m->doc = root;
    return 0;
}

void sim_machine_free(struct sim_machine *m)
{
    json_decref(m->doc);
    free(m->pair);
    free(m->pos);
    memset(m, 0, sizeof *m);
}

unsigned sim_machine_hops(const struct sim_machine *m, unsigned u, unsigned v)
{
    if (!m->pos)
        return 0;
    if (!m->ring) {
        unsigned dx = m->pos[u][0] > m->pos[v][0] ? m->pos[u][0] - m->pos[v][0] : m->pos[v][0] - m->pos[u][0];
        unsigned dy = m->pos[u][1] > m->pos[v][1] ? m->pos[u][1] - m->pos[v][1] : m->pos[v][1] - m->pos[u][1];
        return dx + dy;
    }
    unsigned N = m->ring_stops, d = (m->pos[v][0] + N - m->pos[u][0]) % N;
    return m->bidirectional && N - d < d ? N - d : d;
}

unsigned sim_machine_attach_unit(const struct sim_machine *m, unsigned hw)
{
    return m->attach < 0 ? 0 : sim_machine_unit(m, hw, (unsigned)m->attach);
}

double sim_machine_cost(const struct sim_machine *m, unsigned a, unsigned b, unsigned home)
{
    const struct sim_layer *y = &m->layer[m->pair[(size_t)a * m->threads + b]];
    if (y->path == SIM_PATH_FIXED)
        return y->ns;
    unsigned ua = sim_machine_attach_unit(m, a), ub = sim_machine_attach_unit(m, b), hops;
    switch (y->path) {
    case SIM_PATH_DIRECT:
        hops = sim_machine_hops(m, ua, ub);
        break;
    case SIM_PATH_VIA_HOME:
        hops = sim_machine_hops(m, ua, home) + sim_machine_hops(m, home, ub) + sim_machine_hops(m, ub, ua);
        break;
    default: /* home_roundtrip: there and back (on a unidirectional ring, not the same way) */
        hops = sim_machine_hops(m, ua, home) + sim_machine_hops(m, home, ua);
        break;
    }
    return y->ns + hops * m->hop_ns;
}

double sim_machine_alpha(const struct sim_machine *m, unsigned a, unsigned b)
{
    return m->layer[m->pair[(size_t)a * m->threads + b]].alpha;
}

int sim_machine_param(const struct sim_machine *m, const char *path, double *value, char *err, size_t errlen)
{
    char buf[256], where[300] = "$";
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = m->doc;
    for (char *save, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
        v = json_is_object(v) ? json_object_get(v, k) : NULL;
        size_t w = strlen(where);
        snprintf(where + w, sizeof where - w, ".%s", k);
        if (!v) {
            snprintf(err, errlen, "%s: %s: missing", m->file, where);
            return -1;
        }
    }
    char msg[400];
    struct ld l = { (struct sim_machine *)m, m->doc, msg, sizeof msg };
    if (quantity(&l, v, where, NULL, value)) {
        snprintf(err, errlen, "%s: %s", m->file, msg);
        return -1;
    }
    return 0;
}

int sim_place(const struct sim_machine *m, unsigned n, const char *policy, unsigned *hw, char *err, size_t errlen)
{
    if (n > m->threads) {
        snprintf(err, errlen, "%u participants on %s, which has %u hardware threads", n, m->name, m->threads);
        return -1;
    }
    unsigned smt = m->count[m->nlevels - 1], cores = m->threads / smt, sockets = m->count[0];
    if (!strcmp(policy, "compact")) {
        for (unsigned t = 0; t < n; t++)
            hw[t] = t;
    } else if (!strcmp(policy, "cores")) {
        for (unsigned t = 0; t < n; t++)
            hw[t] = (t % cores) * smt + t / cores;
    } else if (!strcmp(policy, "scatter")) {
        unsigned per = cores / sockets; /* cores per socket */
        for (unsigned t = 0; t < n; t++) {
            unsigned core = t % cores, s = core % sockets, c = core / sockets;
            hw[t] = (s * per + c) * smt + t / cores;
        }
    } else {
        snprintf(err, errlen, "placement '%s': expected cores, compact or scatter", policy);
        return -1;
    }
    return 0;
}
