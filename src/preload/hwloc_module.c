/* hwloc_module.c — libandgate-preload.so's ag_topo_hwloc_read (topo.h): the shim does not link hwloc.
 *
 * Linked, hwloc and the libraries it needs (libudev, libm) were mapped and relocated into every program
 * the shim was preloaded into, before main: 0.3-0.6 ms more per process than the shim without them on
 * the 2-CPU VM (`perf stat -r 300` of an empty program; docs/results.md), for a topology the shim reads
 * from sysfs whenever sysfs describes every CPU. So hwloc is reached through libandgate-hwloc.so, a
 * module holding topo_hwloc.c and linked with hwloc, installed beside the shim and opened the first time
 * the shim needs hwloc (ANDGATE_TOPOLOGY=hwloc, or sysfs falling short) — once per process, and never
 * closed. When it cannot be opened the topology comes from sysfs, as in a build without hwloc;
 * ANDGATE_VERBOSE=1 says why. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "preload.h"
#include "topo.h"

typedef int (*reader_fn)(struct ag_topo *, struct ag_cpuinfo *(*)(size_t));

/* The module beside this library: the dynamic loader expands $ORIGIN in dlopen's name to the directory
 * it loaded the calling object from, made absolute at load, so a relative LD_PRELOAD path and a later
 * chdir still find it (not in a set-user-ID program, which then reads sysfs). */
static reader_fn module_reader(void)
{
    static const char name[] = "$ORIGIN/libandgate-hwloc.so";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        ag_preload_verbose("andgate-preload: hwloc not loaded (%s); the topology comes from sysfs\n",
                           dlerror());
        return NULL;
    }
    reader_fn f = (reader_fn)dlsym(h, "ag_topo_hwloc_read");
    if (!f)
        ag_preload_verbose("andgate-preload: %s has no ag_topo_hwloc_read; the topology comes from sysfs\n", name);
    return f;
}

/* Called once, by topo.c under its pthread_once. */
int ag_topo_hwloc_read(struct ag_topo *t, struct ag_cpuinfo *(*map)(size_t n))
{
    reader_fn f = module_reader();
    return f ? f(t, map) : -1;
}
