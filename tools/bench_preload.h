/* bench_preload.h — what `andgate bench --preload` keeps while it runs (bench_preload.c measures,
 * bench_preload_doc.c writes the result document): a record per app configuration or construct, and
 * the run's options and records. */
#ifndef AG_TOOLS_BENCH_PRELOAD_H
#define AG_TOOLS_BENCH_PRELOAD_H

#include <limits.h>

#include "opts.h"

#define MAXRUNS 64
#define MAXT 16

struct rec { /* an app configuration (or the single command), or one construct */
    char name[32], cmd[256];
    const char *compiler, *runtime, *bind;
    unsigned threads, np, ns;
    double plain[MAXRUNS], shim[MAXRUNS]; /* apps: wall times, s; constructs: each run's median overhead, ns */
    double plain_min, shim_min;           /* constructs: the least overhead of any run, ns */
    int identical, compared;
    char error[400];
};

struct pre {
    const char *single, *json, *report, *csv, *apps, *constructs, *bind, *threads_arg;
    unsigned threads[MAXT], nt, repeat, timeout; /* timeout: --timeout S, 0 when not given */
    int quick;
    char dir[PATH_MAX], shim[PATH_MAX + 64], path[PATH_MAX + 32], cmdline[4096], model[256];
    unsigned usable, online;
    struct rec *app, *con;
    unsigned na, nc;
};

/* a bad command line or a file that cannot be written: one line, exit status 2 */
#define die(...) ag_usage_error("andgate bench --preload", __VA_ARGS__)

/* The result document (mode "preload") into path, written whole (a temporary file renamed); with both
 * --json and --report, the --json file too. */
void preload_write_doc(const struct pre *p, const char *path);

/* median and min of n values (NAN for none: a failed record's JSON null) */
void preload_median_min(const double *v, unsigned n, double *med, double *min);

/* the median over the pairs of back-to-back runs of num[i] / den[i] (NAN for none) */
double preload_paired_ratio(const double *num, const double *den, unsigned n);

#endif
