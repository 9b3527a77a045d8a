/* bench_plan.c — see bench_plan.h. */
#define _GNU_SOURCE
#include "bench_plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "counts.h"
#include "opts.h"
#include "paths.h"
#include "spec.h"

extern char **environ;

#define PROG "andgate bench"

/* Each worker that is built, with the implementations its --list names. */
static void find_workers(struct bench_plan *p)
{
    static const char *const names[] = { "bench-core", "bench-gomp", "bench-llvm-omp", "bench-std" };
    struct ag_child c = { 0 };
    for (unsigned i = 0; i < 4; i++) {
        struct bench_worker *w = &p->workers[p->nworkers];
        if (ag_libexec(names[i], w->path, sizeof w->path)) {
            fprintf(stderr, PROG ": warning: worker %s not built; its baselines are skipped\n", names[i]);
            continue;
        }
        char *argv[] = { w->path, "--list", NULL };
        if (ag_child_run(argv, environ, 10, &c)) {
            fprintf(stderr, PROG ": warning: %s --list failed (%s); skipped\n", w->path, c.error);
            continue;
        }
        w->n = 0;
        for (char *save, *line = strtok_r(c.out, "\n", &save); line && w->n < 32; line = strtok_r(NULL, "\n", &save)) {
            line[strcspn(line, " ")] = '\0';
            snprintf(w->names[w->n++], sizeof w->names[0], "%s", line);
        }
        p->nworkers++;
    }
    free(c.out);
}

static const struct bench_worker *host_of(const struct bench_plan *p, const char *impl)
{
    for (unsigned i = 0; i < p->nworkers; i++)
        for (unsigned k = 0; k < p->workers[i].n; k++)
            if (!strcmp(p->workers[i].names[k], impl))
                return &p->workers[i];
    return NULL;
}

/* andgate specs: every fixed algorithm with its defaults for "all" (also inside a list), "auto", or specs */
/* spec into the plan once (all,central names central twice: one measurement, as for the baselines) */
static void add_spec(struct bench_plan *p, char *spec)
{
    for (unsigned k = 0; k < p->nspecs; k++)
        if (!strcmp(p->specs[k], spec))
            return;
    if (p->nspecs < AG_PLAN_MAX)
        p->specs[p->nspecs++] = spec;
}

static void pick_specs(struct bench_plan *p, const char *algos)
{
    if (!strcmp(algos, "none"))
        return;
    if (strlen(algos) >= sizeof p->specbuf)
        ag_usage_error(PROG, "--algos: a list of at most %zu characters", sizeof p->specbuf - 1);
    snprintf(p->specbuf, sizeof p->specbuf, "%s", algos);
    char *items[AG_PLAN_MAX];
    unsigned n = ag_spec_split_list(p->specbuf, items, AG_PLAN_MAX);
    if (!n)
        ag_usage_error(PROG, "--algos: an empty item in '%s'; expected specs separated by ';' or ','", algos);
    if (n > AG_PLAN_MAX)
        ag_usage_error(PROG, "--algos: expected all, none or 1..%d specs, got '%s'", AG_PLAN_MAX, algos);
    for (unsigned i = 0; i < n; i++) {
        struct ag_spec sp;
        char msg[512];
        if (!strcmp(items[i], "all")) {
            for (unsigned a = 0; a < ag_algo_table.n; a++)
                if (ag_algo_fixed(a))
                    add_spec(p, (char *)ag_algo_table.get(a)->name);
            continue;
        }
        if (strcmp(items[i], "auto") && ag_spec_parse(&ag_algo_table, items[i], &sp, msg, sizeof msg))
            ag_usage_error(PROG, "--algos: %s", msg);
        add_spec(p, items[i]);
    }
}

/* a baseline name any build can have: pthread, gomp, llvm-omp, std::barrier, ck, ck:<algorithm> */
static int known_baseline(const char *name)
{
    return !strcmp(name, "pthread") || !strcmp(name, "gomp") || !strcmp(name, "llvm-omp") ||
           !strcmp(name, "std::barrier") || !strcmp(name, "ck") || (!strncmp(name, "ck:", 3) && name[3]);
}

static int asked(const char *list, const char *name)
{
    if (!strcmp(list, "all"))
        return 1;
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *save, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, name) || (!strcmp(t, "ck") && !strncmp(name, "ck:", 3)))
            return 1;
    return 0;
}

/* ck:NAME that the built Concurrency Kit worker does not list: a misspelt algorithm, a bad command line
 * (no ck:* at all: the library is not built here, a warning as for the others) */
static void check_ck_name(const struct bench_plan *p, const char *name)
{
    char have[512] = "";
    size_t len = 0;
    for (unsigned i = 0; i < p->nworkers; i++)
        for (unsigned k = 0; k < p->workers[i].n; k++)
            if (!strncmp(p->workers[i].names[k], "ck:", 3) && len < sizeof have)
                len += (size_t)snprintf(have + len, sizeof have - len, "%s%s", len ? ", " : "",
                                        p->workers[i].names[k]);
    if (len)
        ag_usage_error(PROG, "--baselines: unknown Concurrency Kit barrier '%s' (built here: %s)", name, have);
}

