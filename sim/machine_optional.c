/* machine_optional.c — the optional sections of a machine description: $.devices (the hardware barrier
 * devices of sim/hw read their quantities later), $.os (the OS's costs for a sleeping waiter, written
 * by `andgate info --measure`), $.coherence.cold_transfer (a line moved to a thread that was not
 * polling it, measured apart from the hand-off that the layer latency is) and $.coherence.paused_transfer
 * (a hand-off's re-read by a waiter that polled with pause). All checked whole at load, like every other number. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "machine_json.h"

const char *const sim_os_names[SIM_OS_N] = { "futex_wait", "futex_wake", "wakeup", "context_switch", "yield" };

/* $.devices (optional): an object of hardware-barrier devices (sim/hw), each an object whose members are
 * a description string or quantities; a device reads its quantities later (sim_machine_param), so they
 * are checked here, at load, like every other number. */
int ld_devices(struct ld *l)
{
    json_t *devs = json_object_get(l->root, "devices"), *dev, *q;
    const char *name, *key;
    if (!devs)
        return 0;
    if (!json_is_object(devs))
        return ld_bad(l, "$.devices: must be an object of devices, e.g. {\"hbs\": {...}}");
    json_object_foreach(devs, name, dev) {
        char p[160], pq[320];
        snprintf(p, sizeof p, "$.devices.%s", name);
        if (!json_is_object(dev))
            return ld_bad(l, "%s: must be an object (a device's description and quantities)", p);
        json_object_foreach(dev, key, q) {
            double x;
            snprintf(pq, sizeof pq, "%s.%s", p, key);
            if (!strcmp(key, "description")) {
                if (!json_is_string(q))
                    return ld_bad(l, "%s: must be a string", pq);
            } else if (!json_is_object(q)) {
                return ld_bad(l, "%s: must be a quantity {value, unit, source} or the description", pq);
            } else if (ld_quantity(l, q, pq, NULL, &x)) {
                return -1;
            }
        }
    }
    return 0;
}

/* $.os (optional): {futex_wait, futex_wake, wakeup, context_switch, yield}, each a time quantity; other
 * names are refused (a misspelt entry would otherwise be silently absent). */
int ld_os(struct ld *l)
{
    json_t *os = json_object_get(l->root, "os"), *q;
    const char *key;
    for (unsigned k = 0; k < SIM_OS_N; k++)
        l->m->os_ns[k] = -1;
    if (!os)
        return 0;
    if (!json_is_object(os))
        return ld_bad(l, "$.os: must be an object of time quantities {futex_wait, futex_wake, wakeup, context_switch, yield}");
    json_object_foreach(os, key, q) {
        char p[160];
        unsigned k = 0;
        while (k < SIM_OS_N && strcmp(sim_os_names[k], key))
            k++;
        snprintf(p, sizeof p, "$.os.%s", key);
        if (k == SIM_OS_N)
            return ld_bad(l, "%s: unknown entry; expected futex_wait, futex_wake, wakeup, context_switch or yield", p);
        if (ld_quantity(l, q, p, "time", &l->m->os_ns[k]))
            return -1;
    }
    return 0;
}

/* $.coherence.cold_transfer and $.coherence.paused_transfer (optional): {layer id: time} each, a line
 * transfer to a thread that was not polling the line, and a hand-off's re-read by a waiter that polled it
 * with pause (sim/machines/README.md, "Cold transfers", "Paused hand-offs"); a layer a key does not name
 * keeps its latency for that kind of transfer. */
static int ld_layer_times(struct ld *l, json_t *co, const char *key, size_t field)
{
    json_t *ct = json_object_get(co, key), *q;
    const char *id;
    if (!ct)
        return 0;
    if (!json_is_object(ct))
        return ld_bad(l, "$.coherence.%s: must be an object of time quantities by layer id", key);
    json_object_foreach(ct, id, q) {
        char p[160];
        int k = sim_machine_layer(l->m, id);
        snprintf(p, sizeof p, "$.coherence.%s.%s", key, id);
        if (k < 0)
            return ld_bad(l, "%s: not a layer id of $.latency_layers", p);
        double *v = (double *)((char *)&l->m->layer[k] + field);
        if (ld_quantity(l, q, p, "time", v))
            return -1;
        if (*v <= 0) /* 0 stands for "not given" (machine.h) */
            return ld_bad(l, "%s.value: must be positive", p);
    }
    return 0;
}

int ld_transfer_times(struct ld *l, json_t *co)
{
    return ld_layer_times(l, co, "cold_transfer", offsetof(struct sim_layer, cold_ns)) ||
           ld_layer_times(l, co, "paused_transfer", offsetof(struct sim_layer, paused_ns));
}
