/* sysfs.c — small readers of /sys and /proc files (topo.c's topology, cpus.c's CPUs); see sysfs.h.
 * They allocate nothing (system calls into the caller's buffers, no stdio, no opendir): the preload
 * library reads the topology when it is loaded, and a program's heap must look the same with it as
 * without it (docs/preload.md). */
#define _GNU_SOURCE
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int ag_sysfs_int(const char *path, int *out)
{
    char buf[64], *end;
    if (ag_sysfs_text(path, buf, sizeof buf))
        return -1;
    long v = strtol(buf, &end, 10);
    if (end == buf)
        return -1;
    *out = (int)v;
    return 0;
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
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return 0;
}

int ag_sysfs_lines(const char *path, void (*fn)(char *line, void *arg), void *arg)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[1024];
    size_t have = 0; /* bytes of buf holding the start of the next line */
    int skip = 0;    /* inside a line too long for buf: dropped up to its newline */
    for (;;) {
        ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
            *nl = '\0';
            if (!skip)
                fn(line, arg);
            skip = 0;
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf - 1) /* no newline in a full buffer */
            skip = 1, have = 0;
    }
    if (have && !skip) { /* a last line without a newline */
        buf[have] = '\0';
        fn(buf, arg);
    }
    close(fd);
    return 0;
}

/* The kernel's directory record (getdents64); glibc's struct dirent has the same head. */
struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

int ag_sysfs_dir(const char *path, void (*fn)(const char *name, void *arg), void *arg)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[1024] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const struct linux_dirent64 *e = (const void *)(buf + off);
            fn(e->d_name, arg);
            off += e->d_reclen;
        }
    close(fd);
    return n < 0 ? -1 : 0;
}

int ag_sysfs_cpulist(const char *path, void (*fn)(int, void *), void *arg)
{
    /* read in pieces, each parsed up to its last ',' and the rest carried over: a list may be long
     * ("0,2,4,...", kilobytes on a large machine), a stack buffer stays small */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[256];
    size_t have = 0;
    int first = -1, eof = 0;
    while (!eof) {
        ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            eof = 1;
        else
            have += (size_t)r;
        size_t cut = have;
        while (!eof && cut && buf[cut - 1] != ',')
            cut--;
        if (!cut && !eof && have == sizeof buf - 1)
            break; /* 255 bytes without a ',': not a cpu list */
        char keep = buf[cut];
        buf[cut] = '\0';
        int f = ag_sysfs_cpulist_parse(buf, fn, arg);
        if (first < 0)
            first = f;
        buf[cut] = keep;
        memmove(buf, buf + cut, have - cut);
        have -= cut;
    }
    close(fd);
    return first;
}
