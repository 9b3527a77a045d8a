/* front.h — the experiment front end's steps after the plan, the same for `andgate bench` and
 * `andgate sim`: where the result document goes, every job run in its worker (its record, or a failed
 * one when the worker gave none), and the outputs (CSV, report, summary, --json -). The options and
 * the job type are in common/experiment.h; each command keeps only its defaults and its plan. */
#ifndef AG_TOOLS_FRONT_H
#define AG_TOOLS_FRONT_H

#include <stddef.h>
#include <stdio.h>

#include "experiment.h"
#include "outfile.h"

struct front_run {
    const char *prog;          /* "andgate bench" */
    unsigned cmd;              /* AG_EXP_BENCH or AG_EXP_SIM */
    const struct ag_exp *o;
    const struct ag_job *jobs;
    unsigned njobs;
    double limit_s;            /* a worker past it is killed (its record: failed) */
    /* after each record, the worker's or the failed one written for it (NULL: a progress line before
     * each job instead, unless o->quiet) */
    void (*done)(void *ctx, const struct ag_job *j, const char *record);
    void *ctx;
};

/* Runs every job; the records, comma-separated, go to *records (malloc'ed). A worker that exits 3 for an
 * optional job gave no record on purpose (a device the machine lacks). Returns how many failed. */
unsigned front_run_jobs(const struct front_run *r, char **records);

/* The document, opened before anything runs so that a bad --json, --report or --csv is refused first
 * (one line, exit 2): --json FILE, else DIR/results.json for --report, else a temporary file (also for
 * --json -: copied to stdout by front_outputs). It is written beside its path and renamed over it by
 * front_document_commit (outfile.h): an interrupted run leaves an earlier document as it was. */
void front_document_open(const char *prog, const struct ag_exp *o, struct ag_outfile *doc);

/* The document written (doc->f): in place at doc->path (exit 2 when it cannot be). */
void front_document_commit(const char *prog, struct ag_outfile *doc);

/* "andgate bench --threads 2 ...": the command line as the document records it */
void front_command_line(const char *prog, int argc, char **argv, char *out, size_t len);

/* After the document is written: --csv, --report, then the summary (when summary is set and stdout is
 * not the document), or the document itself on stdout for --json -; a temporary document is removed.
 * Returns nonzero when --csv or --report could not be written (the command then exits 1). */
int front_outputs(const char *prog, const char *tool, const struct ag_exp *o, const char *json_path, int summary);

#endif
