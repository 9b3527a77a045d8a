/* sysfs.h — small readers of /sys and /proc files, shared by topo.c, cpus.c and cgroup.c (internal). None
 * of them allocates memory (sysfs.c says why), and none takes more than about 1 KiB of stack: a barrier's
 * init may run on a thread made with PTHREAD_STACK_MIN (16 KiB). */
#ifndef AG_SYSFS_H
#define AG_SYSFS_H

#include <stddef.h>

/* The first integer of a file; 0 or -1. */
int ag_sysfs_int(const char *path, int *out);

/* Parses a kernel cpu list ("0-3,8,10-11"); calls fn for every cpu; returns the first cpu or -1. */
int ag_sysfs_cpulist_parse(const char *s, void (*fn)(int cpu, void *arg), void *arg);

/* The first len-1 bytes of a small file, NUL-terminated; 0 or -1. */
int ag_sysfs_text(const char *path, char *buf, size_t len);

/* Calls fn with the name of every entry of a directory ("." and ".." included); 0 or -1. */
int ag_sysfs_dir(const char *path, void (*fn)(const char *name, void *arg), void *arg);

/* Calls fn with every line of a file (NUL-terminated, without its newline; fn may modify it), read in
 * pieces into a 1 KiB stack buffer: a line longer than 1023 bytes is left out. 0 or -1. */
int ag_sysfs_lines(const char *path, void (*fn)(char *line, void *arg), void *arg);

/* A file holding a cpu list, parsed as ag_sysfs_cpulist_parse does; the first cpu, or -1. */
int ag_sysfs_cpulist(const char *path, void (*fn)(int, void *), void *arg);

#endif
