/* algo.h — the interface every algorithm in src/algo/ implements, and what they may use.
 *
 * An algorithm is data plus three functions:
 *   setup(s, L)         shape the algorithm for s->n participants: allocate flags in the arena through
 *                       ag_flags_alloc(L, ...) and a pointer-free read-only state block through
 *                       ag_layout_state(L, size) (tables such as parent/children indices).
 *   reset(r)            put every flag into its initial state (single-threaded; init and reset).
 *   wait(r, tid, e, dl) one episode for participant tid. e is tid's episode number (the framework keeps
 *                       it, starting at r->epoch0 and adding one per completed episode, modulo 2^64), so
 *                       algorithms need no private sense variables: sense = e & 1. Returns AG_SERIAL in
 *                       exactly one participant per episode, 0 in the others, or the error a flag_wait
 *                       returned.
 * Algorithms touch shared memory only through flags.h, so the same file compiles for the simulator.
 */
#ifndef AG_ALGO_H
#define AG_ALGO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "andgate.h"
#include "flags.h"

struct ag_algo;

/* ---- spec keys (shared by algorithms and wait policies; parsed by spec.c) ---- */

/* A key is typed: an integer key takes an integer in [min, max], a word key one of its words[], and a
 * key may take both (hybrid's group=core|cache|numa|N). Declare keys with AG_KEY_INT, AG_KEY_WORD or
 * AG_KEY_WORD_OR_INT; spec.c parses every value once against its key, and an algorithm reads the value
 * with ag_is_word, ag_word and ag_int below, never through its encoding. */
struct ag_key {
    const char *name;
    long min, max;              /* integer range; min > max means words only */
    const char *const *words;   /* NULL-terminated, or NULL for integers only */
    const char *def;            /* default, as written in a spec string */
    const char *help;
};

/* clang-format off */
#define AG_KEY_INT(name, min, max, def, help)                { name, min, max, NULL, def, help }
#define AG_KEY_WORD(name, words, def, help)                  { name, 1, 0, words, def, help }
#define AG_KEY_WORD_OR_INT(name, words, min, max, def, help) { name, min, max, words, def, help }
/* clang-format on */

/* A parameter value (ag_setup.p[j], ag_run.p[j], ag_spec.val[j]): an integer (>= 0, within the key's
 * range) or a word. The encoding, word w of the key as -(w + 1), is spec.c's and these functions';
 * it is also the stored form in process-shared headers and the simulator's parameter arrays. */
static inline int ag_is_word(long v) { return v < 0; }
static inline unsigned ag_word(long v) { return (unsigned)(-(v + 1)); } /* index into the key's words */
static inline long ag_int(long v) { return v; }                           /* an integer key's value */
static inline long ag_word_value(unsigned w) { return -(long)w - 1; }

#define AG_MAXKEYS 6

/* A named thing with keys: an algorithm or a wait policy. */
struct ag_kind {
    const char *name;
    const char *summary;
    const char *source; /* paper file and section */
    const struct ag_key *keys; /* terminated by a key with name == NULL */
};

/* ---- setup ---- */

struct ag_setup {
    unsigned n;
    const long *p;          /* parameter values, in the order of kind.keys */
    unsigned line;          /* cache line size in bytes (64 or 128) */
    const unsigned *rank;   /* rank[tid]: position of tid in topology order (package, NUMA, cache, core) */
    const unsigned *order;  /* order[rank] = tid */
    /* group ids per tid for the core, cache and NUMA levels: dense from 0, each group a contiguous run
     * of ranks, ids increasing with rank (shape.c guarantees it; wake.c relies on it) */
    const unsigned *group[3];   /* AG_LVL_CORE, AG_LVL_CACHE, AG_LVL_NUMA */
    unsigned ngroups[3];
};

enum { AG_LVL_CORE = 0, AG_LVL_CACHE = 1, AG_LVL_NUMA = 2 };

/* A range of flags: element k starts at slot first + k * stride. */
typedef struct ag_frange {
    uint32_t first, stride;
} ag_frange_t;

static inline uint32_t ag_at(ag_frange_t r, uint32_t k) { return r.first + k * r.stride; }

enum { AG_PAD = 0, AG_PACK = 1 };

/* The words of the flag-layout key pad=line|record (dissemination, tournament), in this order: a line per
 * flag, or a participant's flags of every round in one line-aligned record (the published algorithms'
 * per-processor records). */
enum { AG_PAD_LINE, AG_PAD_RECORD };
extern const char *const ag_pad_record_words[];

struct ag_layout {
    unsigned line_slots;  /* slots per cache line */
    uint32_t nslots;      /* arena size so far */
    void *state;          /* malloc'd by ag_layout_state */
    size_t state_size;
    int oom;
};

/* count elements of width consecutive slots each; AG_PAD puts every element on its own cache line(s),
 * AG_PACK packs the elements densely (the region itself starts and ends on a line boundary). */
