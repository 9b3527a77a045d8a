/* devices.c — the list of sim/hw devices (hw.h): the papers' hardware barriers, one file each.
 * docs/sim-hw.md describes every device: idea, source, cost model, parameters, the paper's figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"

extern const struct sim_hw sim_hw_harp, sim_hw_harp_prototype, sim_hw_barwait, sim_hw_photonic, sim_hw_reflex,
    sim_hw_subutai;

const struct sim_hw *const sim_hw_devices[] = {
    &sim_hw_harp,    /* 000 §3: HARP CPU+FPGA barrier, projected path (harp-broadwell) */
    &sim_hw_harp_prototype, /* 000 §3.3: the same, the prototype's PCIe-class path (harp-broadwell) */
    &sim_hw_barwait, /* 000 §4: barinit/barwait + HBS (knl7210, harp-broadwell, xeon8160x8, opteron6272x4) */
    &sim_hw_photonic, /* 000 §5: silicon-photonic barrier (knl7210) */
    &sim_hw_reflex,  /* 001: Reflex barrier on the STN (tile64) */
    &sim_hw_subutai, /* 004 §V: Subutai NI barrier (noc64) */
    NULL,
};

const struct sim_hw *sim_hw_find(const char *name)
{
    for (const struct sim_hw *const *d = sim_hw_devices; name && *d; d++)
        if (!strcmp((*d)->name, name))
            return *d;
    return NULL;
}

int sim_hw_any(const struct sim_machine *m)
{
    unsigned hw[2] = { 0, 0 }, n = m->threads > 1 ? 2 : 1;
    char err[600];
    if (sim_place(m, n, "cores", hw, err, sizeof err))
        return 0;
    for (const struct sim_hw *const *d = sim_hw_devices; *d; d++) {
        struct sim_hw_ctx c = { .m = m, .n = n, .hw = hw };
        if ((*d)->setup(&c, err, sizeof err) == 0) { /* a refused setup has freed what it made */
            if ((*d)->teardown)
                (*d)->teardown(&c);
            return 1;
        }
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

unsigned sim_hw_machines(char *buf, size_t len)
{
    char names[128][64], err[600];
    unsigned n = sim_machine_names(names, 128), k = 0;
    size_t used = 0;
    qsort(names, n, sizeof *names, by_name);
    buf[0] = '\0';
    for (unsigned i = 0; i < n; i++) {
        struct sim_machine m;
        if (sim_machine_load(names[i], &m, err, sizeof err))
            continue;
        if (sim_hw_any(&m) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", k++ ? ", " : "", names[i]);
        sim_machine_free(&m);
    }
    return k;
}
