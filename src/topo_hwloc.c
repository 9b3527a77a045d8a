/* topo_hwloc.c — the topology through hwloc (topo.h, ag_topo_hwloc_read).
 * Linked into libandgate.so and libandgate.a, and built alone as libandgate-hwloc.so: the module that
 * libandgate-preload.so opens (preload/hwloc_module.c) only when sysfs cannot describe every CPU or
 * ANDGATE_TOPOLOGY=hwloc asks for it, so that a program under the shim does not load hwloc and its
 * libraries at start (docs/preload.md, the paragraph on what the dynamic loader maps).
 *
 * The cache group is the cache level just above the core that several cores share, as topo.c's sysfs
 * reader finds it: L2 where some L2 holds more than one core, else L3 (L2 where there is no L3). */
#include "topo.h"

#include <hwloc.h>
#include <stdlib.h>

static int cmp_cpu(const void *a, const void *b)
{
    const struct ag_cpuinfo *x = a, *y = b;
    return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int ag_topo_hwloc_read(struct ag_topo *t, struct ag_cpuinfo *(*map)(size_t n))
{
    hwloc_topology_t h;
    if (hwloc_topology_init(&h))
        return -1;
    if (hwloc_topology_load(h)) {
        hwloc_topology_destroy(h);
        return -1;
    }
    int npu = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    if (npu <= 0) {
        hwloc_topology_destroy(h);
        return -1;
    }
    /* cache level: L2 when some L2 holds more than one core */
    int level = 3;
    for (int i = 0; i < hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_L2CACHE); i++) {
        hwloc_obj_t l2 = hwloc_get_obj_by_type(h, HWLOC_OBJ_L2CACHE, i);
        if (hwloc_get_nbobjs_inside_cpuset_by_type(h, l2->cpuset, HWLOC_OBJ_CORE) > 1)
            level = 2;
    }
    if (level == 3 && hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_L3CACHE) == 0)
        level = 2;
    hwloc_obj_type_t ctype = level == 2 ? HWLOC_OBJ_L2CACHE : HWLOC_OBJ_L3CACHE;
    struct ag_cpuinfo *v = map((size_t)npu);
    if (!v) {
        hwloc_topology_destroy(h);
        return -1;
    }
    int nnuma = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < npu; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, i);
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
        hwloc_obj_t cache = hwloc_get_ancestor_obj_by_type(h, ctype, pu);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, pu);
        v[i].cpu = (int)pu->os_index;
        v[i].core = core ? (int)core->logical_index : (int)pu->logical_index;
        v[i].package = pkg ? (int)pkg->logical_index : 0;
        v[i].cache = cache ? (int)cache->logical_index : v[i].package;
        v[i].numa = 0;
        for (int n = 0; n < nnuma; n++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, n);
            if (hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
                v[i].numa = (int)node->os_index;
                break;
            }
        }
    }
    hwloc_topology_destroy(h);
    qsort(v, (size_t)npu, sizeof *v, cmp_cpu);
    t->cpu = v;
    t->ncpus = t->cap = (unsigned)npu;
    t->cache_level = level;
    t->source = "hwloc";
    return 0;
}
