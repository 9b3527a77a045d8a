/* andgate sim — runs the simulator executable (libexec/andgate/andgate-sim), which carries the
 * simulator build of the algorithm files; arguments pass through. docs/sim.md. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cmd_sim(int argc, char **argv)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    const char *env = getenv("ANDGATE_LIBEXEC");
    snprintf(path, sizeof path, "%s/andgate-sim", env ? env : "");
    if (!env || access(path, X_OK) != 0)
        snprintf(path, sizeof path, "%s/../libexec/andgate/andgate-sim", self);
    if (access(path, X_OK) != 0)
        snprintf(path, sizeof path, "%s/andgate-sim", AG_INSTALL_LIBEXEC);
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "andgate sim: cannot run %s (build it with make)\n", path);
    (void)argc;
    return 2;
}
