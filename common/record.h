/* record.h — one result record of the result document (DESIGN.md, "Result JSON"), written the same way
 * by the benchmark workers (bench/engine.c), by the simulator worker (sim/main.c) and by the front end
 * of bench and sim for a job whose worker gave none (tools/front.c). ag_record_begin writes the fields every record
 * has; the writer adds its own fields (comma-first, e.g. ",\"samples_ns\":[...]"); ag_record_end
 * closes it with the status and, for a failed one, the error. */
#ifndef AG_COMMON_RECORD_H
#define AG_COMMON_RECORD_H

#include <stdio.h>

struct ag_record {
    const char *impl, *kind, *wait, *pinning, *method;
    unsigned threads, episodes;
    double median_ns, min_ns, p99_ns, mean_ns, cpu_ns_per_episode; /* mean_ns < 0: not written */
    double jitter_delay_ns; /* method jitter only: with "late" */
    const char *late;
    const char *settings; /* NULL: not written */
    const char *describe; /* what ran, as ag_barrier_describe says it (NULL: not written) */
    unsigned ranks;       /* bench --mpi: MPI ranks (0: not written), threads is ranks x threads_per_rank */
    unsigned threads_per_rank;
    const char *mpi_node; /* bench --mpi, the fused barrier: "shared" or "rank" (NULL: not written) */
    const char *error;    /* NULL: status "ok"; else status "failed" and this */
};

/* The document's head, the same for every mode: {"tool":"andgate","version":…,"mode":MODE,
 * "command":COMMAND,"date":now (UTC) — the caller goes on with ,"host":{…} and its records. */
void ag_document_begin(FILE *f, const char *mode, const char *command);

void ag_record_begin(FILE *f, const struct ag_record *r);
void ag_record_end(FILE *f, const struct ag_record *r);

#endif
