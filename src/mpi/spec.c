/* spec.c — libandgate-mpi's strings: the inter-node spec "mpi:inter=dissemination|ibarrier", the
 * ANDGATE_MPI_NODE switch, and the messages for its return codes.
 * The spec has one name and one key, so it gets a parser of its own, written like src/spec.c's
 * grammar (name[:key=value]) and with messages of the same form: what was wrong, what was expected. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mpi_internal.h"

static const char *const inter_names[] = { "dissemination", "ibarrier" };
#define EXPECTED "expected mpi, mpi:inter=dissemination or mpi:inter=ibarrier"

const char *ag_mpi_inter_name(enum ag_mpi_inter k)
{
    return inter_names[k];
}

static int fail(char *msg, size_t msglen, const char *fmt, const char *what)
{
    if (msg && msglen)
        snprintf(msg, msglen, fmt, what);
    return EINVAL;
}

/* NULL, "" and "auto" are the default (dissemination); otherwise "mpi" or "mpi:inter=NAME". */
int ag_mpi_spec_parse(const char *s, enum ag_mpi_inter *out, char *msg, size_t msglen)
{
    *out = AG_MPI_DISSEMINATION;
    if (!s || !*s || !strcmp(s, "auto") || !strcmp(s, "mpi"))
        return 0;
    if (strncmp(s, "mpi:", 4))
        return fail(msg, msglen, "mpi spec '%s': unknown name; " EXPECTED, s);
    const char *kv = s + 4;
    if (strncmp(kv, "inter=", 6))
        return fail(msg, msglen, "mpi spec: unknown key in '%s'; the one key is inter; " EXPECTED, kv);
    const char *v = kv + 6;
    for (unsigned k = 0; k < sizeof inter_names / sizeof *inter_names; k++)
        if (!strcmp(v, inter_names[k])) {
            *out = (enum ag_mpi_inter)k;
            return 0;
        }
    return fail(msg, msglen, "mpi spec: bad value '%s' for inter; expected dissemination or ibarrier", v);
}

int ag_mpi_spec_check(const char *spec, char *msg, size_t msglen)
{
    enum ag_mpi_inter k;
    int rc = ag_mpi_spec_parse(spec, &k, msg, msglen);
    if (!rc && msg && msglen)
        msg[0] = '\0';
    return rc;
}

/* ANDGATE_MPI_NODE: unset, "" or "shared" groups ranks by shared memory; "rank" makes every rank a node. */
int ag_mpi_node_mode(const char *s, enum ag_mpi_node *out)
{
    if (!s || !*s || !strcmp(s, "shared")) {
        *out = AG_MPI_NODE_SHARED;
        return 0;
    }
    if (!strcmp(s, "rank")) {
        *out = AG_MPI_NODE_RANK;
        return 0;
    }
    return EINVAL;
}

const char *ag_mpi_strerror(int err)
{
    switch (err) {
    case AG_MPI_ETHREADS:
        return "MPI is not initialized with enough thread support: call MPI_Init_thread with "
               "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE before ag_mpi_barrier_init";
    case AG_MPI_ECALL:
        return "an MPI call failed";
    case EINVAL:
        return "invalid argument: MPI_COMM_NULL, threads_per_rank 0, tid out of range, a bad config, "
               "a bad $ANDGATE_MPI spec (expected mpi:inter=dissemination|ibarrier) or $ANDGATE_MPI_NODE "
               "(expected shared or rank), or ranks that disagree on them";
    default:
        return ag_strerror(err);
    }
}
