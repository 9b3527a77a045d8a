/* andgate sim — the papers' algorithms and hardware barriers on modeled machines, through the same
 * front end as andgate bench: options (common/experiment.c, sim's defaults here) -> plan (the simulator
 * worker checks the machine, --algos, --threads and --pin and names the items; jobs = items x counts x
 * methods x waits) -> one worker process per job (libexec/andgate/andgate-sim, sim/main.c), one record
 * each -> the result document (mode "sim", valid JSON whatever a worker did) -> CSV and report
 * (python/andgate_report). A table on stderr as the records come. Exit 0, 1 when a run failed, 2 for a
 * bad command line. docs/sim.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "child.h"
#include "cli.h"
#include "counts.h"
#include "experiment.h"
#include "front.h"
#include "opts.h"
#include "paths.h"
#include "record.h"

#define PROG "andgate sim"
#define MAX_ITEMS 128
#define MAX_SEEDS 64

extern char **environ;

struct sim_plan {
    char worker[PATH_MAX + 64];
    char *head;                     /* the document's host object, from the worker */
    char *items[MAX_ITEMS], *kinds[MAX_ITEMS];
    int optional[MAX_ITEMS];
    unsigned nitems, njobs;
    char waitbuf[256];
    char seeds[MAX_SEEDS][24];      /* --seed's values, as the jobs pass them */
    unsigned nseeds;
    struct ag_job *jobs;
};

/* The worker's --plan answer: the host line, then "KIND OPTIONAL NAME" lines (out is kept: the
 * strings point into it). A refusal is the worker's one line, exit 2. */
static void ask_worker(const struct ag_exp *o, struct sim_plan *p, struct ag_child *c)
{
    char alpha[32], episodes[16];
    snprintf(alpha, sizeof alpha, "%.17g", o->alpha);
    snprintf(episodes, sizeof episodes, "%u", o->episodes);
    char *av[26] = { p->worker, "--plan", "--machine", (char *)o->machine, "--algos", (char *)o->algos, "--threads",
                     (char *)o->threads, "--pin", (char *)o->pin, "--wait", (char *)o->wait, "--episodes", episodes };
    unsigned n = 14;
    if (o->workload) /* the workload's checks: its primitives, counts and method, waits that do not apply */
        av[n++] = "--workload", av[n++] = (char *)o->workload, av[n++] = "--method", av[n++] = (char *)o->method;
    if (o->alpha >= 0)
        av[n++] = "--alpha", av[n++] = alpha;
    av[n++] = "--atomics", av[n++] = (char *)o->atomics; /* the machine's cores must have them */
    av[n] = NULL;
    if (ag_child_run(av, environ, 60, c)) {
        const char *why = strstr(c->error, PROG ": ");
        fprintf(stderr, "%s\n", why ? why : c->error);
        exit(2);
    }
    char *save, *line = strtok_r(c->out, "\n", &save);
    p->head = line;
    while ((line = strtok_r(NULL, "\n", &save)) && p->nitems < MAX_ITEMS) {
        char *kind = strtok(line, " "), *opt = strtok(NULL, " "), *name = strtok(NULL, "");
        if (!kind || !opt || !name)
            continue;
        p->kinds[p->nitems] = kind, p->optional[p->nitems] = *opt == '1', p->items[p->nitems++] = name;
    }
}

/* --seed: "1", "1,5", "1-4" or a mix, each 0..2^53, at most MAX_SEEDS; a bad list is a usage error */
static void parse_seeds(const char *text, struct sim_plan *p)
{
    const char *q = text;
    while (*q) {
        char *end;
        unsigned long long lo = strtoull(q, &end, 10), hi = lo;
        if (end == q || *q == '-')
            ag_usage_error(PROG, "--seed: bad list '%s'; expected seeds 0..%llu as 1,5 or 1-4", text, AG_SEED_MAX);
        if (*end == '-') {
            q = end + 1;
            hi = strtoull(q, &end, 10);
            if (end == q || *q == '-' || hi < lo)
                ag_usage_error(PROG, "--seed: bad range in '%s'; expected LO-HI with LO <= HI", text);
        }
        if (hi > AG_SEED_MAX || (*end && (*end != ',' || !end[1])))
            ag_usage_error(PROG, "--seed: bad list '%s'; expected seeds 0..%llu as 1,5 or 1-4", text, AG_SEED_MAX);
        for (unsigned long long v = lo; v <= hi; v++) {
            if (p->nseeds == MAX_SEEDS)
                ag_usage_error(PROG, "--seed: more than %d seeds in '%s'", MAX_SEEDS, text);
            snprintf(p->seeds[p->nseeds++], sizeof p->seeds[0], "%llu", v);
        }
        q = *end ? end + 1 : end;
    }
}

/* The plan: seeds x methods x waits x items x counts, in the order the table shows them (an item's
 * counts together, one seed's jobs before the next seed's). */
