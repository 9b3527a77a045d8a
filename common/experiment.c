/* experiment.c — the option table of `andgate bench`, `andgate sim` and their workers; see experiment.h. */
#include "experiment.h"

#include <stdio.h>
#include <string.h>

#define B AG_EXP_BENCH
#define S AG_EXP_SIM
#define BJ AG_EXP_BENCH_JOB
#define SJ AG_EXP_SIM_JOB
#define J AG_EXP_PER_JOB
#define MJ AG_EXP_MPI_JOB
#define O(f) offsetof(struct ag_exp, f)

struct row {
    unsigned readers;
    struct ag_opt opt;
};

/* One row per option; the readers column says which command or worker takes it. A row read by a
 * command and by its worker (and not set per job) is passed on to the worker as the command got it. */
const struct ag_exp ag_exp_sim_defaults = {
    .machine = "kunpeng920", .algos = "all", .threads = "2,4,8,16,32,64", .pin = "cores", .wait = "spin",
    .method = "latency", .schedule = "fixed", .late = "rotating", .stores = "rfo", .atomics = "machine", .layout = "andgate",
    .episodes = 200, .seed = 1, .seeds = "1", .jitter_us = 100, .alpha = -1 };

static const struct row rows[] = {
    /* the plan: what to measure */
    { B | S | SJ | J, { "--algos", AG_OPT_STR, O(algos), 0, 0, NULL, "all|LIST",
                        "andgate specs separated by ';' or ',' (all, auto allowed); bench: none; sim: sw, hw, hw-* devices" } },
    { B, { "--baselines", AG_OPT_STR, O(baselines), 0, 0, NULL, "all|none|LIST", "pthread, gomp, llvm-omp, std::barrier, ck, ck:<algorithm>" } },
    { B | S | BJ | SJ | MJ | J, { "--threads", AG_OPT_STR, O(threads), 0, 0, NULL, "LIST|RANGE",
                             "participant counts: 2,4,8 or 2-8 (bench: 1..usable CPUs, u+1, 2u, 3u, 4u; sim: 2..64 by powers of 2)" } },
    { B | S | BJ | SJ | MJ | J, { "--method", AG_OPT_WORD, O(method), 0, 0, "latency|epcc|jitter|all", NULL,
                             "what to measure (bench default all, sim latency)" } },
    { B | S | BJ | SJ | MJ | J, { "--wait", AG_OPT_STR, O(wait), 0, 0, NULL, "SPEC|LIST",
                             "wait policies separated by ';' (bench default auto; sim default spin, block/hybrid/yield/auto need the machine's os block)" } },
    { B, { "--mpi", AG_OPT_FLAG, O(mpi), 0, 0, NULL, NULL,
           "libandgate-mpi's fused barrier vs three-step vs MPI_Barrier, each job under mpirun (docs/bench.md)" } },
    { B | J, { "--ranks", AG_OPT_STR, O(ranks), 0, 0, NULL, "LIST|RANGE", "--mpi: MPI rank counts (default 2); --threads is per rank" } },
    { B | MJ | J, { "--mpi-node", AG_OPT_STR, O(mpi_node), 0, 0, NULL, "shared[:ranks=K]|rank|both",
                    "--mpi: node grouping, as ANDGATE_MPI_NODE (default: $ANDGATE_MPI_NODE, else shared: one node barrier per machine); both: shared and rank" } },
    { S | SJ, { "--machine", AG_OPT_STR, O(machine), 0, 0, NULL, "NAME|FILE", "the modeled machine (default kunpeng920; --machines lists them)" } },
    /* how each job measures */
    { B | S | BJ | SJ, { "--pin", AG_OPT_WORD, O(pin), 0, 0, "cores|compact|scatter|none", NULL,
                         "placement: a core each before SMT siblings (default), siblings together, spread; none: the OS (bench)" } },
    { B | S | BJ | SJ | MJ, { "--episodes", AG_OPT_UINT, O(episodes), 1, 100000000, NULL, "N", "episodes per measurement at most (bench default 20000, sim 200)" } },
    { B | BJ | MJ, { "--budget-ms", AG_OPT_UINT, O(budget_ms), 1, 3600000, NULL, "MS", "time per measurement at most (default 250)" } },
    { B | S | BJ | SJ, { "--jitter-us", AG_OPT_NUM, O(jitter_us), 0, 1e9, NULL, "US", "jitter method: the late participant's delay (default 100)" } },
    { B | S | BJ | SJ, { "--late", AG_OPT_WORD, O(late), 0, 0, "rotating|fixed", NULL, "jitter method: which participant is late (default rotating)" } },
    { S | SJ, { "--work-ns", AG_OPT_NUM, O(work_ns), 0, 1e9, NULL, "NS", "work between episodes" } },
    { S | SJ, { "--work-jitter-ns", AG_OPT_NUM, O(work_jitter_ns), 0, 1e9, NULL, "NS", "uniform extra work per participant" } },
    { S | SJ, { "--split-ns", AG_OPT_NUM, O(split_ns), 0, 1e9, NULL, "NS",
                "split phase: arrive, NS of independent work, depart (latency counts from the end of the work)" } },
    { S | SJ, { "--stores", AG_OPT_WORD, O(stores), 0, 0, "rfo|streaming", NULL,
                "plain stores read the line first (default) or write it whole without reading (003 §2)" } },
    { S | SJ, { "--atomics", AG_OPT_WORD, O(atomics), 0, 0, "machine|llsc|rmw", NULL,
                "read-modify-writes as the machine's file says (default), as ARMv8.0 exclusive pairs, or one instruction" } },
    { S | SJ, { "--layout", AG_OPT_WORD, O(layout), 0, 0, "andgate|shared-first", NULL,
                "the addresses the lines' homes hash from: andgate's layout (default) or the barrier's lines first, at one address for every count (003 §5.3)" } },
    { S | SJ, { "--workload", AG_OPT_WORD, O(workload), 0, 0, "prodcons|phases", NULL,
                "a multi-threaded workload instead of barrier episodes (004 Table XI's producer-consumer, a PARSEC-style phase loop)" } },
    { S | SJ, { "--items", AG_OPT_UINT, O(items), 0, 10000000, NULL, "N", "--workload: items (prodcons) or phases; 0 (default): 100 items, 20 phases" } },
    { S | SJ, { "--cs-ns", AG_OPT_NUM, O(cs_ns), 0, 1e9, NULL, "NS", "--workload: compute inside each critical section" } },
    { S | SJ, { "--sched", AG_OPT_WORD, O(sched), 0, 0, "rr|csa", NULL,
                "more participants than hardware threads: round robin (default) or 004's critical-section-aware policy" } },
    { S | SJ, { "--timeslice-us", AG_OPT_NUM, O(timeslice_us), 0.001, 1e7, NULL, "US", "the scheduler's time slice (default 1000, 004 §VII)" } },
    { S, { "--seed", AG_OPT_STR, O(seeds), 0, 0, NULL, "LIST|RANGE",
           "random schedule and jitter seed, and the allocation (lines' homes): 1,5 or 1-4, a run per seed (default 1)" } },
    { SJ, { "--seed", AG_OPT_U64, O(seed), 0, (double)AG_SEED_MAX, NULL, "S", "random schedule and jitter seed (default 1)" } },
    { S | SJ, { "--schedule", AG_OPT_WORD, O(schedule), 0, 0, "fixed|random", NULL, "which ready participant runs next" } },
    { S | SJ, { "--alpha", AG_OPT_NUM, O(alpha), 0, 1, NULL, "X", "what-if: every layer's invalidation weight" } },
    { S | SJ, { "--model", AG_OPT_FLAG, O(model), 0, 0, NULL, NULL, "002's analytical models beside the simulation" } },
    { B | S, { "--timeout", AG_OPT_NUM, O(timeout_s), 0.01, 86400, NULL, "S",
               "a job's worker is killed after S seconds, its record failed (bench: 20 budgets + 5 s; sim: 600)" } },
    { B, { "--quick", AG_OPT_FLAG, O(quick), 0, 0, NULL, NULL, "fewer thread counts, episodes and c2c rounds" } },
    /* where the results go */
    { B | S, { "--json", AG_OPT_STR, O(json), 0, 0, NULL, "FILE|-", "the result document (- : stdout; sim's default)" } },
    { B | S, { "--csv", AG_OPT_STR, O(csv), 0, 0, NULL, "FILE", "one row per result" } },
    { B | S, { "--report", AG_OPT_STR, O(report), 0, 0, NULL, "DIR", "HTML report with plots (and DIR/results.json)" } },
    { B, { "--cdf-threads", AG_OPT_UINT, O(cdf_threads), 0, 4096, NULL, "N", "the report's latency CDF at N threads" } },
    { B | S, { "--quiet", AG_OPT_FLAG, O(quiet), 0, 0, NULL, NULL, "no progress lines (bench) or table (sim) on stderr" } },
    { S | SJ, { "--machines", AG_OPT_FLAG, O(machines), 0, 0, NULL, NULL, "list the machine descriptions found" } },
    /* the workers' own: one job, or what the front end asks before it plans */
    { BJ | SJ | MJ, { "--impl", AG_OPT_STR, O(impl), 0, 0, NULL, "NAME", "the job's implementation (andgate, a baseline, a hw-* device)" } },
    { BJ | SJ, { "--spec", AG_OPT_STR, O(spec), 0, 0, NULL, "SPEC", "the job's andgate spec" } },
    { SJ | MJ, { "--plan", AG_OPT_FLAG, O(plan), 0, 0, NULL, NULL,
                 "check the options and exit; sim: print the host and the items of --machine, --algos, --threads" } },
    { SJ, { "--models", AG_OPT_FLAG, O(models), 0, 0, NULL, NULL, "print 002's models for --threads on stderr" } },
    { BJ, { "--list", AG_OPT_FLAG, O(list), 0, 0, NULL, NULL, "the implementations this worker hosts" } },
    { BJ, { "--clock", AG_OPT_FLAG, O(clock), 0, 0, NULL, NULL, "the clock the measurements use" } },
    { BJ, { "--c2c", AG_OPT_STR, O(c2c), 0, 0, NULL, "A,B", "core-to-core one-way latency between CPUs A and B" } },
    { BJ, { "--rounds", AG_OPT_UINT, O(rounds), 1, 100000000, NULL, "N", "ping-pong rounds of --c2c" } },
    { BJ, { "--samples", AG_OPT_UINT, O(samples), 0, 100000, NULL, "K", "latency quantiles in the record" } },
};
#define NROWS (sizeof rows / sizeof rows[0])

