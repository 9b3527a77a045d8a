/* setup.c — ag_mpi_barrier_init and _destroy: the ranks agree on the arguments and the totals, build
 * their communicators (a private dup, the node, the leaders) and the node barrier in an MPI shared
 * window.
 * Invariant of init: every step that can fail on some ranks only is followed, before any rank acts on
 * it alone, by an agreement on comm (MPI_Allreduce of the codes), so no rank is left in a collective
 * the others skipped. The exceptions are MPI calls that fail (AG_MPI_ECALL): best effort. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "spec.h"
#include "wait.h" /* libandgate's auto rule, resolved here against the node */

#define AG_MPI_ALIGN 64 /* ag_barrier_init_shm wants 64-byte aligned memory */

/* What a rank can check alone. ncfg gets the node barrier's configuration (nthreads set later). */
static int local_checks(unsigned tpr, const ag_config_t *cfg, const char *spec, struct ag_mpi_barrier *b,
                        ag_config_t *ncfg)
{
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_SERIALIZED)
        return AG_MPI_ETHREADS;
    if (!tpr)
        return EINVAL;
    if (cfg && ((cfg->nthreads && cfg->nthreads != tpr) || cfg->cpus || (cfg->flags & ~AG_PSHARED)))
        return EINVAL;
    if (ag_mpi_spec_parse(spec ? spec : getenv("ANDGATE_MPI"), &b->inter, NULL, 0))
        return EINVAL;
    if (ag_mpi_node_mode(getenv("ANDGATE_MPI_NODE"), &b->mode, &b->node_group, NULL, 0))
        return EINVAL;
    *ncfg = cfg ? *cfg : (ag_config_t){ 0 };
    ncfg->nthreads = tpr;
    ncfg->flags = AG_PSHARED;
    return ag_config_check(ncfg, NULL, 0);
}

/* The largest code of any rank; EINVAL when the ranks disagree on the node grouping (mode and K) or the
 * inter spec: every value v is reduced as max(v) and max(-v), which are equal and opposite only when
 * every rank has the same v. */
