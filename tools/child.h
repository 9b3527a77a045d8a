/* child.h — running a program as a child process with a time limit, its stdout captured (andgate
 * bench --preload runs applications with and without libandgate-preload.so through it). */
#ifndef AG_TOOLS_CHILD_H
#define AG_TOOLS_CHILD_H

#include <stddef.h>

struct ag_child {
    double wall;     /* seconds from fork to reaped */
    char *out;       /* everything it wrote on stdout (up to 64 MiB), NUL-terminated; free() it */
    size_t len, cap;
    char error[320]; /* why it failed, with the last line of its stderr; empty when it exited 0 */
};

/* Runs argv[0] (a path, no PATH search) with environment envp; stdout into c->out (appended to
 * nothing: c->len restarts at 0, the buffer is reused), stderr kept only for c->error. Killed
 * (SIGKILL) after limit_s seconds. Returns 0 when it exited with status 0, else -1 with c->error set. */
int ag_child_run(char *const argv[], char *const envp[], double limit_s, struct ag_child *c);

/* This process's environment without LD_PRELOAD and without the variables that `set` names, then
 * `set` (NULL-terminated "NAME=value" strings, at most 4), then LD_PRELOAD=preload when preload is
 * set. One malloc'ed block (free() it; the other strings are borrowed); out of memory ends the process. */
char **ag_child_env(const char *preload, char *const set[]);

/* CLOCK_MONOTONIC in seconds */
double ag_now_s(void);

#endif
