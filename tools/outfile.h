/* outfile.h — an output file written whole or not at all: the result documents of bench, sim and bench
 * --preload, and info --measure's machine file. It is written to a temporary file beside its path and
 * renamed over it at the end, so an earlier file stays as it was until then, also when the run is
 * interrupted (a signal that ends the process removes the temporary file first). */
#ifndef AG_TOOLS_OUTFILE_H
#define AG_TOOLS_OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct ag_outfile {
    FILE *f;
    char path[PATH_MAX], tmp[PATH_MAX + 32]; /* tmp empty: path itself is open (not a regular file) */
};

/* Opens PATH.tmp.PID for writing. A path that exists and is not a regular file (/dev/null, /dev/stdout)
 * is opened itself: there is nothing to replace. A directory, or a file this process may not write, is
 * refused. 0, or -1 with errno. */
int ag_outfile_open(struct ag_outfile *o, const char *path);

/* Closes the file and renames it over its path. 0, or -1 with errno (the temporary file removed). */
int ag_outfile_commit(struct ag_outfile *o);

/* Closes and removes the temporary file; the path is left as it was. */
void ag_outfile_abort(struct ag_outfile *o);

/* Whether path can be written as an output (an --csv the report tool writes later): ag_outfile_open,
 * then ag_outfile_abort. 0, or -1 with errno. */
int ag_outfile_check(const char *path);

/* path (a temporary file of this process) is removed when SIGINT, SIGTERM or SIGHUP ends the process;
 * on = 0 takes it off the list again. At most 4 paths at once. */
void ag_remove_on_signal(const char *path, int on);

#endif