static int agree(MPI_Comm comm, int rc, const struct ag_mpi_barrier *b)
{
    int mode = (int)b->mode, inter = (int)b->inter, group = b->node_group;
    int v[7] = { rc, mode, -mode, inter, -inter, group, -group }, m[7];
    if (MPI_Allreduce(v, m, 7, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    if (m[0])
        return m[0];
    return m[1] != -m[2] || m[3] != -m[4] || m[5] != -m[6] ? EINVAL : 0;
}

/* ANDGATE_MPI_NODE=shared:ranks=K: the shared-memory node cut into consecutive groups of K of its ranks
 * (node ranks 0..K-1, K..2K-1, ...; the last group may be smaller). Split from the node, never from
 * comm, so a group never spans machines and its shared window stays valid. On failure b->node is still
 * the whole node (teardown frees it). */
static int cut_node(struct ag_mpi_barrier *b)
{
    MPI_Comm group = MPI_COMM_NULL;
    int r = 0;
    if (MPI_Comm_rank(b->node, &r) != MPI_SUCCESS ||
        MPI_Comm_split(b->node, r / b->node_group, r, &group) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    MPI_Comm_free(&b->node);
    b->node = group;
    return 0;
}

/* comm -> b->comm (private: our tags never meet the application's) -> node -> leaders. */
static int make_comms(struct ag_mpi_barrier *b, MPI_Comm comm)
{
    int rank, idx[2] = { 0, 0 };
    if (MPI_Comm_dup(comm, &b->comm) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    MPI_Comm_set_errhandler(b->comm, MPI_ERRORS_RETURN); /* inherited by node and leaders */
    MPI_Comm_rank(b->comm, &rank);
    int rc = b->mode == AG_MPI_NODE_RANK
                 ? MPI_Comm_split(b->comm, rank, 0, &b->node)
                 : MPI_Comm_split_type(b->comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &b->node);
    if (rc != MPI_SUCCESS)
        return AG_MPI_ECALL;
    if (b->mode == AG_MPI_NODE_SHARED && b->node_group && (rc = cut_node(b)))
        return rc;
    if (MPI_Comm_rank(b->node, &b->node_rank) != MPI_SUCCESS ||
        MPI_Comm_size(b->node, &b->node_size) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    if (MPI_Comm_split(b->comm, b->node_rank == 0 ? 0 : MPI_UNDEFINED, rank, &b->leaders) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    if (b->leaders != MPI_COMM_NULL) {
        MPI_Comm_rank(b->leaders, &idx[0]);
        MPI_Comm_size(b->leaders, &idx[1]);
    }
    /* the node learns its leader's place: node_index 0 is the node that hands out AG_SERIAL */
    if (MPI_Bcast(idx, 2, MPI_INT, 0, b->node) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    b->node_index = idx[0];
    b->nodes = idx[1];
    return 0;
}

/* This rank's first node-barrier tid, the node's and the job's totals. */
static int count_threads(struct ag_mpi_barrier *b)
{
    unsigned long long mine = b->tpr, before = 0, node = 0, job = 0;
    if (MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, b->node) != MPI_SUCCESS ||
        MPI_Allreduce(&mine, &node, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, b->node) != MPI_SUCCESS ||
        MPI_Allreduce(&mine, &job, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, b->comm) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    if (b->node_rank == 0)
        before = 0; /* MPI_Exscan leaves rank 0's result undefined */
    if (node > UINT_MAX)
        return EINVAL; /* the same on every rank of the node: the node gives up as a whole */
    b->base = (unsigned)before;
    b->node_threads = (unsigned)node;
    b->job_threads = (unsigned long)job;
    return 0;
}

/* The node barrier's wait=auto, resolved against the node rather than one process. libandgate's rule
 * (src/wait.c) weighs the participants against the CPUs this process may use; mpirun binds ranks to
 * cores, so a rank alone may see 1 CPU while the node barrier has 2 participants on 2 CPUs, and would
 * then never spin (a 12 us median instead of 0.24 us per episode here, docs/mpi.md). The node's CPUs:
 * the union of its ranks' affinity masks, capped by the sum of their ag_usable_cpus() (cgroup quotas).
 * The rule itself (ag_wait_resolve) decides, with those CPUs as the usable ones. Collective on the node;
 * node rank 0's choice is the one used. */
static int node_wait(const struct ag_mpi_barrier *b, ag_config_t *ncfg, char *buf, size_t len)
{
    /* ncfg->cpus: set by node_cpus on node rank 0 when the placement is known */
    cpu_set_t mine, all;
    unsigned long usable = ag_usable_cpus(), node_usable = 0;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine))
        CPU_ZERO(&mine);
    if (MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_BYTE, MPI_BOR, b->node) != MPI_SUCCESS ||
        MPI_Allreduce(&usable, &node_usable, 1, MPI_UNSIGNED_LONG, MPI_SUM, b->node) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    const char *w = ncfg->wait ? ncfg->wait : getenv("ANDGATE_WAIT");
    unsigned long cpus = (unsigned long)CPU_COUNT(&all);
    if (node_usable < cpus)
        cpus = node_usable;
    if (b->node_rank != 0 || (w && *w && strcmp(w, "auto")) || cpus == 0)
        return 0; /* not auto, or nothing known: libandgate decides */
    struct ag_spec sp;
    struct ag_waitpol wp;
    if (ag_spec_parse(&ag_wait_table, "auto", &sp, NULL, 0))
        return EINVAL; /* cannot happen: "auto" is a wait policy */
    ag_wait_resolve(&sp, b->node_threads, (unsigned)cpus, ncfg->cpus != NULL, &wp);
    ag_wait_format(&wp, buf, len);
    ncfg->wait = buf;
    return 0;
}

/* Where the node barrier's participants run, when every rank of the node is bound to one CPU (mpirun's
 * --bind-to core with a core per rank): rank r's threads all on r's CPU, as cfg.cpus for node rank 0,
 * which lays the barrier out. Then algo=auto sees the threads that share a CPU (src/auto.c: with a
 * policy that does not spin, a counter per CPU and one crossing between CPUs) instead of libandgate's
 * guess from rank 0's own CPUs. *cpus stays NULL (the library's placement) when some rank may run on
 * several CPUs: which of its threads runs where is then unknown. Collective on the node. */
static int node_cpus(const struct ag_mpi_barrier *b, int **cpus)
{
    cpu_set_t mine;
    int me[2] = { -1, (int)b->tpr }, size = 0, every = 0, *all = NULL;
    if (!sched_getaffinity(0, sizeof mine, &mine) && CPU_COUNT(&mine) == 1)
        for (int c = 0; c < CPU_SETSIZE && me[0] < 0; c++)
            if (CPU_ISSET(c, &mine))
                me[0] = c;
    *cpus = NULL;
    if (MPI_Comm_size(b->node, &size) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    /* every rank bound to one CPU, and rank 0 has room for the table: else nobody gathers */
    int ok = me[0] >= 0;
    if (b->node_rank == 0)
        ok &= (all = malloc(2 * (size_t)size * sizeof *all)) != NULL;
    if (MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, b->node) != MPI_SUCCESS ||
        (every && MPI_Gather(me, 2, MPI_INT, all, 2, MPI_INT, 0, b->node) != MPI_SUCCESS)) {
        free(all);
        return AG_MPI_ECALL;
    }
    if (every && b->node_rank == 0 && (*cpus = malloc(b->node_threads * sizeof **cpus)))
        for (int r = 0, t = 0; r < size; r++) /* node ranks in order: rank r's tids start at its base */
            for (int k = 0; k < all[2 * r + 1]; k++)
                (*cpus)[t++] = all[2 * r];
    free(all);
    return 0; /* no table (out of memory): the library's own placement, as without binding */
}

/* The node barrier in a shared window: node rank 0 allocates and lays it out, then everybody attaches. */
static int make_window(struct ag_mpi_barrier *b, ag_config_t ncfg)
{
    char wait[64];
    int *cpus = NULL;
    ncfg.nthreads = b->node_threads;
    int rc = node_cpus(b, &cpus);
    ncfg.cpus = cpus;
    if (!rc)
        rc = node_wait(b, &ncfg, wait, sizeof wait);
    if (rc) {
        free(cpus);
        return rc;
    }
    size_t len = b->node_rank == 0 ? ag_barrier_shm_size(&ncfg) : 0;
    void *base = NULL;
    MPI_Aint size = 0;
    int disp = 0;
    if (MPI_Win_allocate_shared(len ? (MPI_Aint)(len + AG_MPI_ALIGN) : 0, 1, MPI_INFO_NULL, b->node, &base,
                                &b->win) != MPI_SUCCESS ||
        MPI_Win_shared_query(b->win, 0, &size, &disp, &base) != MPI_SUCCESS ||
        MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win) != MPI_SUCCESS) {
        free(cpus);
        return AG_MPI_ECALL;
    }
    /* hdr: offset of the first 64-byte boundary, segment length, rank 0's ag_barrier_init_shm code */
    unsigned long long hdr[3] = { 0, len, 0 };
    if (b->node_rank == 0) {
        hdr[0] = (AG_MPI_ALIGN - (uintptr_t)base % AG_MPI_ALIGN) % AG_MPI_ALIGN;
        hdr[2] = len ? (unsigned long long)ag_barrier_init_shm((char *)base + hdr[0], len, &ncfg) : EINVAL;
    }
    free(cpus);
    /* MPI's ordering of stores to a shared window between processes: rank 0's stores, MPI_Win_sync, a
     * process synchronization (MPI_Barrier), then MPI_Win_sync before the others load */
    MPI_Win_sync(b->win);
    if (MPI_Barrier(b->node) != MPI_SUCCESS ||
        MPI_Bcast(hdr, 3, MPI_UNSIGNED_LONG_LONG, 0, b->node) != MPI_SUCCESS)
        return AG_MPI_ECALL;
    MPI_Win_sync(b->win);
    if (hdr[2])
        return (int)hdr[2];
    /* every process maps the segment page-aligned, so the boundary is at the same offset for all */
    if ((uintptr_t)((char *)base + hdr[0]) % AG_MPI_ALIGN)
        return EINVAL;
    return ag_barrier_attach_shm(&b->nb, (char *)base + hdr[0], (size_t)hdr[1]);
}

/* Free what init made; collective over the node (the window) and comm (the communicators). */
static void teardown(struct ag_mpi_barrier *b)
{
    free(b->held);
    ag_mpi_gate_free(b);
    if (b->nb)
        ag_barrier_destroy(b->nb); /* an attached handle: detaches this process */
    ag_mpi_break_withdraw(b);
    if (b->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(b->win);
        MPI_Win_free(&b->win);
    }
    /* An MPI_Ibarrier abandoned at a break (inter.c) may be neither cancelled nor freed, and it can
     * still progress: a late leader may join it after this one gave up, and Open MPI's progress then
     * sends on the leaders' communicator. So that communicator is freed only once the request has
     * completed (one test here); otherwise it is left allocated, a leak in a broken job rather than a
     * crash in the program's next MPI call. */
    int stale_done = 1;
    if (b->stale != MPI_REQUEST_NULL)
        MPI_Test(&b->stale, &stale_done, MPI_STATUS_IGNORE);
    if (b->leaders != MPI_COMM_NULL && stale_done)
        MPI_Comm_free(&b->leaders);
    if (b->node != MPI_COMM_NULL)
        MPI_Comm_free(&b->node);
    if (b->comm != MPI_COMM_NULL)
        MPI_Comm_free(&b->comm);
}

/* "mpi:inter=... grouping=<ANDGATE_MPI_NODE, canonical> nodes=N node_ranks=R node_threads=T
 * job_threads=J", then "step=completion node=central wait=<the gate's policy>" on the completion path,
 * "step=leader node=<NB>" with a fixed leader, "step=none node=<NB>" with one node (no inter-node
 * phase). node_ranks and step are this rank's node's: a job may mix the paths. */
static void describe(struct ag_mpi_barrier *b)
{
    char grouping[64];
    ag_mpi_node_format(b->mode, b->node_group, grouping, sizeof grouping);
    int len = snprintf(b->desc, sizeof b->desc,
                       "mpi:inter=%s grouping=%s nodes=%d node_ranks=%d node_threads=%u job_threads=%lu step=%s ",
                       ag_mpi_inter_name(b->inter), grouping, b->nodes, b->node_size, b->node_threads,
                       b->job_threads, b->gate ? "completion" : b->nodes > 1 ? "leader" : "none");
    if (len < 0 || (size_t)len >= sizeof b->desc)
        return;
    if (!b->gate) {
        snprintf(b->desc + len, sizeof b->desc - (size_t)len, "node=%s", ag_barrier_describe(b->nb));
        return;
    }
    len += snprintf(b->desc + len, sizeof b->desc - (size_t)len, "node=central wait=");
    if ((size_t)len < sizeof b->desc)
        ag_mpi_gate_describe(b, b->desc + len, sizeof b->desc - (size_t)len);
}

int ag_mpi_barrier_init_spec(ag_mpi_barrier_t **out, MPI_Comm comm, unsigned tpr, const ag_config_t *cfg,
                             const char *spec)
{
    int up = 0, down = 0;
    if (comm == MPI_COMM_NULL)
        return EINVAL; /* nobody to agree with */
    if (MPI_Initialized(&up) != MPI_SUCCESS || !up || MPI_Finalized(&down) != MPI_SUCCESS || down)
        return AG_MPI_ETHREADS;
    struct ag_mpi_barrier *b = calloc(1, sizeof *b);
    ag_config_t ncfg;
    struct ag_mpi_barrier probe = { 0 }; /* the parsed modes when calloc failed */
    int rc = !b ? ENOMEM : !out ? EINVAL : local_checks(tpr, cfg, spec, b, &ncfg);
    rc = agree(comm, rc, b ? b : &probe);
    if (rc) {
        free(b);
        return rc;
    }
    b->comm = b->node = b->leaders = MPI_COMM_NULL;
    b->win = MPI_WIN_NULL;
    b->brk = b->stale = MPI_REQUEST_NULL;
    b->tpr = tpr;
    rc = (b->held = calloc(tpr, sizeof *b->held)) ? 0 : ENOMEM; /* every tid free */
    if (!rc)
        rc = make_comms(b, comm);
    if (!rc)
        rc = count_threads(b);
    if (!rc)
        rc = make_window(b, ncfg);
    /* The completion step (complete.c) where the node is this rank alone and there are other nodes:
     * then the node's last arriver is always in the leaders' communicator. A node of several ranks
     * keeps the fixed leader; one node has no inter-node phase. Each node decides alone: both paths
     * run the same inter-node phase once per episode. */
    if (!rc && b->nodes > 1 && b->node_size == 1)
        rc = ag_mpi_gate_make(b);
    if (!rc)
        rc = ag_mpi_break_post(b);
    /* every rank learns the worst outcome: none keeps a barrier the others gave up */
    int all = AG_MPI_ECALL;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm);
    if (all) {
        teardown(b);
        free(b);
        return all;
    }
    describe(b);
    *out = b;
    return 0;
}

int ag_mpi_barrier_init(ag_mpi_barrier_t **out, MPI_Comm comm, unsigned tpr, const ag_config_t *cfg)
{
    return ag_mpi_barrier_init_spec(out, comm, tpr, cfg, NULL);
}

int ag_mpi_barrier_destroy(ag_mpi_barrier_t *b)
{
    if (!b)
        return EINVAL;
    /* seq_cst: reading 0 from the last thread's decrement orders its MPI calls before teardown's */
    if (atomic_load(&b->inside))
        return EBUSY;
    teardown(b);
    free(b);
    return 0;
}

const char *ag_mpi_barrier_describe(const ag_mpi_barrier_t *b)
{
    return b ? b->desc : "(null barrier)";
}
