/* outfile.c — see outfile.h. */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NREMOVE 4
static char remove_path[NREMOVE][PATH_MAX + 32];
static volatile sig_atomic_t remove_set[NREMOVE];
static pid_t owner;

static void on_signal(int sig)
{
    if (getpid() == owner) /* not a worker between its fork and its exec */
        for (int i = 0; i < NREMOVE; i++)
            if (remove_set[i])
                unlink(remove_path[i]);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the process ends as the signal meant */
}

void ag_remove_on_signal(const char *path, int on)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    if (!owner) {
        owner = getpid();
        for (unsigned k = 0; k < sizeof sigs / sizeof *sigs; k++) {
            struct sigaction old, sa = { .sa_handler = on_signal };
            sigemptyset(&sa.sa_mask);
            /* a signal the caller ignores (nohup's SIGHUP) stays ignored */
            if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
                sigaction(sigs[k], &sa, NULL);
        }
    }
    for (int i = 0; i < NREMOVE; i++) {
        if (on && !remove_set[i]) {
            snprintf(remove_path[i], sizeof remove_path[i], "%s", path);
            remove_set[i] = 1;
            return;
        }
        if (!on && remove_set[i] && !strcmp(remove_path[i], path)) {
            remove_set[i] = 0;
            return;
        }
    }
}

int ag_outfile_open(struct ag_outfile *o, const char *path)
{
    struct stat st;
    o->f = NULL, o->tmp[0] = '\0';
    if (strlen(path) >= sizeof o->path)
        return errno = ENAMETOOLONG, -1;
    snprintf(o->path, sizeof o->path, "%s", path);
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return errno = EISDIR, -1;
    if (exists && !S_ISREG(st.st_mode)) /* a device or a pipe: written in place, never replaced */
        return (o->f = fopen(path, "w")) ? 0 : -1;
    if (exists && access(path, W_OK))
        return -1;
    char real[PATH_MAX];
    if (exists && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real))
        snprintf(o->path, sizeof o->path, "%s", real); /* the link's file is replaced, not the link */
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->path, (long)getpid());
    ag_remove_on_signal(o->tmp, 1);
    if ((o->f = fopen(o->tmp, "w")))
        return 0;
    int e = errno;
    ag_remove_on_signal(o->tmp, 0);
    o->tmp[0] = '\0';
    return errno = e, -1;
}

int ag_outfile_commit(struct ag_outfile *o)
{
    int rc = fclose(o->f);
    o->f = NULL;
    if (!o->tmp[0])
        return rc ? -1 : 0;
    if (rc == 0 && rename(o->tmp, o->path) == 0) {
        ag_remove_on_signal(o->tmp, 0);
        return 0;
    }
    int e = errno;
    ag_outfile_abort(o);
    return errno = e, -1;
}

void ag_outfile_abort(struct ag_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) {
        unlink(o->tmp);
        ag_remove_on_signal(o->tmp, 0);
    }
}

int ag_outfile_check(const char *path)
{
    struct ag_outfile o;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return access(path, W_OK); /* opening a fifo to try it would wait for its reader */
    if (ag_outfile_open(&o, path))
        return -1;
    ag_outfile_abort(&o);
    return 0;
}
