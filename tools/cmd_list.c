/* andgate list — every algorithm and wait policy with its keys, defaults and source (from the one
 * table the parser uses, so this listing cannot drift from what ag_barrier_init accepts). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "spec.h"

static void values(const struct ag_key *k, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned w = 0; k->words && k->words[w]; w++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", w ? "|" : "", k->words[w]);
    if (k->min <= k->max && n < len)
        snprintf(buf + n, len - n, "%s%ld..%ld", n ? "|" : "", k->min, k->max);
}

/* What split phase does for an algorithm: the whole arrival in ag_barrier_arrive, or in depart. */
static const char *split_of(const struct ag_table *t, unsigned i)
{
    if (t != &ag_algo_table)
        return NULL;
    return ag_algos[i]->arrive ? "native: arrive completes the arrival without waiting"
                               : "in depart: arrive only marks the participant, depart runs the barrier";
}

static void print_table(const struct ag_table *t, int json)
{
    for (unsigned i = 0; i < t->n; i++) {
        const struct ag_kind *kind = t->get(i);
        const struct ag_key *k;
        const char *split = split_of(t, i);
        if (json) {
            printf("%s{\"name\":", i ? "," : "");
            json_str(stdout, kind->name);
            printf(",\"summary\":");
            json_str(stdout, kind->summary);
            printf(",\"source\":");
            json_str(stdout, kind->source);
            if (split)
                printf(",\"split_phase\":\"%s\"", ag_algos[i]->arrive ? "native" : "depart");
            printf(",\"params\":[");
        } else {
            printf("%-14s %s\n", kind->name, kind->summary);
            printf("%-14s source: %s\n", "", kind->source);
            if (split)
                printf("%-14s split phase: %s\n", "", split);
        }
        for (unsigned j = 0; (k = ag_spec_key(t, kind, j)); j++) {
            char v[128];
            values(k, v, sizeof v);
            if (json) {
                printf("%s{\"name\":", j ? "," : "");
                json_str(stdout, k->name);
                printf(",\"default\":");
                json_str(stdout, k->def);
                printf(",\"values\":");
                json_str(stdout, v);
                printf(",\"help\":");
                json_str(stdout, k->help);
                printf("}");
            } else {
                char kv[64];
                snprintf(kv, sizeof kv, "%s=%s", k->name, k->def);
                printf("%-14s   %-16s (%s) %s\n", "", kv, v, k->help);
            }
        }
        printf(json ? "]}" : "\n");
    }
}

int cmd_list(int argc, char **argv)
{
    static const struct ag_opt options[] = {
        { "--json", AG_OPT_FLAG, 0, 0, 0, NULL, NULL, "the same as JSON" },
        { NULL, AG_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL },
    };
    int json = 0;
    if (ag_opts_parse("andgate list", options, &json, argc, argv, 1)) {
        printf("usage: andgate list [--json]   every algorithm and wait policy with its keys and defaults\n");
        return 0;
    }
    if (json) {
        printf("{\"algorithms\":[");
        print_table(&ag_algo_table, 1);
        printf("],\"wait_policies\":[");
        print_table(&ag_wait_table, 1);
        printf("]}\n");
    } else {
        printf("Algorithms (spec: name[:key=value,...]; every key shown with its default):\n\n");
        print_table(&ag_algo_table, 0);
        printf("Wait policies:\n\n");
        print_table(&ag_wait_table, 0);
    }
    return 0;
}
