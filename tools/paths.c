/* paths.c — see paths.h. */
#define _GNU_SOURCE
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int ag_run_report(const char *tool, const char *json, const char *flag, const char *arg, const char *extra)
{
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "PYTHONPATH='%s' python3 -m andgate_report '%s' %s %s%s%s%s", python_dir(), json, flag,
             arg ? "'" : "", arg ? arg : "", arg ? "'" : "", extra ? extra : "");
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "andgate %s: warning: '%s' failed (python3 with matplotlib is needed: make deps)\n", tool,
                cmd);
    return rc;
}
