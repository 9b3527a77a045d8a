/* impl_andgate.c — libandgate under the benchmark: any algorithm spec with any wait policy. */
#include <stdio.h>
#include <string.h>

#include "andgate.h"
#include "impl.h"

/* The harness pins the participants where it says (cpus), so the library is told: as a user who pins
 * threads passes cfg.cpus (docs/guide.md, "Topology and cpus"). */
static int ag_init(void **ctx, unsigned n, const char *spec, const char *wait, const int *cpus, char *desc,
                   size_t desclen)
{
    ag_config_t cfg = { .nthreads = n, .algo = spec ? spec : "auto", .wait = wait ? wait : "auto", .cpus = cpus };
    int rc = ag_barrier_init((ag_barrier_t **)ctx, &cfg);
    if (rc)
        ag_config_check(&cfg, desc, desclen); /* say why */
    else
        snprintf(desc, desclen, "%s", ag_barrier_describe(*ctx));
    return rc;
}

static void ag_describe(void *ctx, char *desc, size_t desclen)
{
    snprintf(desc, desclen, "%s", ag_barrier_describe(ctx));
}

static void ag_wait(void *ctx, unsigned tid)
{
    ag_barrier_wait(ctx, tid);
}

static void ag_destroy(void *ctx)
{
    ag_barrier_destroy(ctx);
}

const struct bench_impl bench_impl_andgate = {
    "andgate", "andgate", "libandgate: the spec and wait policy given", ag_init, ag_wait, ag_destroy, NULL,
    ag_describe,
};