/* reader's rows as a table of common/opts.h, terminated */
static void table_for(unsigned reader, struct ag_opt *tab)
{
    unsigned n = 0;
    for (unsigned i = 0; i < NROWS; i++)
        if (rows[i].readers & reader)
            tab[n++] = rows[i].opt;
    tab[n] = (struct ag_opt){ NULL, AG_OPT_FLAG, 0, 0, 0, NULL, NULL, NULL };
}

int ag_exp_parse(const char *prog, unsigned reader, struct ag_exp *o, int argc, char **argv, int first)
{
    struct ag_opt tab[NROWS + 1];
    table_for(reader, tab);
    return ag_opts_parse(prog, tab, o, argc, argv, first);
}

void ag_exp_usage(FILE *f, unsigned reader)
{
    struct ag_opt tab[NROWS + 1];
    table_for(reader, tab);
    ag_opts_usage(f, tab);
}

unsigned ag_exp_methods(const char *method, const char *out[3])
{
    static const char *const all[] = { "latency", "epcc", "jitter" };
    unsigned n = 0;
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(method, "all") || !strcmp(method, all[i]))
            out[n++] = all[i];
    return n;
}

void ag_job_name(const struct ag_job *j, char *out, size_t len)
{
    if (j->spec)
        snprintf(out, len, "andgate:%s", j->spec);
    else if (!strcmp(j->kind, "hw"))
        snprintf(out, len, "hw:%s", j->impl);
    else
        snprintf(out, len, "%s", j->impl);
}

