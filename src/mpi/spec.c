/* spec.c — libandgate-mpi's strings: the inter-node spec "mpi:inter=dissemination|ibarrier" and the
 * node grouping ANDGATE_MPI_NODE=shared[:ranks=K]|rank (both read by the library's one spec parser,
 * src/spec.c, each with a table of its own), and the messages for its return codes. */
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
static const struct ag_kind mpi_kind = { "mpi", "one barrier over the threads of every MPI rank", "000 §4",
                                         mpi_keys };
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

/* in enum ag_mpi_node order; shared's ranks=all is the whole shared-memory node, ranks=K cuts it into
 * consecutive groups of K ranks (the last may be smaller). K's bound is far above any machine's ranks:
 * a K at least a node's rank count makes that node one group, as ranks=all does. */
static const char *const all_word[] = { "all", NULL };
static const struct ag_key shared_keys[] = {
    AG_KEY_WORD_OR_INT("ranks", all_word, 1, 65536, "all",
                       "ranks per node: all that share memory, or consecutive groups of K of them"),
    { 0 },
};
static const struct ag_kind node_kinds[] = {
    { "shared", "a node: ranks that share memory (MPI_COMM_TYPE_SHARED), or K of them", "", shared_keys },
    { "rank", "every rank is a node of its own", "", NULL },
};
static const struct ag_kind *node_get(unsigned i)
{
    return &node_kinds[i];
}
static const struct ag_table node_table = { "node grouping", 2, node_get, NULL };

/* ANDGATE_MPI_NODE: unset, "" or "shared" groups ranks by shared memory (*ranks = 0: the whole node);
 * "shared:ranks=K" in groups of K (*ranks = K); "rank" makes every rank a node. Anything else: EINVAL,
 * and the message names the variable as libandgate's ANDGATE_TOPOLOGY check does (msg may be NULL when
 * msglen is 0). */
int ag_mpi_node_mode(const char *s, enum ag_mpi_node *out, int *ranks, char *msg, size_t msglen)
{
    *out = AG_MPI_NODE_SHARED;
    *ranks = 0;
    if (!s || !*s)
        return 0;
    struct ag_spec sp;
    char why[256];
    if (ag_spec_parse(&node_table, s, &sp, why, sizeof why)) {
        snprintf(msg, msglen, "ANDGATE_MPI_NODE='%s': %s", s, why);
        return EINVAL;
    }
    *out = (enum ag_mpi_node)sp.index;
    if (*out == AG_MPI_NODE_SHARED && !ag_is_word(sp.val[0]))
        *ranks = (int)ag_int(sp.val[0]);
    return 0;
}

/* The grouping in the spec's canonical form: "shared:ranks=all", "shared:ranks=2", "rank". */
int ag_mpi_node_format(enum ag_mpi_node mode, int ranks, char *buf, size_t len)
{
    long val[1] = { ranks ? ranks : ag_word_value(0) };
    return ag_kind_format(&node_table, &node_kinds[mode], val, buf, len);
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
    int ranks;
    const char *spec = getenv("ANDGATE_MPI");
    if (ag_mpi_spec_parse(spec, &inter, why, sizeof why))
        return snprintf(msg, msglen, "ANDGATE_MPI='%s': %s", spec, why), EINVAL;
    return ag_mpi_node_mode(getenv("ANDGATE_MPI_NODE"), &node, &ranks, msg, msglen);
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
               "(expected shared, shared:ranks=K or rank), or ranks that disagree on them; "
               "ag_mpi_env_check names a bad environment value";
    default:
        return ag_strerror(err);
    }
}