static void make_plan(const struct ag_exp *o, struct sim_plan *p, struct ag_child *c)
{
    if (ag_libexec("andgate-sim", p->worker, sizeof p->worker))
        ag_usage_error(PROG, "cannot find andgate-sim (build it with make)");
    ask_worker(o, p, c);
    unsigned counts[64], nc;
    char err[300], *waits[16];
    const char *methods[3];
    unsigned nm = ag_exp_methods(o->method, methods), nw = 0;
    if (!(nc = ag_parse_counts(o->threads, 4096, counts, 64, err, sizeof err)))
        ag_usage_error(PROG, "--threads: %s", err);
    snprintf(p->waitbuf, sizeof p->waitbuf, "%s", o->wait);
    for (char *save, *w = strtok_r(p->waitbuf, ";", &save); w && nw < 16; w = strtok_r(NULL, ";", &save))
        waits[nw++] = w;
    parse_seeds(o->seeds, p);
    p->jobs = calloc((size_t)p->nseeds * p->nitems * nc * nm * nw + 1, sizeof *p->jobs);
    if (!p->jobs)
        ag_usage_error(PROG, "out of memory");
    for (unsigned s = 0; s < p->nseeds; s++)
        for (unsigned m = 0; m < nm; m++)
            for (unsigned w = 0; w < nw; w++)
                for (unsigned i = 0; i < p->nitems; i++)
                    for (unsigned k = 0; k < nc; k++) {
                        int hw = !strcmp(p->kinds[i], "hw");
                        p->jobs[p->njobs++] = (struct ag_job){
                            p->worker, hw ? p->items[i] : "andgate", hw ? NULL : p->items[i], p->kinds[i],
                            methods[m], waits[w], counts[k], p->optional[i], NULL, 0, NULL, p->seeds[s] };
                    }
}

/* The table on stderr: a line per record as it comes */
static void table_line(void *ctx, const struct ag_job *j, const char *line)
{
    const struct ag_exp *o = ctx;
    char name[300], mcol[64] = "";
    ag_job_name(j, name, sizeof name);
    json_t *r = line ? json_loads(line, 0, NULL) : NULL;
    const char *impl = r ? json_string_value(json_object_get(r, "impl")) : NULL;
    double med = json_number_value(json_object_get(r, "median_ns")), p99 = json_number_value(json_object_get(r, "p99_ns"));
    double cpu = json_number_value(json_object_get(r, "cpu_ns_per_episode"));
    double ops = json_number_value(json_object_get(r, "operations_per_episode"));
    json_t *mns = json_object_get(r, "model_ns"), *err = json_object_get(r, "error");
    if (o->model && mns)
        snprintf(mcol, sizeof mcol, " %14.1f %9.2f", json_number_value(mns), med / json_number_value(mns));
    else if (o->model)
        snprintf(mcol, sizeof mcol, " %14s %9s", "-", "-");
    if (!o->quiet)
        fprintf(stderr, "%-50s %7u %12.1f %12.1f %12.1f %10.1f%s%s%s\n", impl ? impl : name, j->threads, med, p99, cpu,
                ops, mcol, r && !err ? "" : "  FAILED: ", err ? json_string_value(err) : r ? "" : "no record");
    json_decref(r);
}

static void write_document(FILE *out, int argc, char **argv, const struct sim_plan *p, const char *records)
{
    char cmd[4096];
    front_command_line(PROG, argc, argv, cmd, sizeof cmd);
    ag_document_begin(out, "sim", cmd);
    fprintf(out, ",\"host\":%s,\"results\":[\n%s]}\n", p->head, records ? records : "");
}

/* --items and --cs-ns size a workload: without --workload nothing reads them (they were ignored silently) */
static void check_workload_only(const struct ag_exp *o, int argc, char **argv)
{
    for (int i = 1; i < argc && !o->workload; i++)
        if (!strcmp(argv[i], "--items") || !strcmp(argv[i], "--cs-ns"))
            ag_usage_error(PROG, "%s: only with --workload prodcons|phases", argv[i]);
}

static int passthrough(const char *worker, char **av)
{
    int signo, rc = ag_spawn(av, NULL, NULL, &signo);
    if (rc < 0 || signo)
        fprintf(stderr, PROG ": %s failed\n", worker);
    return rc < 0 ? 2 : rc;
}

int cmd_sim(int argc, char **argv)
{
    struct ag_exp o = ag_exp_sim_defaults;
    o.timeout_s = 600;
    if (ag_exp_parse(PROG, AG_EXP_SIM, &o, argc, argv, 1)) {
        printf("usage: andgate sim [OPTIONS]\n");
        ag_exp_usage(stdout, AG_EXP_SIM);
        printf("docs/options.md lists every option of bench and sim; docs/sim.md explains the model.\n");
        return 0;
    }
    check_workload_only(&o, argc, argv);
    static struct sim_plan p;
    struct ag_child c = { 0 };
    if (o.machines) {
        if (argc != 2) /* argv[0] is "sim": anything else would be ignored */
            ag_usage_error(PROG, "--machines lists the modeled machines and takes no other option");
        if (ag_libexec("andgate-sim", p.worker, sizeof p.worker))
            ag_usage_error(PROG, "cannot find andgate-sim (build it with make)");
        return passthrough(p.worker, (char *[]){ p.worker, "--machines", NULL });
    }
    make_plan(&o, &p, &c);
    struct ag_outfile doc;
    front_document_open(PROG, &o, &doc);
    if (!o.quiet)
        fprintf(stderr, "%-50s %7s %12s %12s %12s %10s%s\n", "algorithm", "threads", "median ns", "p99 ns", "cpu ns/ep",
                "sim ops/ep", o.model ? "   002 model ns  sim/model" : "");
    char *records = NULL;
    struct front_run run = { PROG, AG_EXP_SIM, &o, p.jobs, p.njobs, o.timeout_s, table_line, &o };
    unsigned failed = front_run_jobs(&run, &records);
    write_document(doc.f, argc, argv, &p, records);
    free(records);
    front_document_commit(PROG, &doc);
    if (o.model) {
        char alpha[32];
        snprintf(alpha, sizeof alpha, "%.17g", o.alpha);
        passthrough(p.worker, (char *[]){ p.worker, "--models", "--machine", (char *)o.machine, "--threads",
                                          (char *)o.threads, "--pin", (char *)o.pin, o.alpha >= 0 ? "--alpha" : NULL,
                                          alpha, NULL });
    }
    int lost = front_outputs(PROG, "sim", &o, doc.path, 0);
    free(p.jobs);
    free(c.out);
    return failed || lost ? 1 : 0;
}
