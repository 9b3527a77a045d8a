/* andgate-sim — `andgate sim` runs this (it carries the simulator build of the algorithms, which cannot
 * share a process with libandgate's). Output: the result JSON of DESIGN.md, mode "sim".
 *
 * andgate sim [--algos all|LIST] [--threads LIST] [--episodes N] [--seed S] [--schedule fixed|random]
 *             [--cluster C] [--hit-ns X] [--near-ns X] [--far-ns X] [--inval-ns X] [--rmw-ns X]
 *             [--json FILE]
 * The machine is the parametric model of sim/engine.h (docs/sim.md); its defaults are assumptions,
 * not a described machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "json.h"
#include "spec.h"

static int usage(void)
{
    fprintf(stderr, "usage: andgate sim [--algos all|LIST] [--threads LIST] [--episodes N] [--seed S]\n"
                    "                   [--schedule fixed|random] [--cluster C] [--hit-ns X] [--near-ns X]\n"
                    "                   [--far-ns X] [--inval-ns X] [--rmw-ns X] [--json FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct sim_machine m = { "parametric", 4, 1, 40, 120, 10, 20 };
    const char *algos = "all", *threads = "2,4,8,16,32,64", *json = NULL;
    unsigned episodes = 200;
    uint64_t seed = 1;
    int random = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage();
        const char *a = argv[i], *v = argv[++i];
        if (!strcmp(a, "--algos")) algos = v;
        else if (!strcmp(a, "--threads")) threads = v;
        else if (!strcmp(a, "--episodes")) episodes = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--schedule")) random = !strcmp(v, "random");
        else if (!strcmp(a, "--cluster")) m.cluster = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--hit-ns")) m.hit_ns = strtod(v, NULL);
        else if (!strcmp(a, "--near-ns")) m.near_ns = strtod(v, NULL);
        else if (!strcmp(a, "--far-ns")) m.far_ns = strtod(v, NULL);
        else if (!strcmp(a, "--inval-ns")) m.inval_ns = strtod(v, NULL);
        else if (!strcmp(a, "--rmw-ns")) m.rmw_ns = strtod(v, NULL);
        else if (!strcmp(a, "--json")) json = v;
        else return usage();
    }
    if (!episodes || !m.cluster)
        return usage();
    /* the algorithm list: every algorithm with its defaults, or specs separated by ';' */
    char *specs[64], buf[2048];
    unsigned ns = 0;
    if (!strcmp(algos, "all")) {
        for (unsigned i = 0; i < ag_algo_table.n && ns < 64; i++)
            specs[ns++] = (char *)ag_algo_table.get(i)->name;
    } else {
        snprintf(buf, sizeof buf, "%s", algos);
        for (char *t = strtok(buf, ";"); t && ns < 64; t = strtok(NULL, ";"))
            specs[ns++] = t;
    }
    FILE *out = json ? fopen(json, "w") : stdout;
    if (!out)
        return fprintf(stderr, "andgate sim: cannot write %s\n", json), 1;
    fprintf(out, "{\"tool\":\"andgate\",\"version\":\"0.1.0\",\"mode\":\"sim\",\"host\":{\"model\":");
    char model[256];
    snprintf(model, sizeof model, "parametric: cluster %u, hit %g ns, near %g ns, far %g ns, inval %g ns, rmw %g ns",
             m.cluster, m.hit_ns, m.near_ns, m.far_ns, m.inval_ns, m.rmw_ns);
    json_str(out, model);
    fprintf(out, ",\"cpus_usable\":1,\"clock\":\"virtual\",\"c2c_oneway_ns\":{\"min\":%g,\"median\":%g}},"
                 "\"results\":[\n", m.near_ns, m.far_ns);
    int first = 1, failures = 0;
    for (unsigned i = 0; i < ns; i++)
        for (const char *p = threads; *p;) {
            unsigned n = (unsigned)strtoul(p, (char **)&p, 10);
            if (*p == ',')
                p++;
            if (!n)
                break;
            struct sim_opts o = { &m, specs[i], n, episodes, seed, random, 0 };
            struct sim_result r;
            int rc = sim_run(&o, &r);
            failures += rc != 0;
            fprintf(out, "%s{\"impl\":", first ? "" : ",\n");
            first = 0;
            char impl[256];
            snprintf(impl, sizeof impl, "andgate:%s", r.describe[0] ? r.describe : specs[i]);
            json_str(out, impl);
            fprintf(out, ",\"kind\":\"andgate\",\"threads\":%u,\"wait\":\"spin\",\"pinning\":\"compact\","
                         "\"method\":\"latency\",\"median_ns\":%.1f,\"min_ns\":%.1f,\"p99_ns\":%.1f,"
                         "\"cpu_ns_per_episode\":0,\"episodes\":%u,\"status\":\"%s\"",
                    n, r.median_ns, r.min_ns, r.p99_ns, r.episodes, rc ? "failed" : "ok");
            fprintf(out, ",\"traffic_per_episode\":{\"reads_local\":%.1f,\"reads_remote\":%.1f,\"writes\":%.1f,"
                         "\"invalidations\":%.1f,\"rmws\":%.1f}",
                    (double)r.reads_local / episodes, (double)r.reads_remote / episodes, (double)r.writes / episodes,
                    (double)r.invalidations / episodes, (double)r.rmws / episodes);
            if (rc) {
                fprintf(out, ",\"error\":");
                json_str(out, r.error);
            }
            fputc('}', out);
        }
    fprintf(out, "]}\n");
    if (json)
        fclose(out);
    return failures ? 1 : 0;
}