static void pick_baselines(struct bench_plan *p, const char *list, const struct bench_worker **where)
{
    if (!strcmp(list, "none"))
        return;
    char tmp[1024];
    if (strlen(list) >= sizeof tmp)
        ag_usage_error(PROG, "--baselines: expected all, none or a comma-separated list, got '%s'", list);
    if (ag_spec_list_empty(list, ","))
        ag_usage_error(PROG, "--baselines: an empty item in '%s'; expected names separated by ','", list);
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *save, *t = strtok_r(tmp, ",", &save); t && strcmp(list, "all"); t = strtok_r(NULL, ",", &save))
        if (!known_baseline(t))
            ag_usage_error(PROG, "--baselines: unknown baseline '%s' (known: pthread, gomp, llvm-omp, std::barrier, "
                                 "ck, ck:<algorithm>; all; none)", t);
    for (unsigned i = 0; i < p->nworkers; i++)
        for (unsigned k = 0; k < p->workers[i].n && p->nbase < AG_PLAN_MAX; k++) {
            const char *name = p->workers[i].names[k];
            if (strcmp(name, "andgate") && asked(list, name))
                where[p->nbase] = &p->workers[i], p->base[p->nbase++] = name;
        }
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *save, *t = strtok_r(tmp, ",", &save); t && strcmp(list, "all"); t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (unsigned i = 0; i < p->nbase; i++)
            found |= !strcmp(t, p->base[i]) || (!strcmp(t, "ck") && !strncmp(p->base[i], "ck:", 3));
        if (!found && !strncmp(t, "ck:", 3))
            check_ck_name(p, t);
        if (!found) /* a known name whose worker or library this build lacks */
            fprintf(stderr, PROG ": warning: baseline '%s' is not built here; skipped\n", t);
    }
}

