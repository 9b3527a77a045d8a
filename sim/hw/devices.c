/* devices.c — the list of sim/hw devices (hw.h): the papers' hardware barriers, one file each.
 * docs/sim-hw.md describes every device: idea, source, cost model, parameters, the paper's figures. */
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
