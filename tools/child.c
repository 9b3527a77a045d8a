/* child.c — see child.h. */
#define _GNU_SOURCE
#include "child.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define OUT_CAP (64u << 20)
#define TAIL 1023 /* room for a whole usage line: the list of what --algos takes is long */

double ag_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* stdout appended to c->out; of stderr, the last TAIL bytes in tail */
static void keep(struct ag_child *c, int is_out, const char *buf, size_t n, char *tail, size_t *tl)
{
    if (is_out) {
        if (c->len + n + 1 > c->cap && c->len + n + 1 <= OUT_CAP) {
            char *more = realloc(c->out, (c->len + n + 1) * 2);
            if (more)
                c->out = more, c->cap = (c->len + n + 1) * 2;
        }
        if (c->len + n + 1 <= c->cap)
            memcpy(c->out + c->len, buf, n), c->len += n, c->out[c->len] = '\0';
        return;
    }
    size_t add = n >= TAIL ? TAIL : n, old = *tl + add > TAIL ? TAIL - add : *tl;
    memmove(tail, tail + *tl - old, old);
    memcpy(tail + old, buf + n - add, add);
    *tl = old + add;
    tail[*tl] = '\0';
}

static void child_error(struct ag_child *c, int killed, int status, double limit_s, char *tail)
{
    char why[80];
    if (killed)
        snprintf(why, sizeof why, "killed after its time limit of %.3g s", limit_s);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
    size_t n = strlen(tail);
    while (n && tail[n - 1] == '\n')
        tail[--n] = '\0';
    /* the last line that says something (a launcher's banner ends in a rule of dashes) */
    char *last = NULL;
    for (char *line = tail; *line;) {
        size_t len = strcspn(line, "\n");
        for (size_t k = 0; k < len && last != line; k++)
            if (isalnum((unsigned char)line[k]))
                last = line;
        line += len + (line[len] == '\n');
    }
    if (last)
        last[strcspn(last, "\n")] = '\0';
    snprintf(c->error, sizeof c->error, "%s%s%s", why, last ? ": " : "", last ? last : "");
}

/* Ends a child past its time limit and reaps it: SIGTERM first (mpirun, a bench --mpi worker, then ends
 * its ranks; a plain worker just ends), SIGKILL if it is still there 3 s later. 1 when a signal went. */
static int stop_child(pid_t pid, int *status)
{
    if (kill(pid, SIGTERM))
        return 0;
    double give_up = ag_now_s() + 3;
    while (waitpid(pid, status, WNOHANG) == 0)
        if (ag_now_s() > give_up) {
            kill(pid, SIGKILL);
            waitpid(pid, status, 0);
            break;
        } else
            nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    return 1;
}

/* reads both pipes until they close, reaps the child; kills it when limit_s passes */
static void collect(struct ag_child *c, pid_t pid, int fd_out, int fd_err, double limit_s, int *status)
{
    double deadline = ag_now_s() + limit_s;
    struct pollfd pf[2] = { { fd_out, POLLIN, 0 }, { fd_err, POLLIN, 0 } };
    char tail[TAIL + 1] = "", buf[65536];
    size_t tl = 0;
    int open_fds = 2, killed = 0;
    while (open_fds && !killed) {
        double left = deadline - ag_now_s();
        if (left <= 0) {
            killed = stop_child(pid, status);
            break;
        }
        if (poll(pf, 2, (int)(left * 1000) + 1) <= 0)
            continue;
        for (int k = 0; k < 2; k++) {
            ssize_t n = pf[k].revents ? read(pf[k].fd, buf, sizeof buf) : 0;
            if (n > 0)
                keep(c, k == 0, buf, (size_t)n, tail, &tl);
            else if (pf[k].revents && (n == 0 || errno != EINTR))
                close(pf[k].fd), pf[k].fd = -1, open_fds--;
        }
    }
    while (!killed && waitpid(pid, status, WNOHANG) == 0) /* pipes closed, not exited yet */
        if (ag_now_s() > deadline)
            killed = stop_child(pid, status);
        else
            nanosleep(&(struct timespec){ 0, 100000 }, NULL);
    for (int k = 0; k < 2; k++)
        if (pf[k].fd >= 0)
            close(pf[k].fd);
    if (killed || !WIFEXITED(*status) || WEXITSTATUS(*status))
        child_error(c, killed, *status, limit_s, tail);
}

int ag_child_run(char *const argv[], char *const envp[], double limit_s, struct ag_child *c)
{
    int po[2], pe[2], status = 0;
    c->len = 0, c->error[0] = '\0';
    if (c->out)
        c->out[0] = '\0';
    if (pipe2(po, O_CLOEXEC))
        return snprintf(c->error, sizeof c->error, "pipe: %s", strerror(errno)), -1;
    if (pipe2(pe, O_CLOEXEC))
        return close(po[0]), close(po[1]), snprintf(c->error, sizeof c->error, "pipe: %s", strerror(errno)), -1;
    double t0 = ag_now_s();
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        /* the child ends with this process: a front end stopped by kill (SIGTERM from a scheduler, not
         * a terminal's Ctrl-C to the whole group) leaves no worker running on (mpirun ends its ranks) */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) /* it ended before the line above */
            _exit(127);
        dup2(po[1], 1), dup2(pe[1], 2);
        execvpe(argv[0], argv, envp); /* a bare name (ANDGATE_MPIRUN="mpirun ...") is looked up in PATH */
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]), close(pe[1]);
    if (pid < 0)
        return close(po[0]), close(pe[0]), snprintf(c->error, sizeof c->error, "fork: %s", strerror(errno)), -1;
    collect(c, pid, po[0], pe[0], limit_s, &status);
    c->wall = ag_now_s() - t0;
    return c->error[0] ? -1 : 0;
}

char **ag_child_env(const char *preload, char *const set[])
{
    size_t n = 0, m = 0;
    while (environ[n])
        n++;
    size_t slots = n + 6, extra = preload ? strlen(preload) + 12 : 0;
    char **env = calloc(1, slots * sizeof *env + extra); /* LD_PRELOAD=... lives after the slots */
    if (!env) {
        fprintf(stderr, "andgate: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(environ[i], "=");
        int drop = len == 10 && !strncmp(environ[i], "LD_PRELOAD", 10);
        for (size_t k = 0; set[k] && k < 4; k++)
            drop |= !strncmp(environ[i], set[k], len) && set[k][len] == '=';
        if (!drop)
            env[m++] = environ[i];
    }
    for (size_t k = 0; set[k] && k < 4; k++)
        env[m++] = set[k];
    if (preload) {
        char *s = (char *)(env + slots);
        snprintf(s, extra, "LD_PRELOAD=%s", preload);
        env[m++] = s;
    }
    return env;
}
