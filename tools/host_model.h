/* host_model.h — this machine as `andgate info --measure` models it: the topology levels and latency
 * layers (host_topology.c), facts read from the OS (host_facts.c), the measurements
 * (host_machine.c, tools/measure.c) and the andgate-machine/1 writer (machine_write.c; the reader is
 * sim/machine_load.c, and tests/test_machine_write.c checks the round trip). */
#ifndef AG_TOOLS_HOST_MODEL_H
#define AG_TOOLS_HOST_MODEL_H

#include <stdio.h>

#include "topo.h"

enum {
    MAXLV = 6,          /* socket, numa, cache group, core, smt */
    MAXPAIRS = 2,       /* measured pairs per sharing level */
    RUNS = 11,          /* runs per measurement (per pair for the ping-pong) */
    C2C_ROUNDS = 5000,  /* round trips per ping-pong run */
    UPG_TRIALS = 2000,  /* trials per invalidation run and per cold-transfer run */
    HIT_LOADS = 1 << 19,
    ATOMIC_OPS = 200000,
    OS_CALLS = 20000,   /* futex calls and yields per run */
    OS_ROUNDS = 2000,   /* futex ping-pong round trips per run */
};

/* The os block (issue 12 item 2): one measured cost per entry, its runs, and what was done (source) */
enum { OS_FUTEX_WAIT, OS_FUTEX_WAKE, OS_WAKEUP, OS_SWITCH, OS_YIELD, OS_N };
extern const char *const host_os_names[OS_N]; /* "futex_wait", "futex_wake", "wakeup", "context_switch", "yield" */

#define SRC_MEASURED "derived: measured on this machine by andgate info --measure, "
#define ALPHA_RULE "002 §III-B: O_W = O_R + n·α·L with n = 1"

struct level {
    const char *name, *desc;
    int *key;       /* per usable CPU: its unit at this level (ids comparable within the level) */
    unsigned count; /* units per parent unit */
};

/* one latency layer: the pairs whose innermost shared unit is at `shared` (a level name or "machine") */
struct layer {
    char id[32], shared[32], desc[160];
    int pa[MAXPAIRS], pb[MAXPAIRS]; /* OS CPUs */
    unsigned npairs;
    double runs[MAXPAIRS * RUNS], ns, oneway; /* ns: the layer L; oneway: the ping-pong's one-way */
    double alpha, up_ns, own_ns, diff_ns; /* invalidation, measured on pair 0 */
    double up_runs[RUNS], own_runs[RUNS];
    /* measured on pair 0 (measure_transfer.c); <= 0: not resolved, not written */
    double cold_ns, cold_runs[RUNS];     /* a load of a line the other CPU modified while nobody polled it,
                                          * minus a load of an owned line */
    double pp_ns, pp_runs[RUNS];         /* the ping-pong with paused spins, one-way */
    double paused_ns;                    /* the paused re-read written for the model: pp_ns - alpha x L */
};

struct host {
    unsigned n;         /* usable CPUs = hardware threads of the model */
    int *cpu;           /* the usable OS CPUs, increasing */
    int *thread_cpu;    /* model thread -> OS CPU */
    struct level lv[MAXLV];
    unsigned nlv;
    struct layer layer[MAXLV];
    unsigned nlayers;
    const char *topo_source;
};

struct cache {
    char name[8];
    double size;
    const char *unit;
    const char *shared_by;
    char source[200];
};

struct facts {
    char model[256], clock_src[512], line_src[512], name[64], date[32];
    double ghz;
    int line, hypervisor;
    const char *atomic_kind; /* "x86-lock", "arm-lse", ... */
    double hit[RUNS], hit_ns;
    double rmw[RUNS], store[RUNS], extra[RUNS], extra_ns, rmw_ns, store_ns;
    struct cache caches[8];
    unsigned ncaches;
    double os_runs[OS_N][RUNS], os_ns[OS_N];
    char os_src[OS_N][256];
};

/* host_machine.c: one line on stderr and exit status 1; calloc that ends the same way when memory runs out */
void host_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *host_calloc(size_t n, size_t size);

/* host_topology.c: the levels of the usable CPUs (an irregular set is refused through host_fail), then
 * the latency layers to measure: one per sharing level present, with its representative pairs. */
void host_build_topology(struct host *h, const struct ag_topo *t);
void host_plan_layers(struct host *h);

/* host_facts.c: what the OS says (each with the source text the machine file records) */
unsigned host_read_caches(const struct host *h, struct cache *out, unsigned max);
int host_cache_line(int cpu, char *src, size_t len);
double host_core_clock(int cpu, char *src, size_t len);
const char *host_atomic_kind(void);

/* machine_write.c: the andgate-machine/1 document of h and x; runs as text "1.23 1.25 ..." */
void machine_write(FILE *f, const struct host *h, const struct facts *x);
void machine_runs_text(char *buf, size_t len, const double *v, unsigned n);

#endif
