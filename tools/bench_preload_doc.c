/* bench_preload_doc.c — the result document of `andgate bench --preload` (mode "preload", DESIGN.md;
 * python/andgate_report/schema.json): the host, the shim, the environment that matters, a record per
 * app configuration and per construct. See bench_preload.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_preload.h"
#include "json.h"
#include "outfile.h"
#include "record.h"
#include "stats.h"

extern char **environ;

/* median and min of n values (NAN for none: a failed record's JSON null) */
void preload_median_min(const double *v, unsigned n, double *med, double *min)
{
    double s[MAXRUNS];
    memcpy(s, v, n * sizeof *v);
    struct stats st = stats_of(s, n);
    *med = n ? st.median : NAN;
    *min = n ? st.min : NAN;
}

/* The median over pairs i of num[i] / den[i] (runs i of both sides were taken back to back). */
double preload_paired_ratio(const double *num, const double *den, unsigned n)
{
    double q[MAXRUNS], med, min;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (den[i] > 0)
            q[k++] = num[i] / den[i];
    preload_median_min(q, k, &med, &min);
    return med;
}

/* ---- the result document ---- */

static void jnum(FILE *f, const char *key, double v, int prec)
{
    fprintf(f, ",\"%s\":", key);
    if (isfinite(v))
        fprintf(f, "%.*f", prec, v);
    else
        fputs("null", f);
}

static void jtimes(FILE *f, const char *key, const double *v, unsigned n)
{
    fprintf(f, ",\"%s\":[", key);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s%.4f", i ? "," : "", v[i]);
    fputc(']', f);
}

static void jstatus(FILE *f, const struct rec *r)
{
    fprintf(f, ",\"status\":\"%s\"", r->error[0] ? "failed" : "ok");
    if (r->error[0])
        fprintf(f, ",\"error\":"), json_str(f, r->error);
    fputc('}', f);
}

static void write_app(FILE *f, const struct rec *r)
{
    double mp, ms, lp, ls;
    preload_median_min(r->plain, r->np, &mp, &lp);
    preload_median_min(r->shim, r->ns, &ms, &ls);
    if (r->name[0])
        fprintf(f, "{\"app\":\"%s\",\"compiler\":\"%s\",\"runtime\":\"%s\",\"bind\":\"%s\",\"threads\":%u,",
                r->name, r->compiler, r->runtime, r->bind, r->threads);
    else
        fputc('{', f);
    fprintf(f, "\"command\":");
    json_str(f, r->cmd);
    jtimes(f, "plain_s", r->plain, r->np);
    jtimes(f, "preload_s", r->shim, r->ns);
    jnum(f, "median_plain_s", mp, 4), jnum(f, "median_preload_s", ms, 4);
    jnum(f, "min_plain_s", lp, 4), jnum(f, "min_preload_s", ls, 4);
    unsigned pairs = r->np < r->ns ? r->np : r->ns;
    jnum(f, "speedup", r->error[0] ? NAN : preload_paired_ratio(r->plain, r->shim, pairs), 3);
    if (r->compared)
        fprintf(f, ",\"output_identical\":%s", r->identical ? "true" : "false");
    jstatus(f, r);
}

static void write_con(FILE *f, const struct rec *r)
{
    fprintf(f, "{\"construct\":\"%s\",\"compiler\":\"%s\",\"runtime\":\"%s\",\"bind\":\"%s\",\"threads\":%u",
            r->name, r->compiler, r->runtime, r->bind, r->threads);
    double rt, sh, lo;
    preload_median_min(r->plain, r->np, &rt, &lo);
    preload_median_min(r->shim, r->ns, &sh, &lo);
    jnum(f, "runtime_ns", rt, 1), jnum(f, "shim_ns", sh, 1);
    jnum(f, "runtime_min_ns", r->plain_min, 1), jnum(f, "shim_min_ns", r->shim_min, 1);
    jnum(f, "ratio", r->error[0] || r->np != r->ns ? NAN : preload_paired_ratio(r->shim, r->plain, r->np), 3);
    jstatus(f, r);
}

void preload_write_doc(const struct pre *p, const char *path)
{
    if (p->json && p->report && path == p->path) /* both asked: the report directory gets its copy too */
        preload_write_doc(p, p->json);
    struct ag_outfile out; /* written whole or not at all: a reader never sees half a document */
    if (ag_outfile_open(&out, path))
        die("cannot write %s: %s", path, strerror(errno));
    FILE *f = out.f;
    ag_document_begin(f, "preload", p->cmdline);
    fprintf(f, ",\"host\":{\"model\":");
    json_str(f, p->model);
    fprintf(f, ",\"cpus_usable\":%u,\"cpus_online\":%u},\"shim\":", p->usable, p->online);
    json_str(f, p->shim);
    fprintf(f, ",\"repeat\":%u,\"quick\":%s,\"environment\":{", p->repeat, p->quick ? "true" : "false");
    for (unsigned i = 0, n = 0; environ[i]; i++) {
        const char *e = environ[i], *eq = strchr(e, '=');
        int set_here = !p->single && (!strncmp(e, "OMP_NUM_THREADS=", 16) || !strncmp(e, "OMP_PROC_BIND=", 14));
        if (!eq || set_here ||
            (strncmp(e, "ANDGATE_", 8) && strncmp(e, "OMP_", 4) && strncmp(e, "GOMP_", 5) && strncmp(e, "KMP_", 4)))
            continue;
        fprintf(f, "%s\"%.*s\":", n++ ? "," : "", (int)(eq - e), e);
        json_str(f, eq + 1);
    }
    fputc('}', f);
    fprintf(f, ",\"apps\":[");
    for (unsigned i = 0; i < p->na; i++)
        fprintf(f, "%s\n", i ? "," : ""), write_app(f, &p->app[i]);
    fprintf(f, "],\"constructs\":[");
    for (unsigned i = 0; i < p->nc; i++)
        fprintf(f, "%s\n", i ? "," : ""), write_con(f, &p->con[i]);
    fprintf(f, "]}\n");
    if (ag_outfile_commit(&out))
        die("cannot write %s: %s", path, strerror(errno));
}
