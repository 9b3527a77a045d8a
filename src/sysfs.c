/* sysfs.c — small readers of /sys and /proc files (topo.c's topology, cpus.c's CPUs); see sysfs.h. */
#define _GNU_SOURCE
#include "sysfs.h"

#include <stdio.h>
#include <stdlib.h>

int ag_sysfs_int(const char *path, int *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fscanf(f, "%d", out) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* Parses a kernel cpu list ("0-3,8,10-11"); calls fn for every cpu; returns the first cpu or -1. */
int ag_sysfs_cpulist_parse(const char *s, void (*fn)(int cpu, void *arg), void *arg)
{
    int first = -1;
    while (*s && *s != '\n') {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
        }
        for (long c = a; c <= b && c < 1L << 20; c++) {
            if (first < 0)
                first = (int)c;
            if (fn)
                fn((int)c, arg);
        }
        s = *end == ',' ? end + 1 : end;
    }
    return first;
}

/* The first len-1 bytes of a small file, NUL-terminated; 0 or -1. */
int ag_sysfs_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 0;
}

int ag_sysfs_cpulist(const char *path, void (*fn)(int, void *), void *arg)
{
    char buf[4096];
    return ag_sysfs_text(path, buf, sizeof buf) ? -1 : ag_sysfs_cpulist_parse(buf, fn, arg);
}
