/* machine.h — a modeled machine for andgate sim, loaded from a description in sim/machines/ (one JSON file each)
 * (format andgate-machine/1, documented in sim/machines/README.md).
 *
 * The loader checks what the model reads and refuses a malformed or inconsistent file with a message
 * that names the JSON field ("$.latency_layers[2].latency.value: ..."). Every time is converted to ns
 * at load (cycles / the GHz of the quantity's clock domain).
 *
 * Costs follow the README's "coherence model these files feed": the one-way transfer cost between two
 * hardware threads is the latency of their layer; a `noc` layer adds hops × (router + link) along its
 * path, which may pass the line's home unit.
 */
#ifndef AG_SIM_MACHINE_H
#define AG_SIM_MACHINE_H

/* $.os entries, indices of sim_machine.os_ns and sim_os_names */
enum { SIM_OS_FUTEX_WAIT, SIM_OS_FUTEX_WAKE, SIM_OS_WAKEUP, SIM_OS_CONTEXT_SWITCH, SIM_OS_YIELD, SIM_OS_N };
extern const char *const sim_os_names[SIM_OS_N];

#include <stddef.h>
#include <stdint.h>

#define SIM_MAX_LEVELS 8
#define SIM_MAX_LAYERS 32
#define SIM_MAX_THREADS 4096

enum sim_path { SIM_PATH_FIXED, SIM_PATH_DIRECT, SIM_PATH_VIA_HOME, SIM_PATH_HOME_ROUNDTRIP };

struct sim_layer {
    char id[32];
    enum sim_path path; /* SIM_PATH_FIXED for a fixed layer */
    double ns;          /* fixed: the latency; noc: the base (NoC traversal excluded) */
    double alpha;       /* invalidation weight of a holder in this layer (0 with model "none") */
    double cold_ns;     /* $.coherence.cold_transfer[layer]: a line moved to a thread that was not polling it,
                         * measured apart from the latency above, which is a spinning waiter's re-read in a
                         * hand-off (fixed: the cost; noc: the base); 0: not given, the latency */
    double paused_ns;   /* $.coherence.paused_transfer[layer]: that re-read when the waiter polled with pause
                         * (no memory-order flush on leaving its loop); 0: not given, the latency */
};

/* A link class (sim/machines/README.md, "Link occupancy"): every unit of `level` has an out port and an
 * in port; a line transfer between threads in different units holds the sender's out port and the
 * receiver's in port for ns each (the published transfer time over the unit's parallel links). */
struct sim_link {
    int level;
    unsigned nunits;
    unsigned below;     /* hardware threads per unit: a thread's unit is hw / below */
    double ns;
};

struct sim_machine {
    char name[64], title[200], file[512];
    unsigned nlevels;                     /* outermost first: socket ... core, smt */
    char level[SIM_MAX_LEVELS][32];
    unsigned count[SIM_MAX_LEVELS];       /* per parent unit */
    unsigned threads;                     /* hardware threads: the product of the counts */
    unsigned line_bytes;
    double ghz;                           /* core clock */
    unsigned nlayers;
    struct sim_layer layer[SIM_MAX_LAYERS];
    unsigned self_layer;
    unsigned cache_level;                 /* level of the innermost cache shared by several cores (from
                                           * $.caches; socket when none is): the library's cache groups */
    /* The layer of a pair of hardware threads (sim_machine_layer_of; README, "Which layer a pair uses"),
     * kept as what it depends on rather than as a threads x threads table (1 MB at 1024, read at random
     * by every transfer): the level where the two threads' units first differ, or their units at the
     * unit matrix's level. */
    unsigned short *uid;                  /* [hw * nlevels + level]: hw's unit at each level, numbered across
                                           * the machine */
    unsigned char by_diff[SIM_MAX_LEVELS]; /* the layer of two threads whose units first differ at a level */
    int um_level;                         /* $.layer_map.unit_matrix.level, -1: no unit matrix */
    unsigned um_units;                    /* units at that level */
    unsigned char *um;                    /* [ua * um_units + ub]: the matrix's layer for two of its units */
    double atomic_extra_ns;
    int atomic_llsc;                      /* coherence.atomic.kind armv8-llsc: a read-modify-write is an exclusive
                                           * load/store pair (coherence.c, sim_charge_rmw); else one
                                           * ownership request */
    int atomic_armv8;                     /* kind armv8-*: the cores run exclusive pairs (every ARMv8 does), so
                                           * --atomics llsc applies */
    int dir_level;                        /* coherence.occupancy.slices: one directory slice per unit of this
                                           * level (-1: occupancy not modeled) */
    unsigned ndir;                        /* global units at dir_level */
    double dir_request_ns;                /* coherence.occupancy.request: how long one request holds its slice */
    unsigned nlinks;                      /* $.interconnect.links (optional): link classes whose ports queue */
    struct sim_link link[SIM_MAX_LEVELS];
    unsigned node_level;                  /* $.coherence.three_leg.level: home nodes, one per unit */
    unsigned nnodes;                      /* units at node_level; 0: no three-leg paths */
    int node_init;                        /* a line's home node: the initializing participant's (0), else hash */
    double node_base_ns;                  /* three_leg.base: a transfer inside one node, what every leg adds to */
    double smt_share;                     /* $.coherence.smt_issue.share: the issue a busy SMT sibling takes
                                           * from a thread's core-bound step, in [0, 1]; 0: not modeled */
    double inval_each_ns;                 /* coherence.invalidation.per_sharer: the directory's cost for each
                                           * invalidation beyond the first (they go out in parallel); 0 if absent */
    /* $.os (optional; `andgate info --measure` writes it): what a sleeping waiter pays, ns; -1 where the
     * description has no such entry. Used by sleeping waits (flag_backend.c), the workloads' futexes
     * (sync_futex.c) and the OS model beyond the hardware threads (os_sched.c). */
    double os_ns[SIM_OS_N];
    int inval_none;                       /* invalidation model "none": no sharer copies, all at the home */
    int home_first_touch;                 /* home policy: first-touch, else hash */
    /* interconnect, for noc layers */
    int attach;                           /* level index of the units at routers / ring stops; -1: none */
    unsigned nattach;                     /* global units at that level */
    int ring;                             /* ring (dims [stops]) or mesh ([columns, rows]) */
    unsigned ring_stops;
    int bidirectional;
    unsigned (*pos)[2];                   /* per attach unit */
    double hop_ns;                        /* router + link */
    void *doc;                            /* the parsed file (json_t *), for sim_machine_param */
};

