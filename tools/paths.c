/* paths.c — see paths.h. */
#define _GNU_SOURCE
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void ag_exe_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
}

int ag_is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int ag_libexec(const char *name, char *path, size_t len)
{
    char base[PATH_MAX];
    ag_exe_dir(base, sizeof base);
    const char *env = getenv("ANDGATE_LIBEXEC");
    if (env && (snprintf(path, len, "%s/%s", env, name), ag_is_file(path)))
        return 0;
    if (snprintf(path, len, "%s/../libexec/andgate/%s", base, name), ag_is_file(path))
        return 0;
    snprintf(path, len, "%s/%s", AG_INSTALL_LIBEXEC, name);
    return ag_is_file(path) ? 0 : -1;
}

/* The python package that renders results: $ANDGATE_PYTHONPATH, the install tree, the source tree. */
static const char *python_dir(void)
{
    static char dir[PATH_MAX + 64];
    const char *env = getenv("ANDGATE_PYTHONPATH");
    char base[PATH_MAX], cand[PATH_MAX + 64];
    ag_exe_dir(base, sizeof base);
    snprintf(cand, sizeof cand, "%s/../share/andgate/python/andgate_report/report.py", base);
    if (env)
        snprintf(dir, sizeof dir, "%s", env);
    else if (ag_is_file(cand))
        snprintf(dir, sizeof dir, "%s/../share/andgate/python", base);
    else if (snprintf(cand, sizeof cand, "%s/andgate_report/report.py", AG_INSTALL_PYTHON), ag_is_file(cand))
        snprintf(dir, sizeof dir, "%s", AG_INSTALL_PYTHON);
    else
        snprintf(dir, sizeof dir, "%s", AG_PYTHON_DIR);
    return dir;
}

int ag_spawn(char *const argv[], const char *env_name, const char *env_value, int *signo)
{
    *signo = 0;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (env_name)
            setenv(env_name, env_value, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "andgate: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        *signo = WTERMSIG(status);
        return 128 + *signo;
    }
    return WEXITSTATUS(status);
}

int ag_run_report(const char *tool, const char *json, const char *const *args)
{
    char *argv[18] = { "python3", "-m", "andgate_report" };
    int n = 3, signo;
    for (int i = 0; args && args[i] && n < 15; i++)
        argv[n++] = (char *)args[i];
    argv[n++] = "--", argv[n++] = (char *)json, argv[n] = NULL;
    /* no shell: paths are arguments, whatever characters they hold */
    int rc = ag_spawn(argv, "PYTHONPATH", python_dir(), &signo);
    if (rc < 0)
        fprintf(stderr, "andgate %s: warning: cannot start python3 for the report: %s\n", tool, strerror(errno));
    else if (rc != 0 && rc != 127)
        fprintf(stderr, "andgate %s: warning: python3 -m andgate_report %s -- %s failed (exit %d)\n", tool,
                args && args[0] ? args[0] : "", json, rc);
    return rc;
}
