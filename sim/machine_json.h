/* machine_json.h — reading a machine description's JSON (private to sim/machine_*.c): every read names
 * the field by its JSON path in the refusal. */
#ifndef AG_SIM_MACHINE_JSON_H
#define AG_SIM_MACHINE_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "machine.h"

struct ld {
    struct sim_machine *m;
    json_t *root;
    char *err;
    size_t errlen;
};

/* The refusal: the message into l->err; returns -1. */
int ld_bad(struct ld *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* obj.key of JSON type (-1: any; a whole number passes for a number), or NULL after a refusal. */
json_t *ld_member(struct ld *l, json_t *obj, const char *path, const char *key, int type);
const char *ld_str(struct ld *l, json_t *obj, const char *path, const char *key);
/* obj.key naming a topology level: the level, its name in *name and its number of units in *units; -1
 * after a refusal. */
int ld_level(struct ld *l, json_t *obj, const char *path, const char *key, const char **name, unsigned *units);
/* A quantity {value, unit, source}: the value, in ns for times. want: "time", "count", "GHz", "bytes",
 * "ratio" or NULL for anything. 0, or -1 after a refusal. */
int ld_quantity(struct ld *l, json_t *q, const char *path, const char *want, double *out);

/* machine_layer_map.c: $.layer_map, after the topology, the layers and the interconnect; fills the tables of
 * sim_machine_layer_of. 0, or -1 after a refusal. */
int ld_layer_map(struct ld *l);
/* machine_optional.c: $.devices and $.os, checked at load. 0, or -1 after a refusal. */
int ld_devices(struct ld *l);
int ld_os(struct ld *l);
/* $.coherence.cold_transfer and paused_transfer (optional), per layer id, after the layers are loaded. */
int ld_transfer_times(struct ld *l, json_t *coherence);
/* machine_contention.c: $.interconnect.links, $.coherence.three_leg and smt_issue. 0, or -1 after a refusal. */
int ld_contention(struct ld *l);
/* machine_contention.c: $.coherence.occupancy (oc: that member or NULL). 0, or -1 after a refusal. */
int ld_occupancy(struct ld *l, json_t *oc);

#endif
