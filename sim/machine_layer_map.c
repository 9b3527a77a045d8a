/* machine_layer_map.c — $.layer_map of a machine description (sim/machines/README.md, "Which layer a pair
 * uses"): the self layer, the unit matrix and by_shared_level, checked whole at load and turned into the
 * tables sim_machine_layer_of reads (machine_cost.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine_json.h"

/* The layer id a path in $.layer_map names, as an index into $.latency_layers */
static int layer_id(struct ld *l, const char *where, json_t *v)
{
    if (!json_is_string(v))
        return ld_bad(l, "%s: must be a layer id", where);
    int k = sim_machine_layer(l->m, json_string_value(v));
    return k >= 0 ? k : ld_bad(l, "%s: '%s' is not a layer id of $.latency_layers", where, json_string_value(v));
}

/* The README's "Which layer a pair uses", as sim_machine_layer_of reads it: every hardware thread's unit
 * at every level; the unit matrix's layers (validated by the caller); and for every level at which two
 * threads' units can first differ, outside the unit matrix's reach, by_shared_level's layer for the
 * level they share. */
static int pair_layers(struct ld *l, json_t *lm, json_t *um, int umlvl)
{
    struct sim_machine *m = l->m;
    unsigned T = m->threads, L = m->nlevels;
    if (sim_machine_number_units(m))
        return ld_bad(l, "out of memory");
    m->um_level = umlvl;
    if (um) {
        unsigned n = m->um_units = sim_machine_unit(m, T - 1, (unsigned)umlvl) + 1;
        json_t *rows = json_object_get(um, "layers");
        if (!(m->um = calloc((size_t)n * n, 1)))
            return ld_bad(l, "out of memory");
        for (unsigned i = 0; i < n; i++)
            for (unsigned j = 0; j < n; j++) {
                char where[80];
                snprintf(where, sizeof where, "$.layer_map.unit_matrix.layers[%u][%u]", i, j);
                int k = i == j ? 0 : layer_id(l, where, json_array_get(json_array_get(rows, i), j));
                if (k < 0)
                    return -1;
                m->um[i * n + j] = (unsigned char)k;
            }
    }
    for (unsigned d = L; d-- > 0;) { /* innermost first: threads 0 and below(d) are the first such pair */
        if (m->count[d] < 2 || (um && (int)d <= umlvl))
            continue;
        unsigned b = 1;
        for (unsigned k = d + 1; k < L; k++)
            b *= m->count[k];
        const char *shared = d == 0 ? "machine" : m->level[d - 1];
        char where[160];
        snprintf(where, sizeof where, "$.layer_map.by_shared_level.%s", shared);
        json_t *v = json_object_get(json_object_get(lm, "by_shared_level"), shared);
        if (!v)
            return ld_bad(l, "%s: missing (hardware threads 0 and %u share a %s and nothing below)", where, b,
                          shared);
        int k = layer_id(l, where, v);
        if (k < 0)
            return -1;
        m->by_diff[d] = (unsigned char)k;
    }
    return 0;
}

/* $.layer_map.unit_matrix: its level, and a matrix of that level's units with null on the diagonal and
 * layer ids elsewhere, symmetric (pair_layers resolves the ids). The level, or -1 after a refusal. */
static int unit_matrix_level(struct ld *l, json_t *um)
{
    const char *lvn;
    unsigned units;
    int umlvl = ld_level(l, um, "$.layer_map.unit_matrix", "level", &lvn, &units);
    if (umlvl < 0)
        return -1;
    json_t *rows = ld_member(l, um, "$.layer_map.unit_matrix", "layers", JSON_ARRAY);
    if (!rows)
        return -1;
    if (json_array_size(rows) != units)
        return ld_bad(l, "$.layer_map.unit_matrix.layers: %zu rows for %u %s units", json_array_size(rows), units,
                      lvn);
    for (unsigned i = 0; i < units; i++) {
        json_t *row = json_array_get(rows, i);
        if (!json_is_array(row) || json_array_size(row) != units)
            return ld_bad(l, "$.layer_map.unit_matrix.layers[%u]: must be a list of %u entries", i, units);
        for (unsigned j = 0; j < units; j++) { /* null on the diagonal, symmetric elsewhere */
            json_t *x = json_array_get(row, j), *y = json_array_get(json_array_get(rows, j), i);
            if (i == j ? !json_is_null(x) : !json_is_string(x))
                return ld_bad(l, "$.layer_map.unit_matrix.layers[%u][%u]: must be %s", i, j,
                              i == j ? "null (the diagonal)" : "a layer id");
            if (i != j && (!json_is_string(y) || strcmp(json_string_value(x), json_string_value(y))))
                return ld_bad(l, "$.layer_map.unit_matrix.layers[%u][%u]: differs from [%u][%u] (the matrix is "
                              "symmetric)", i, j, j, i);
        }
    }
    return umlvl;
}

int ld_layer_map(struct ld *l)
{
    struct sim_machine *m = l->m;
    json_t *lm = ld_member(l, l->root, "$", "layer_map", JSON_OBJECT);
    const char *self = lm ? ld_str(l, lm, "$.layer_map", "self") : NULL;
    if (!self)
        return -1;
    int s = sim_machine_layer(m, self);
    if (s < 0)
        return ld_bad(l, "$.layer_map.self: '%s' is not a layer id of $.latency_layers", self);
    if (m->layer[s].path != SIM_PATH_FIXED)
        return ld_bad(l, "$.layer_map.self: '%s' must be a fixed layer", self);
    m->self_layer = (unsigned)s;
    json_t *um = json_object_get(lm, "unit_matrix");
    int umlvl = um ? unit_matrix_level(l, um) : -1;
    if (um && umlvl < 0)
        return -1;
    json_t *by = json_object_get(lm, "by_shared_level");
    const char *key;
    json_t *val;
    json_object_foreach(by, key, val) {
        if (strcmp(key, "machine") && sim_machine_level(m, key) < 0)
            return ld_bad(l, "$.layer_map.by_shared_level.%s: not a topology level (or 'machine')", key);
    }
    if (pair_layers(l, lm, um, umlvl))
        return -1;
    for (unsigned k = 0; k < m->nlayers; k++)
        if (m->layer[k].path != SIM_PATH_FIXED && m->attach < 0)
            return ld_bad(l, "$.latency_layers[%u]: a noc layer needs $.interconnect.attach_level", k);
    return 0;
}
