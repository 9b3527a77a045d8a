/* paths.h — where the andgate command finds its parts: helper executables in libexec/andgate, the
 * python report package; and the one call that renders a result file (bench and sim share it). */
#ifndef AG_TOOLS_PATHS_H
#define AG_TOOLS_PATHS_H

#include <stddef.h>

/* The directory of the running executable. */
void ag_exe_dir(char *buf, size_t len);
int ag_is_file(const char *path);
/* libexec/andgate/NAME: $ANDGATE_LIBEXEC, beside the executable (../libexec/andgate), the install
 * tree. 0 and the path, or -1 (path holds the last candidate). */
int ag_libexec(const char *name, char *path, size_t len);
/* Runs argv (argv[0] searched in PATH when it has no '/'), with env_name=env_value added to its
 * environment when env_name is set, and waits: its exit status; 128 + the signal (also in *signo, else
 * 0) when a signal ended it; 127 when it could not be run; -1 (errno) when no process could be made. */
int ag_spawn(char *const argv[], const char *env_name, const char *env_value, int *signo);
/* python3 -m andgate_report ARGS... -- JSON (ARGS NULL-terminated, at most 11) with the package on
 * PYTHONPATH, run without a shell; a failure is reported as a warning naming `tool`. Returns the exit
 * status. Give an option's value in the same argument ("--csv=FILE"), so that a file name that begins
 * with '-' stays a value; the JSON comes after "--" for the same reason. */
int ag_run_report(const char *tool, const char *json, const char *const *args);

#endif
