/* machine_json.c — the JSON reads of the machine loader (machine_json.h): members, strings and
 * quantities with their units, sources and ranges; and sim_machine_param, a quantity read on demand. */
#define _GNU_SOURCE
#include "machine_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ld_bad(struct ld *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->err, l->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

json_t *ld_member(struct ld *l, json_t *obj, const char *path, const char *key, int type)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!v) {
        ld_bad(l, "%s.%s: missing", path, key);
        return NULL;
    }
    if (type >= 0 && (int)json_typeof(v) != type &&
        !(type == JSON_REAL && json_is_integer(v))) {
        const char *const names[] = { "an object", "an array", "a string", "a whole number", "a number",
                                             "true or false", "true or false", "null" };
        ld_bad(l, "%s.%s: must be %s", path, key, names[type]);
        return NULL;
    }
    return v;
}

const char *ld_str(struct ld *l, json_t *obj, const char *path, const char *key)
{
    json_t *v = ld_member(l, obj, path, key, JSON_STRING);
    return v ? json_string_value(v) : NULL;
}

int ld_level(struct ld *l, json_t *obj, const char *path, const char *key, const char **name, unsigned *units)
{
    const char *n = ld_str(l, obj, path, key);
    if (!n)
        return -1;
    int lvl = sim_machine_level(l->m, n);
    if (lvl < 0)
        return ld_bad(l, "%s.%s: '%s' is not a topology level", path, key, n);
    *name = n;
    *units = sim_machine_unit(l->m, l->m->threads - 1, (unsigned)lvl) + 1;
    return lvl;
}

/* A quantity {value, unit, source}: the value, in ns for times. want: "time", "count", "GHz", "bytes",
 * "ratio" or NULL for anything. */
int ld_quantity(struct ld *l, json_t *q, const char *path, const char *want, double *out)
{
    if (!q)
        return ld_bad(l, "%s: missing", path);
    if (!json_is_object(q))
        return ld_bad(l, "%s: must be a quantity {value, unit, source}", path);
    json_t *v = json_object_get(q, "value"), *u = json_object_get(q, "unit"), *s = json_object_get(q, "source");
    if (!json_is_number(v))
        return ld_bad(l, "%s.value: must be a number", path);
    if (!json_is_string(u))
        return ld_bad(l, "%s.unit: must be a string", path);
    if (!json_is_string(s) || json_string_length(s) < 8)
        return ld_bad(l, "%s.source: every number needs its source (see sim/machines/README.md)", path);
    double x = json_number_value(v), given = x;
    const char *unit = json_string_value(u);
    if (!isfinite(x) || x < 0)
        return ld_bad(l, "%s.value: must be a finite number, not negative", path);
    /* every quantity the model reads is at most 10^9 of its unit (a second in ns, 10^9 cycles, a
     * billion units): larger values overflow the engine's virtual clock or counters */
    if (x > 1e9)
        return ld_bad(l, "%s.value: %g is larger than the simulator models (at most 10^9 %s)", path, x, unit);
    if (want && !strcmp(want, "GHz") && strcmp(unit, "GHz") && strcmp(unit, "MHz"))
        return ld_bad(l, "%s.unit: '%s' where GHz or MHz was expected", path, unit);
    if (!strcmp(unit, "cycles")) {
        json_t *c = json_object_get(q, "clock");
        const char *dom = json_is_string(c) ? json_string_value(c) : "core";
        json_t *clk = json_object_get(json_object_get(l->root, "clock"), dom);
        if (!clk)
            return ld_bad(l, "%s.clock: clock domain '%s' is not in $.clock", path, dom);
        double ghz;
        char p[96];
        snprintf(p, sizeof p, "$.clock.%s", dom);
        if (ld_quantity(l, clk, p, "GHz", &ghz))
            return -1;
        if (ghz <= 0)
            return ld_bad(l, "%s.value: must be positive", p);
        x /= ghz;
        if (x > 1e9)
            return ld_bad(l, "%s.value: %g cycles at %g GHz is larger than the simulator models (at most 10^9 ns)",
                       path, given, ghz);
        unit = "ns";
    }
    if (want) {
        int ok = !strcmp(want, "time") ? !strcmp(unit, "ns")
               : !strcmp(want, "GHz")  ? (!strcmp(unit, "GHz") || !strcmp(unit, "MHz"))
                                       : !strcmp(unit, want);
        if (!ok)
            return ld_bad(l, "%s.unit: '%s' where %s was expected", path, unit,
                       !strcmp(want, "time") ? "ns or cycles" : want);
        if (!strcmp(unit, "MHz"))
            x /= 1000;
        if (!strcmp(want, "GHz") && x > 100)
            return ld_bad(l, "%s.value: %g GHz; a clock of at most 100 GHz was expected", path, x);
        if ((!strcmp(want, "count") || !strcmp(want, "bytes")) && x != (double)(long long)x)
            return ld_bad(l, "%s.value: must be a whole number", path);
        if (!strcmp(want, "ratio") && x > 1)
            return ld_bad(l, "%s.value: %g is not in [0, 1]", path, x);
    }
    *out = x;
    return 0;
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
    if (ld_quantity(&l, v, where, NULL, value)) {
        snprintf(err, errlen, "%s: %s", m->file, msg);
        return -1;
    }
    return 0;
}