/* The value of row r in o as text (NULL: not given, or a number below its range: unset) */
static const char *value_text(const struct ag_exp *o, const struct ag_opt *r, char *buf, size_t len)
{
    const char *field = (const char *)o + r->off;
    switch (r->kind) {
    case AG_OPT_STR:
    case AG_OPT_WORD:
        return *(const char *const *)field;
    case AG_OPT_UINT:
        snprintf(buf, len, "%u", *(const unsigned *)field);
        return buf;
    case AG_OPT_U64:
        snprintf(buf, len, "%llu", *(const unsigned long long *)field);
        return buf;
    case AG_OPT_NUM:
        if (*(const double *)field < r->lo)
            return NULL;
        snprintf(buf, len, "%.17g", *(const double *)field);
        return buf;
    case AG_OPT_FLAG:
        return *(const int *)field ? "" : NULL;
    }
    return NULL;
}

void ag_exp_job_argv(const struct ag_exp *o, unsigned cmd, const struct ag_job *j, char **av, char *buf, size_t len)
{
    unsigned n = 0, worker = cmd == AG_EXP_SIM ? AG_EXP_SIM_JOB : j->ranks ? AG_EXP_MPI_JOB : AG_EXP_BENCH_JOB;
    size_t used = (size_t)snprintf(buf, len, "%u", j->threads) + 1;
    for (unsigned i = 0; j->ranks && j->launcher && j->launcher[i] && n < 40; i++)
        av[n++] = j->launcher[i];
    if (j->ranks) {
        av[n++] = "-np", av[n++] = buf + used;
        used += (size_t)snprintf(buf + used, len - used, "%u", j->ranks) + 1;
    }
    av[n++] = (char *)j->worker;
    av[n++] = "--impl", av[n++] = (char *)j->impl;
    if (j->spec)
        av[n++] = "--spec", av[n++] = (char *)j->spec;
    av[n++] = "--threads", av[n++] = buf;
    av[n++] = "--method", av[n++] = (char *)j->method;
    av[n++] = "--wait", av[n++] = (char *)j->wait;
    if (j->node)
        av[n++] = "--mpi-node", av[n++] = (char *)j->node;
    if (j->seed)
        av[n++] = "--seed", av[n++] = (char *)j->seed;
    for (unsigned i = 0; i < NROWS && n < 62; i++) {
        const struct row *r = &rows[i];
        if (used + 32 > len)
            break;
        if (!(r->readers & cmd) || !(r->readers & worker) || (r->readers & AG_EXP_PER_JOB))
            continue;
        const char *v = value_text(o, &r->opt, buf + used, used < len ? len - used : 0);
        if (!v)
            continue;
        av[n++] = (char *)r->opt.name;
        if (r->opt.kind != AG_OPT_FLAG)
            av[n++] = (char *)v;
        if (v == buf + used)
            used += strlen(v) + 1;
    }
    av[n] = NULL;
}
