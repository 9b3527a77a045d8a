/* front.c — see front.h. */
#define _GNU_SOURCE
#include "front.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "child.h"
#include "opts.h"
#include "paths.h"
#include "record.h"

extern char **environ;

/* A record for a job whose worker gave none (it failed, or was killed at the time limit): the schema's
 * fields with zeros, status "failed" and why. */
static void failed_record(FILE *res, const struct front_run *r, const struct ag_job *j, const char *why)
{
    char name[300];
    ag_job_name(j, name, sizeof name);
    struct ag_record rec = { .impl = name, .kind = j->kind, .wait = strcmp(j->kind, "baseline") ? j->wait : "default",
                             .pinning = r->o->pin, .method = j->method, .threads = j->threads, .mean_ns = -1,
                             .error = why };
    if (j->ranks) { /* bench --mpi: threads is the job's total; the OS places them */
        rec.threads = j->ranks * j->threads, rec.ranks = j->ranks, rec.threads_per_rank = j->threads;
        rec.mpi_node = j->node, rec.pinning = "none";
    }
    ag_record_begin(res, &rec);
    ag_record_end(res, &rec);
}

/* The worker's record, the first line of its stdout, when the document may take it: one JSON object,
 * from a worker that ended cleanly or that says itself why it failed ("status":"failed", *failed set).
 * Else NULL, and why: no record, a record cut short (the worker died while writing it), or a record
 * saying "ok" from a worker that then died or ran past its time limit (the measurement did not end as
 * one should). */
static const char *worker_record(struct ag_child *c, int rc, int *failed, char *why, size_t len)
{
    const char *died = c->error[0] ? c->error : "the worker printed no record";
    if (!c->out || c->out[0] != '{') {
        snprintf(why, len, "%s", died);
        return NULL;
    }
    c->out[strcspn(c->out, "\n")] = '\0';
    json_error_t e;
    json_t *rec = json_loads(c->out, 0, &e);
    const char *status = json_string_value(json_object_get(rec, "status"));
    int object = json_is_object(rec);
    *failed = status && !strcmp(status, "failed");
    json_decref(rec);
    if (!object)
        snprintf(why, len, "%s; its record is not one JSON object (%s)", died, rec ? "another value" : e.text);
    else if (rc && !*failed)
        snprintf(why, len, "%s, after printing its record (not kept)", died);
    else
        return c->out;
    return NULL;
}

/* One job in its worker: its record (or a failed one) appended to res. 1 when it failed, -1 when an
 * optional job was left out (nothing written). */
static int run_job(const struct front_run *r, const struct ag_job *j, FILE *res, int first, struct ag_child *c)
{
    char *av[64], buf[1024], why[640];
    int failed = 0;
    ag_exp_job_argv(r->o, r->cmd, j, av, buf, sizeof buf);
    int rc = ag_child_run(av, environ, r->limit_s, c);
    if (rc && j->optional && !strncmp(c->error, "exit status 3", 13) && strchr(":", c->error[13]))
        return -1;
    fputs(first ? "" : ",\n", res);
    const char *out = worker_record(c, rc, &failed, why, sizeof why);
    if (!out) {
        char *rec = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&rec, &len);
        if (!m)
            ag_usage_error(r->prog, "out of memory");
        failed_record(m, r, j, why);
        fclose(m);
        fputs(rec, res);
        if (r->done) /* the record the document gets, so that the table gives its reason */
            r->done(r->ctx, j, rec);
        free(rec);
        return 1;
    }
    fputs(out, res);
    if (r->done)
        r->done(r->ctx, j, out);
    return rc != 0 || failed;
}

unsigned front_run_jobs(const struct front_run *r, char **records)
{
    size_t len = 0;
    FILE *res = open_memstream(records, &len);
    if (!res)
        ag_usage_error(r->prog, "out of memory");
    struct ag_child c = { 0 };
    double t0 = ag_now_s();
    unsigned failed = 0, written = 0;
    int tty = isatty(2), progress = !r->done && !r->o->quiet;
    for (unsigned k = 0; k < r->njobs; k++) {
        const struct ag_job *j = &r->jobs[k];
        double el = ag_now_s() - t0, eta = k ? el / k * (r->njobs - k) : 0;
        char shape[32]; /* bench --mpi: ranks x threads per rank */
        if (j->ranks)
            snprintf(shape, sizeof shape, "%ux%u", j->ranks, j->threads);
        else
            snprintf(shape, sizeof shape, "%u", j->threads);
        if (progress) /* one line rewritten in place on a terminal, a line per measurement in a log */
            fprintf(stderr, "%s[%3u/%u] %-7s %-30.30s threads %-5s elapsed %3.0fs  ETA %3.0fs%s", tty ? "\r" : "", k + 1,
                    r->njobs, j->method, j->spec ? j->spec : j->impl, shape, el, eta, tty ? " " : "\n");
        int rc = run_job(r, j, res, !written, &c);
        failed += rc > 0;
        written += rc >= 0;
    }
    fclose(res);
    free(c.out);
    if (!r->o->quiet)
        fprintf(stderr, "%s%s: %u measurements in %.0f s (%u failed)\n", progress && tty ? "\n" : "", r->prog, written,
                ag_now_s() - t0, failed);
    return failed;
}