/* Loads NAME (searched as NAME.json in $ANDGATE_MACHINES (':'-separated), then
 * ${XDG_DATA_HOME:-~/.local/share}/andgate/machines, then the installed and the source sim/machines)
 * or a path (anything with a '/' or ending in .json). 0, or -1 with the message in err. */
int sim_machine_load(const char *name_or_file, struct sim_machine *m, char *err, size_t errlen);
void sim_machine_free(struct sim_machine *m);
/* The machine names found on that search path (each NAME.json but schema.json, the first of a name
 * wins), at most max. Returns how many. */
unsigned sim_machine_names(char names[][64], unsigned max);
/* The file a NAME or path names, on that search path, into out. 1 if found, else 0. */
int sim_machine_find(const char *name, char *out, size_t len);

/* Index of a level by name, or -1. */
int sim_machine_level(const struct sim_machine *m, const char *name);
/* Index of a latency layer by id, or -1. */
int sim_machine_layer(const struct sim_machine *m, const char *id);

/* Fills m->uid from the level counts (SIM_MAX_THREADS keeps a unit's number below 2^16): 0, or -1 out
 * of memory. */
int sim_machine_number_units(struct sim_machine *m);
/* The layers two distinct hardware threads can use, bit k for layer k (from what sim_machine_layer_of
 * reads: by_diff at each level where two threads can first differ, the unit matrix off its diagonal). */
uint32_t sim_machine_pair_layers(const struct sim_machine *m);
/* The pair queries of the model's hot path (a unit, a layer, hops, a cost), inline: machine_cost.h */
/* The cost of a transfer to a from b for a line whose home node is `node` (machines with
 * $.coherence.three_leg): when a and b are in different nodes and the home is neither's, requester ->
 * home -> owner -> requester, each leg priced as half of what its layer adds to the in-node base;
 * otherwise sim_machine_cost. */
double sim_machine_cost_via(const struct sim_machine *m, unsigned a, unsigned b, unsigned node);

/* A quantity at a dotted path under the document root, e.g. "devices.afu.cpu_cycles_per_afu_cycle";
 * times ("ns", "cycles") come back in ns, other units as given. 0, or -1 with a message naming the
 * field when it is missing or not a quantity. */
int sim_machine_param(const struct sim_machine *m, const char *path, double *value, char *err, size_t errlen);

/* Placement of n participants on hardware threads: "cores" (one per core in thread order, then the
 * next SMT sibling of each core: how 000 and 002 pin), "compact" (thread order), "scatter" (round robin
 * over the sockets first). 0, or -1 (n exceeds the machine, unknown policy) with a message. */
int sim_place(const struct sim_machine *m, unsigned n, const char *policy, unsigned *hw, char *err, size_t errlen);

/* The library's shape (src/shape.h) of n participants on hardware threads hw[]: ranks in topology order
 * (hardware thread numbers are mixed-radix, outermost level first, so that is their order), dense group
 * ids by core, by the machine's cache level and by socket (the NUMA level). 0 or ENOMEM; free with
 * ag_shape_free. */
struct ag_shape;
int sim_shape(const struct sim_machine *m, unsigned n, const unsigned *hw, struct ag_shape *sh);

#include "machine_cost.h"

#endif
