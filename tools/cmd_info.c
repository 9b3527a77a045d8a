/* andgate info — the topology libandgate sees and the CPUs this process may use; with --measure, this
 * machine measured and written as an andgate-machine/1 description for `andgate sim` (host_machine.c). */
#include <stdio.h>
#include <string.h>

#include "andgate.h"
#include "cli.h"
#include "opts.h"
#include "flags.h"
#include "measure.h"
#include "topo.h"
#include "wait.h"

int cmd_info(int argc, char **argv)
{
    struct {
        int json, measure;
        const char *out;
    } o = { 0, 0, NULL };
    static const struct ag_opt options[] = {
        { "--json", AG_OPT_FLAG, 0, 0, 0, NULL, NULL, "the same as JSON" },
        { "--measure", AG_OPT_FLAG, sizeof(int), 0, 0, NULL, NULL, "measure this machine into a machine file for andgate sim" },
        { "--out", AG_OPT_STR, 2 * sizeof(int), 0, 0, NULL, "FILE", "with --measure: where (default ${XDG_DATA_HOME:-~/.local/share}/andgate/machines/host.json)" },
        { NULL, AG_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL },
    };
    if (ag_opts_parse("andgate info", options, &o, argc, argv, 1)) {
        printf("usage: andgate info [--json] | --measure [--out FILE]\n");
        ag_opts_usage(stdout, options);
        return 0;
    }
    if (o.out && !o.measure)
        ag_usage_error("andgate info", "--out: expected a file name, with --measure");
    if (o.json && o.measure)
        ag_usage_error("andgate info", "--json and --measure: one or the other");
    cli_check_env(o.measure ? "andgate info --measure" : "andgate info");
    int json = o.json, measure = o.measure;
    const char *out = o.out;
    if (measure)
        return info_measure(out);
    const struct ag_topo *t = ag_topo_get();
    int aff[1024];
    unsigned naff = ag_affinity_cpus(aff, 1024);
    struct ag_cpu_budget bud; /* one fresh read: the quota and usable CPUs below are its */
    cpu_set_t process;
    ag_cpu_budget(&bud, &process, 1);
    unsigned quota = bud.quota, usable = bud.usable;
    if (json) {
        printf("{\"source\":\"%s\",\"cache_level\":%d,\"cpus_online\":%u,\"cpus_affinity\":%u,"
               "\"cgroup_cpu_limit\":%u,\"cpus_process\":%u,\"cgroup_cpuset\":%u,\"cpus_usable\":%u,\"auto_spin_ns\":%u,\"auto_oversubscribed_yield_ns\":%u,"
               "\"membarrier\":%s,\"cpus\":[",
               t->source, t->cache_level, t->ncpus, naff, quota, bud.process, bud.cpuset, usable, AG_AUTO_SPIN_NS, AG_AUTO_YIELD_NS,
               ag_membarrier_ready() ? "true" : "false");
        for (unsigned i = 0; i < t->ncpus; i++) {
            const struct ag_cpuinfo *c = &t->cpu[i];
            printf("%s{\"cpu\":%d,\"core\":%d,\"cache\":%d,\"numa\":%d,\"package\":%d}", i ? "," : "",
                   c->cpu, c->core, c->cache, c->numa, c->package);
        }
        printf("]}\n");
        return 0;
    }
    printf("topology source : %s\n", t->source);
    printf("cpus online     : %u\n", t->ncpus);
    printf("affinity mask   : %u cpus (", naff);
    for (unsigned i = 0; i < naff; i++)
        printf("%s%d", i ? "," : "", aff[i]);
    printf(")\n");
    if (quota)
        printf("cgroup cpu quota: %u cpus\n", quota);
    else
        printf("cgroup cpu quota: unlimited\n");
    if (bud.cpuset)
        printf("cgroup cpuset   : %u cpus\n", bud.cpuset);
    printf("process cpus    : %u  (the mask at load, %u cpus, with every thread's now, %u, within the cpuset)\n",
           bud.process, bud.at_load, bud.threads);
    printf("usable cpus     : %u  (process cpus capped by the cgroup quota; at each barrier init, the cgroup "
           "files read at most %u ms before)\n", usable, AG_CGROUP_TTL_NS / 1000000u);
    printf("wait=auto       : nthreads <= %u: spin %u ns, then futex; nthreads > %u: sched_yield %u ns, then "
           "futex, stall rule at %u ns (process cpus: a quota takes time, not cpus)\n", bud.process,
           AG_AUTO_SPIN_NS, bud.process, AG_AUTO_YIELD_NS, AG_YIELD_STALL_NS);
    printf("cache group     : L%d\n", t->cache_level);
    printf("membarrier      : %s\n\n", ag_membarrier_ready()
                                          ? "yes (releasers skip the store-load fence; sleepers pay it)"
                                          : "no (releasers use seq_cst stores when someone may sleep)");
    printf("  cpu  core  cache  numa  package\n");
    for (unsigned i = 0; i < t->ncpus; i++) {
        const struct ag_cpuinfo *c = &t->cpu[i];
        printf("  %3d  %4d  %5d  %4d  %7d\n", c->cpu, c->core, c->cache, c->numa, c->package);
    }
    return 0;
}
