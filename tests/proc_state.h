/* proc_state.h — a process's or thread's scheduler state letter (R, S, Z, ...) from /proc, for the tests
 * that wait until the kernel has put a thread to sleep or a process has exited (test_handon.c,
 * test_shm_dead.c). */
#ifndef AG_PROC_STATE_H
#define AG_PROC_STATE_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Field 3 of /proc/PID/stat (tid 0) or /proc/PID/task/TID/stat; '?' when it cannot be read. The command
 * name (field 2) is in parentheses and may hold spaces and ')': the state follows the last ')'. */
static inline char proc_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    if (tid)
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", (long)pid, (long)tid);
    else
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    size_t k = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[k] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

#endif
