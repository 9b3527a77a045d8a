/* common.c — environment and reporting for libandgate-preload.so (see preload.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload.h"

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && !strcmp(v, value);
}

int ag_preload_enabled(void)
{
    return !env_is("ANDGATE_PRELOAD", "0");
}

void ag_preload_verbose(const char *fmt, ...)
{
    if (!env_is("ANDGATE_VERBOSE", "1"))
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