ag_frange_t ag_flags_alloc(struct ag_layout *L, uint32_t count, uint32_t width, int pack);
/* One zeroed, pointer-free block of read-only state; may be called once. NULL on ENOMEM. */
void *ag_layout_state(struct ag_layout *L, size_t size);

/* The whole layout of a barrier (layout.c, shared by the library and the simulator): the broken flag,
 * each participant's private line (self), then the algorithm's setup. 0, EINVAL or ENOMEM. */
int ag_layout_plan(const struct ag_algo *a, unsigned n, const long *params, unsigned line, const unsigned *rank,
                   const unsigned *order, const unsigned *const group[3], const unsigned ngroups[3],
                   struct ag_layout *L, uint32_t *broken, ag_frange_t *self);
/* The flag stride the parameters ask for (the common key "line"). */
unsigned ag_line_of(const struct ag_algo *a, const long *params);

/* ---- run ---- */

struct ag_run {
    ag_flags_t fl;
    unsigned n;
    const void *st;   /* the state block */
    const long *p;    /* parameter values */
    uint64_t epoch0;  /* every participant's first episode number (tests start near wrap-around) */
};

struct ag_algo {
    struct ag_kind k;
    int  (*setup)(const struct ag_setup *s, struct ag_layout *L);
    void (*reset)(const struct ag_run *r);
    int  (*wait)(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline);
    /* Split phase, optional (001 §III's notify/wait, std::barrier's arrive/wait). arrive announces
     * tid's arrival at episode e without waiting and leaves in *tok what depart needs (tok is the
     * algorithm's own); depart waits for the episode to complete and returns 0, AG_SERIAL or an error.
     * Algorithms without them still work split: arrive does nothing and depart runs wait. */
    void (*arrive)(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok);
    int  (*depart)(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline);
    /* Optional, for an algorithm that picks among others while it runs (tune): once it has decided,
     * write the spec of what it runs now into buf and return its length; 0 before. Reads flags only
     * (flag_load); called outside the episodes' order (ag_barrier_describe, the simulator's record). */
    int  (*chosen)(const struct ag_run *r, char *buf, size_t len);
    /* Optional, for an algorithm that picks among others while it runs (tune): participant tid has just
     * completed episode e. If from episode e + 1 on it may run another algorithm directly, on the same
     * flags with the same episode numbers, write that algorithm and its run and return 1; else 0. Each
     * participant hands over by itself: the others may still be in this algorithm's wait for the same
     * episodes, which must then run what the handed-over ones run. */
    int  (*handover)(const struct ag_run *r, unsigned tid, uint64_t e, const struct ag_algo **to_algo,
                     struct ag_run *to_run);
};

/* A participant's way into the barrier (one per participant, private to it, process-local even for a
 * process-shared barrier): NULL algo, the barrier's own; else, from episode `from` on, what the barrier's
 * algorithm handed this participant over to. The framework then calls the chosen algorithm itself, so an
 * adaptive algorithm costs nothing per episode once it has decided (tune.c). A lane is checked against
 * the episode number the framework loads anyway: a reset (here or in another process) puts every
 * participant back to epoch0, before `from`, and the lane is dropped at the participant's next episode. */
struct ag_lane {
    const struct ag_algo *algo;
    uint64_t from;
    struct ag_run run;
};

/* The framework's private line per participant: slot 0 holds its episode number, slot 1 says whether
 * it is inside (read by ag_barrier_destroy and ag_barrier_reset for EBUSY), slots 2..4 which process
 * entered through it last (process-shared barriers only: pid, start time, namespace key; owner.c). */
enum { AG_INSIDE = 1, AG_ARRIVED = 2 };
enum { AG_SELF_OWNER = 2, AG_SELF_WIDTH = 5 };

/* The end of a participant's episode, whole or split: count it if it completed, break the barrier if
 * the participant timed out, and mark it outside. */
static inline int ag_finish(const struct ag_run *r, uint32_t me, uint64_t e, int rc)
{
    if (rc == 0 || rc == AG_SERIAL)
        flag_put(&r->fl, me, e + 1);
    else if (rc == ETIMEDOUT)
        ag_flags_break(&r->fl);
    flag_put(&r->fl, me + 1, 0);
    return rc;
}

/* The algorithm and run participant tid uses for episode e: its lane's from `from` on, else the barrier's
 * (a lane from before a reset is dropped). */
static inline const struct ag_algo *ag_lane_pick(struct ag_lane *ln, const struct ag_algo *a,
                                                 const struct ag_run **r, uint64_t e)
{
    if (!ln->algo)
        return a;
    if ((int64_t)(e - ln->from) >= 0) {
        *r = &ln->run;
        return ln->algo;
    }
    ln->algo = NULL;
    return a;
}

/* After episode e completed with rc, and before ag_finish marks the participant outside (from then on the
 * tid, and its lane, may belong to another thread): an adaptive algorithm may hand the participant over.
 * Returns rc. */