/* no --json FILE and no --report: the document lives in /tmp while the outputs read it */
static int temporary(const struct ag_exp *o)
{
    return (!o->json || !strcmp(o->json, "-")) && !o->report;
}

void front_document_open(const char *prog, const struct ag_exp *o, struct ag_outfile *doc)
{
    char path[PATH_MAX];
    if (o->json && o->report && !strcmp(o->json, "-"))
        ag_usage_error(prog, "--json -: with --report the result must go to a file (the report reads it)");
    /* the report's folder first: --csv may name a file in it (make demo's report/results.csv) */
    if (o->report && mkdir(o->report, 0777) && errno != EEXIST)
        ag_usage_error(prog, "--report %s: %s", o->report, strerror(errno));
    if (o->csv && ag_outfile_check(o->csv)) /* the report tool writes it after the run */
        ag_usage_error(prog, "--csv %s: cannot write: %s", o->csv, strerror(errno));
    if (o->json && strcmp(o->json, "-"))
        snprintf(path, sizeof path, "%s", o->json);
    else if (o->report)
        snprintf(path, sizeof path, "%s/results.json", o->report);
    else
        snprintf(path, sizeof path, "/tmp/andgate-%d.json", (int)getpid());
    if (ag_outfile_open(doc, path))
        ag_usage_error(prog, "cannot write %s: %s", path, strerror(errno));
    if (temporary(o)) /* removed by front_outputs, or by the signal that ends the run before */
        ag_remove_on_signal(doc->path, 1);
}

void front_document_commit(const char *prog, struct ag_outfile *doc)
{
    if (ag_outfile_commit(doc))
        ag_usage_error(prog, "cannot write %s: %s", doc->path, strerror(errno));
}

/* argv[i] as a shell reads it back: as it is when nothing in it is special, else in single quotes (a
 * quote inside as '\'') */
static size_t shell_word(char *out, size_t len, const char *w)
{
    static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
    if (*w && !w[strspn(w, plain)])
        return (size_t)snprintf(out, len, " %s", w);
    size_t l = (size_t)snprintf(out, len, " '");
    for (; *w && l < len; w++)
        l += (size_t)snprintf(out + l, len - l, *w == '\'' ? "'\\''" : "%c", *w);
    return l < len ? l + (size_t)snprintf(out + l, len - l, "'") : l;
}

void front_command_line(const char *prog, int argc, char **argv, char *out, size_t len)
{
    size_t l = (size_t)snprintf(out, len, "%s", prog);
    for (int i = 1; i < argc && l < len; i++)
        l += shell_word(out + l, len - l, argv[i]);
}

static void copy_to_stdout(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[65536];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    if (f)
        fclose(f);
    fflush(stdout);
}

int front_outputs(const char *prog, const char *tool, const struct ag_exp *o, const char *json_path, int summary)
{
    char cdf[32], csv[PATH_MAX + 8], dir[PATH_MAX + 8];
    snprintf(cdf, sizeof cdf, "--cdf-threads=%u", o->cdf_threads);
    snprintf(csv, sizeof csv, "--csv=%s", o->csv ? o->csv : "");
    snprintf(dir, sizeof dir, "--out=%s", o->report ? o->report : "");
    int bad = o->csv && ag_run_report(tool, json_path, (const char *const[]){ csv, NULL }) != 0;
    if (o->report) {
        if (ag_run_report(tool, json_path, (const char *const[]){ dir, o->cdf_threads ? cdf : NULL, NULL }) == 0)
            fprintf(stderr, "%s: report in %s/index.html\n", prog, o->report);
        else
            bad = 1;
    }
    /* stdout carries the document alone: --json -, or sim's default (no summary) */
    if ((o->json && !strcmp(o->json, "-")) || (!o->json && !o->report && !summary))
        copy_to_stdout(json_path);
    else if (summary)
        ag_run_report(tool, json_path, (const char *const[]){ "--summary", NULL });
    if (temporary(o)) {
        unlink(json_path);
        ag_remove_on_signal(json_path, 0);
    }
    if (!o->json && !o->report && summary)
        fprintf(stderr, "%s: (use --json FILE or --report DIR to keep the results)\n", prog);
    return bad;
}
