/* common.c — environment and reporting for libandgate-preload.so (see preload.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "andgate.h"
#include "internal.h"
#include "preload.h"
#include "team.h"
#include "topo.h"

/* At load: the topology from sysfs when it describes every CPU (topo.h says why), before any barrier;
 * and in a program linked with an OpenMP runtime that the shim serves, what its first team would pay
 * inside a region, paid now (team.h, ag_team_warm). RTLD_NEXT: the runtime's entry points, not the
 * shim's own. A program without a runtime pays two symbol lookups. */
__attribute__((constructor)) static void at_load(void)
{
    ag_topo_prefer_sysfs();
    int gomp = dlsym(RTLD_NEXT, "GOMP_parallel") != NULL;
    int kmp = !gomp && dlsym(RTLD_NEXT, "__kmpc_fork_call") != NULL;
    if (!gomp && !kmp)
        return;
    const struct ag_preload_env *env = ag_preload_env();
    if (env->enabled && (gomp ? env->gomp : env->omp))
        ag_team_warm(gomp ? "libgomp" : "libomp"); /* libomp's GOMP_parallel too: gomp.c tells whose
                                                    * at the first GOMP_* call */
}

static struct ag_preload_env env;
static struct ag_once env_once = AG_ONCE_INIT;

/* A 0/1 switch: 0 when it is fine (*out set), -1 when the value is neither. */
static int switch_of(const char *name, int def, int *out)
{
    const char *v = getenv(name);
    *out = def;
    if (!v || !*v)
        return 0;
    if (!strcmp(v, "0") || !strcmp(v, "1")) {
        *out = v[0] == '1';
        return 0;
    }
    ag_preload_warn_once("andgate-preload: %s='%s': expected 0 or 1; the shim stays idle (glibc's, libgomp's and "
                         "libomp's own barriers are used)\n", name, v);
    return -1;
}

static void env_read(void)
{
    int bad = switch_of("ANDGATE_PRELOAD", 1, &env.enabled) | switch_of("ANDGATE_GOMP", 1, &env.gomp) |
              switch_of("ANDGATE_OMP", 1, &env.omp) | switch_of("ANDGATE_OMP_LOOPS", 1, &env.omp_loops) |
              switch_of("ANDGATE_VERBOSE", 0, &env.verbose);
    char why[400] = "";
    if (!bad && env.enabled)
        ag_env_verify(why, sizeof why); /* names the variable */
    if (*why) {
        ag_preload_warn_once("andgate-preload: %s; the shim stays idle (glibc's, libgomp's and libomp's own "
                             "barriers are used)\n", why);
        bad = 1;
    }
    if (bad)
        env.enabled = env.gomp = env.omp = env.omp_loops = 0;
}

const struct ag_preload_env *ag_preload_env(void)
{
    ag_once(&env_once, env_read);
    return &env;
}

void ag_preload_verbose(const char *fmt, ...)
{
    if (!ag_preload_env()->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void ag_preload_warn_once(const char *fmt, ...)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&said))
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}