static inline int ag_lane_settle(struct ag_lane *ln, const struct ag_algo *a, const struct ag_run *r,
                                 unsigned tid, uint64_t e, int rc)
{
    if (a->handover && (rc == 0 || rc == AG_SERIAL) && a->handover(r, tid, e, &ln->algo, &ln->run))
        ln->from = e + 1;
    return rc;
}

/* A wait or arrive through a slot whose marker is set. AG_ARRIVED: this tid arrived split-phase and must
 * depart first (EINVAL). AG_INSIDE: the tid's previous holder has not returned yet (EBUSY; the caller
 * may retry). A tid may pass to another thread between episodes, but only once its holder has returned:
 * the slot's episode number moves on in that holder's ag_finish. The check is exact when the tid is
 * handed over in order: the holder stores the marker before it arrives, and the barrier makes that
 * store visible to everyone who departs the episode (a thread handed the tid after it sees AG_INSIDE, or
 * the 0 that ag_finish stores after the new episode number, released, so the acquire load here then
 * reads that number). Two calls with one tid at the same time are undefined; the load and the store
 * are not one atomic step, so only a call that finds the other already inside is refused. */
static inline int ag_refuse(uint64_t marker)
{
    return marker == AG_ARRIVED ? EINVAL : EBUSY;
}

/* One episode of participant tid, as the library and the simulator both run it (ln: tid's lane). A
 * broken barrier refuses at once; a participant that times out breaks the barrier for everybody (000
 * §4.1's timeout, in software), so a straggler or a dead participant never hangs the others. */
static inline int ag_episode(const struct ag_algo *a, const struct ag_run *r, ag_frange_t self, unsigned tid,
                             uint64_t deadline, struct ag_lane *ln)
{
    uint32_t me = ag_at(self, tid);
    uint64_t marker = flag_load(&r->fl, me + 1);
    if (marker)
        return ag_refuse(marker);
    flag_put(&r->fl, me + 1, AG_INSIDE);
    uint64_t e = flag_load(&r->fl, me);
    a = ag_lane_pick(ln, a, &r, e);
    int rc = flag_broken(&r->fl) ? AG_EBROKEN : a->wait(r, tid, e, deadline);
    return ag_finish(r, me, e, ag_lane_settle(ln, a, r, tid, e, rc));
}

/* Split phase: the participant counts as inside from arrive until depart returns. Both pick the lane by
 * the same episode number, which only depart's end advances. */
static inline int ag_arrive(const struct ag_algo *a, const struct ag_run *r, ag_frange_t self, unsigned tid,
                            uint64_t *tok, struct ag_lane *ln)
{
    uint32_t me = ag_at(self, tid);
    uint64_t marker = flag_load(&r->fl, me + 1);
    if (marker)
        return ag_refuse(marker);
    if (flag_broken(&r->fl))
        return AG_EBROKEN;
    flag_put(&r->fl, me + 1, AG_ARRIVED);
    *tok = 0;
    uint64_t e = flag_load(&r->fl, me);
    a = ag_lane_pick(ln, a, &r, e);
    if (a->arrive)
        a->arrive(r, tid, e, tok);
    return 0;
}

static inline int ag_depart(const struct ag_algo *a, const struct ag_run *r, ag_frange_t self, unsigned tid,
                            uint64_t tok, uint64_t deadline, struct ag_lane *ln)
{
    uint32_t me = ag_at(self, tid);
    if (flag_load(&r->fl, me + 1) != AG_ARRIVED)
        return EINVAL; /* depart without arrive */
    uint64_t e = flag_load(&r->fl, me);
    a = ag_lane_pick(ln, a, &r, e);
    int rc = a->depart ? a->depart(r, tid, e, tok, deadline) : a->wait(r, tid, e, deadline);
    return ag_finish(r, me, e, ag_lane_settle(ln, a, r, tid, e, rc));
}

/* wait() of an algorithm with a native split phase: its arrive, then its depart (both inlined). */
#define AG_WAIT_FROM_SPLIT(name, arrive, depart)                                                   \
    int name(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t deadline)                  \
    {                                                                                              \
        uint64_t tok;                                                                              \
        arrive(r, tid, e, &tok);                                                                   \
        return depart(r, tid, e, tok, deadline);                                                   \
    }

/* The catalogue (algos.c): one table, in documentation order. */
extern const struct ag_algo *const ag_algos[];
extern const unsigned ag_nalgos;
const struct ag_algo *ag_algo_find(const char *name, size_t len);
/* Whether catalogue entry i is a fixed algorithm, one of those `--algos all` (and the simulator's sw)
 * runs: every entry but tune (asked for by name or through auto) and gate (by name, or libandgate-preload.so's
 * choice for libomp's oversubscribed teams), whose defaults decide as they run. */
int ag_algo_fixed(unsigned i);

/* Shared helpers for algorithm files. */
static inline unsigned ag_ceil_log(unsigned n, unsigned base) /* smallest r with base^r >= n */
{
    unsigned r = 0;
    unsigned long long p = 1;
    while (p < n) { p *= base; r++; }
    return r;
}

#endif /* AG_ALGO_H */
