/* spec.c — libandgate-mpi's strings: the inter-node spec "mpi:inter=dissemination|ibarrier" (read by
 * the library's one spec parser, src/spec.c, with a table of one kind), the ANDGATE_MPI_NODE switch,
 * and the messages for its return codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "spec.h"

/* in enum ag_mpi_inter order */
static const char *const inter_names[] = { "dissemination", "ibarrier", NULL };
static const struct ag_key mpi_keys[] = {
    AG_KEY_WORD("inter", inter_names, "dissemination",
                "how node leaders meet: zero-byte messages in dissemination rounds, or MPI_Ibarrier"),
    { 0 },
};
static const struct ag_kind mpi_kind = { "mpi", "one barrier over the threads of every MPI rank", "000 §4", mpi_keys };
static const struct ag_kind *mpi_get(unsigned i)
{
    (void)i;
    return &mpi_kind;
}
static const struct ag_table mpi_table = { "mpi spec", 1, mpi_get, NULL };

const char *ag_mpi_inter_name(enum ag_mpi_inter k)
{
    return inter_names[k];
}

/* NULL, "" and "auto" are the default (dissemination); otherwise "mpi" or "mpi:inter=NAME". */
int ag_mpi_spec_parse(const char *s, enum ag_mpi_inter *out, char *msg, size_t msglen)
{
    *out = AG_MPI_DISSEMINATION;
    if (!s || !*s || !strcmp(s, "auto"))
        return 0;
    struct ag_spec sp;
    int rc = ag_spec_parse(&mpi_table, s, &sp, msg, msglen);
    if (!rc)
        *out = (enum ag_mpi_inter)ag_word(sp.val[0]);
    return rc;
}

int ag_mpi_spec_check(const char *spec, char *msg, size_t msglen)
{
    enum ag_mpi_inter k;
    int rc = ag_mpi_spec_parse(spec, &k, msg, msglen);
    if (!rc && msg && msglen)
        msg[0] = '\0';
    return rc;
}

/* ANDGATE_MPI_NODE: unset, "" or "shared" groups ranks by shared memory; "rank" makes every rank a node.
 * Anything else: EINVAL, and the message names the variable as libandgate's ANDGATE_TOPOLOGY check does
 * (msg may be NULL when msglen is 0). */
int ag_mpi_node_mode(const char *s, enum ag_mpi_node *out, char *msg, size_t msglen)
{
    if (!s || !*s || !strcmp(s, "shared")) {
        *out = AG_MPI_NODE_SHARED;
        return 0;
    }
    if (!strcmp(s, "rank")) {
        *out = AG_MPI_NODE_RANK;
        return 0;
    }
    snprintf(msg, msglen, "ANDGATE_MPI_NODE='%s': expected shared or rank", s);
    return EINVAL;
}

/* libandgate-mpi's own variables, each checked alone so that the message can name it (the node
 * barrier's ANDGATE_ALGO, ANDGATE_WAIT, ... are libandgate's, checked by ag_config_check). */
int ag_mpi_env_check(char *msg, size_t msglen)
{
    char dummy[1], why[256];
    if (!msg || !msglen)
        msg = dummy, msglen = sizeof dummy;
    msg[0] = '\0';
    enum ag_mpi_inter inter;
    enum ag_mpi_node node;
    const char *spec = getenv("ANDGATE_MPI");
    if (ag_mpi_spec_parse(spec, &inter, why, sizeof why))
        return snprintf(msg, msglen, "ANDGATE_MPI='%s': %s", spec, why), EINVAL;
    return ag_mpi_node_mode(getenv("ANDGATE_MPI_NODE"), &node, msg, msglen);
}

const char *ag_mpi_strerror(int err)
{
    switch (err) {
    case AG_MPI_ETHREADS:
        return "MPI is not initialized with enough thread support: call MPI_Init_thread with "
               "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE before ag_mpi_barrier_init";
    case AG_MPI_ECALL:
        return "an MPI call failed";
    case AG_EBROKEN: /* libandgate's message says to reset: this barrier has no reset (docs/mpi.md) */
        return "barrier broken: a thread of some rank timed out, or an MPI call failed; it stays broken: "
               "destroy it on every rank and create another";
    case EINVAL:
        return "invalid argument: MPI_COMM_NULL, threads_per_rank 0, tid out of range, a bad config, "
               "a bad $ANDGATE_MPI spec (expected mpi:inter=dissemination|ibarrier) or $ANDGATE_MPI_NODE "
               "(expected shared or rank), or ranks that disagree on them; ag_mpi_env_check names a bad "
               "environment value";
    default:
        return ag_strerror(err);
    }
}