/* --wait: wait specs separated by ';' (the wait table's own specs have ',' inside) */
static void pick_waits(struct bench_plan *p, const char *waits)
{
    if (strlen(waits) >= sizeof p->waitbuf)
        ag_usage_error(PROG, "--wait: a list of at most %zu characters", sizeof p->waitbuf - 1);
    if (ag_spec_list_empty(waits, ";"))
        ag_usage_error(PROG, "--wait: an empty item in '%s'; expected wait specs separated by ';'", waits);
    snprintf(p->waitbuf, sizeof p->waitbuf, "%s", waits);
    for (char *save, *t = strtok_r(p->waitbuf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
        struct ag_spec ws;
        char msg[512];
        if (ag_spec_parse(&ag_wait_table, t, &ws, msg, sizeof msg))
            ag_usage_error(PROG, "--wait: %s", msg);
        if (p->nwaits == 16)
            ag_usage_error(PROG, "--wait: at most 16 wait policies");
        p->waits[p->nwaits++] = t;
    }
    if (!p->nwaits)
        ag_usage_error(PROG, "--wait: expected wait specs separated by ';', got '%s'", waits);
}

void bench_plan_make(struct bench_plan *p, const struct ag_exp *o, const char *const *methods, unsigned nmethods,
                     const unsigned *threads, unsigned nthreads)
{
    memset(p, 0, sizeof *p);
    pick_specs(p, o->algos); /* the command line first: a bad list needs no worker */
    pick_waits(p, o->wait);
    find_workers(p);
    if (!(p->core = host_of(p, "andgate")))
        ag_usage_error(PROG, "the bench-core worker is missing: build with make");
    const struct bench_worker *where[AG_PLAN_MAX];
    pick_baselines(p, o->baselines, where);
    p->jobs = calloc((size_t)nmethods * nthreads * (p->nspecs * p->nwaits + p->nbase) + 1, sizeof *p->jobs);
    if (!p->jobs)
        ag_usage_error(PROG, "out of memory");
    for (unsigned m = 0; m < nmethods; m++)
        for (unsigned t = 0; t < nthreads; t++) {
            for (unsigned i = 0; i < p->nspecs; i++)
                for (unsigned w = 0; w < p->nwaits; w++)
                    p->jobs[p->njobs++] = (struct ag_job){ p->core->path, "andgate", p->specs[i], "andgate", methods[m],
                                                           p->waits[w], threads[t], 0, NULL, 0, NULL, NULL };
            for (unsigned i = 0; i < p->nbase; i++)
                p->jobs[p->njobs++] = (struct ag_job){ where[i]->path, p->base[i], NULL, "baseline", methods[m],
                                                       "default", threads[t], 0, NULL, 0, NULL, NULL };
        }
}

#ifndef AG_MPI_LAUNCHER
#define AG_MPI_LAUNCHER ""
#endif

/* name is a program execvpe would run: a path that is executable, or a bare name found in $PATH */
static int runnable(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    char dirs[4096], file[PATH_MAX];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
        if (snprintf(file, sizeof file, "%s/%s", d, name) < (int)sizeof file && access(file, X_OK) == 0)
            return 1;
    return 0;
}

/* the launcher: $ANDGATE_MPIRUN if set, else what CMake found (with Open MPI's flags) */
static void mpi_launcher(struct bench_plan *p)
{
    const char *env = getenv("ANDGATE_MPIRUN");
    snprintf(p->launchbuf, sizeof p->launchbuf, "%s", env && *env ? env : AG_MPI_LAUNCHER);
    unsigned n = 0;
    for (char *save, *t = strtok_r(p->launchbuf, " \t", &save); t && n < 23; t = strtok_r(NULL, " \t", &save))
        p->launcher[n++] = t;
    p->launcher[n] = NULL;
    if (!n)
        ag_usage_error(PROG, "--mpi: ANDGATE_MPIRUN is empty (expected the launcher, e.g. 'mpirun --oversubscribe')");
    if (!runnable(p->launcher[0])) /* else every job would fail the same way (exit status 127) */
        ag_usage_error(PROG, "--mpi: cannot run the launcher '%s'%s: not found or not executable", p->launcher[0],
                       env && *env ? " (ANDGATE_MPIRUN)" : "");
}

/* --mpi-node (and $ANDGATE_MPI): checked by the MPI worker, which hands them to libandgate-mpi's one
 * grammar without starting MPI; a refusal is the worker's one line, exit 2 */
static void check_node(const struct bench_plan *p, const char *node)
{
    char *av[] = { (char *)p->mpi_worker, "--plan", "--impl", "mpi:fused:dissemination", "--mpi-node", (char *)node,
                   NULL };
    struct ag_child c = { 0 };
    if (ag_child_run(av, environ, 30, &c)) {
        const char *why = strstr(c.error, "bench-mpi: ");
        fprintf(stderr, "%s: %s\n", PROG, why ? why + strlen("bench-mpi: ") : c.error);
        exit(2);
    }
    free(c.out);
}

static void add_mpi_job(struct bench_plan *p, const char *impl, const char *kind, const char *method, const char *wait,
                        unsigned ranks, unsigned threads, const char *node)
{
    p->jobs[p->njobs++] = (struct ag_job){ p->mpi_worker, impl, NULL, kind, method, wait, threads, 0,
                                           p->launcher, ranks, node, NULL };
}

void bench_plan_make_mpi(struct bench_plan *p, const struct ag_exp *o, const char *const *methods, unsigned nmethods,
                         const unsigned *threads, unsigned nthreads)
{
    static const char *const fused[] = { "mpi:fused:dissemination", "mpi:fused:ibarrier" };
    memset(p, 0, sizeof *p);
    char msg[512];
    if (!(p->nranks = ag_parse_counts(o->ranks ? o->ranks : "2", 256, p->ranks, AG_PLAN_MAX, msg, sizeof msg)))
        ag_usage_error(PROG, "--ranks: %s", msg);
    pick_waits(p, o->wait);
    for (unsigned t = 0; t < nthreads; t++)
        if (threads[t] > 256)
            ag_usage_error(PROG, "--threads: with --mpi threads per rank in 1..256, got %u", threads[t]);
#ifndef AG_HAVE_MPI
    ag_usage_error(PROG, "--mpi: this andgate was built without MPI (CMake found none; make deps installs Open MPI)");
#endif
    find_workers(p);
    if (!(p->core = host_of(p, "andgate")))
        ag_usage_error(PROG, "the bench-core worker is missing: build with make");
    if (ag_libexec("bench-mpi", p->mpi_worker, sizeof p->mpi_worker))
        ag_usage_error(PROG, "--mpi: the bench-mpi worker is missing: build with make (CMake must find MPI)");
    mpi_launcher(p);
    const char *env_node = getenv("ANDGATE_MPI_NODE"); /* the library's variable: the default grouping */
    const char *nodes[2] = { o->mpi_node ? o->mpi_node : env_node && *env_node ? env_node : "shared", NULL };
    if (!strcmp(nodes[0], "both"))
        nodes[0] = "shared", nodes[1] = "rank";
    unsigned nn = nodes[1] ? 2 : 1;
    check_node(p, nodes[0]);
    p->jobs = calloc((size_t)nmethods * p->nranks * (nthreads * p->nwaits * (2 * nn + 1) + 1), sizeof *p->jobs);
    if (!p->jobs)
        ag_usage_error(PROG, "out of memory");
    for (unsigned m = 0; m < nmethods; m++)
        for (unsigned r = 0; r < p->nranks; r++) {
            for (unsigned t = 0; t < nthreads; t++)
                for (unsigned w = 0; w < p->nwaits; w++) {
                    for (unsigned k = 0; k < nn; k++)
                        for (unsigned f = 0; f < 2; f++)
                            add_mpi_job(p, fused[f], "andgate", methods[m], p->waits[w], p->ranks[r], threads[t],
                                        nodes[k]);
                    add_mpi_job(p, "mpi:three-step", "baseline", methods[m], p->waits[w], p->ranks[r], threads[t],
                                NULL);
                }
            add_mpi_job(p, "mpi:MPI_Barrier", "baseline", methods[m], "default", p->ranks[r], 1, NULL);
        }
}

void bench_plan_free(struct bench_plan *p)
{
    free(p->jobs);
    p->jobs = NULL;
}
