/* andgate sim — runs the simulator executable (libexec/andgate/andgate-sim), which carries the
 * simulator build of the algorithm files, and renders its result file with the same report code as
 * andgate bench (--report DIR). docs/sim.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "paths.h"

int cmd_sim(int argc, char **argv)
{
    char path[PATH_MAX + 64], json[PATH_MAX + 64] = "";
    if (ag_libexec("andgate-sim", path, sizeof path)) {
        fprintf(stderr, "andgate sim: cannot find andgate-sim (build it with make)\n");
        return 2;
    }
    /* --report DIR: the result goes to DIR/results.json (unless --json names a file), then the report */
    const char *report = NULL;
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args)
        return 2;
    int na = 0;
    args[na++] = path;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--report") && i + 1 < argc) {
            report = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            snprintf(json, sizeof json, "%s", argv[i + 1]);
        args[na++] = argv[i];
    }
    if (!report) {
        execv(path, args);
        fprintf(stderr, "andgate sim: cannot run %s: %s\n", path, strerror(errno));
        return 2;
    }
    if (!strcmp(json, "-")) {
        fprintf(stderr, "andgate sim: --json -: with --report the result must go to a file (the report reads it)\n");
        return 2;
    }
    if (mkdir(report, 0777) && errno != EEXIST) {
        fprintf(stderr, "andgate sim: --report %s: %s\n", report, strerror(errno));
        return 2;
    }
    if (!*json) {
        snprintf(json, sizeof json, "%s/results.json", report);
        args[na++] = "--json";
        args[na++] = json;
    }
    unlink(json); /* never render a stale result */
    int signo, rc = ag_spawn(args, NULL, NULL, &signo);
    free(args);
    if (rc < 0) {
        fprintf(stderr, "andgate sim: fork: %s\n", strerror(errno));
        return 2;
    }
    if (signo) {
        fprintf(stderr, "andgate sim: the simulator died of signal %d; no report\n", signo);
        return rc;
    }
    if (rc == 2 || rc == 127 || !ag_is_file(json))
        return rc ? rc : 1;
    if (ag_run_report("sim", json, (const char *const[]){ "--out", report, NULL }) == 0)
        fprintf(stderr, "andgate sim: report in %s/index.html\n", report);
    return rc;
}
