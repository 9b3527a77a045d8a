/* gate — central, with the master leaving first whenever the program runs faster that way.
 * Idea: central's counter and sense (the last arriver releases). Besides, the master (participant 0)
 * stores the episode into a `go` flag when it leaves, and while the gate is shut the others leave
 * only after that store: the master is the first out, as in libomp's barrier, whose tree gathers at
 * the master and releases from it. order=any never shuts the gate (central), order=master always
 * does, order=auto lets the master decide from the program's own speed (steer, below).
 * Invariant: central's; and while the gate is shut nobody leaves episode e before the master has (go
 * reaches e + 1 only after the master's own wait for the sense ended). The master stores go in every
 * episode of a gate that may shut, so a participant that read `shut` just before it opened still finds
 * its episode's go.
 * Why: with more threads than CPUs, who runs after a release is the scheduler's choice. A program
 * whose threads wait in their own code for the master after a barrier (libomp's test
 * kmp_sch_simd_guided.c: its workers spin until the master has taken every chunk) burns their time
 * slices under central whenever the master is not the one on a CPU; a barrier-bound program waits for
 * the master's turn on a CPU when the gate is shut (docs/results.md, "eighteenth part").
 * Source: 002 §II-B (SENSE) for the counter and sense; libomp's hyper barrier (the release starts at
 * the master) for the order; 003 §5.2-5.3 (choose at run time: the best choice "is likely to depend on
 * runtime conditions") for measuring it. Details: docs/algorithms/gate.md.
 */
#include "../algo.h"
#include "lib/sense.h"

enum { ORDER_AUTO, ORDER_MASTER, ORDER_ANY };
static const char *const order_words[] = { "auto", "master", "any", NULL }; /* in ORDER_* order */

static const struct ag_key keys[] = {
    AG_KEY_WORD("order", order_words, "auto",
                "who leaves first: master (the others wait for participant 0), any (whoever the scheduler "
                "runs: central), or auto (participant 0 times both ways and keeps the faster)"),
    { 0 } };

/* order=auto, participant 0's measurement: a window of W episodes timed the way the gate is (home),
 * then W the other way (away); away becomes home once it has won two windows in a row, each by a
 * quarter (a preemption inside a window of a barrier-bound program's W episodes, a few hundred
 * microseconds, can make either way look faster once; the stall the gate is for costs 25x). Between
 * measurements, an interval of participant 0's clock that doubles from MIN to MAX while home keeps
 * winning (the cost of measuring a way that loses badly, W of its episodes, then stays a small part of
 * the run) and starts again from MIN after a change. */
#define W 64
#define MIN_NS 10000000ull    /* 10 ms */
#define MAX_NS 1280000000ull  /* 1.28 s */
#define CHECK_EVERY 16        /* episodes between clock reads while no window is open */

/* participant 0's slots, on its own line: nobody else reads them */
enum { C_STATE, C_T0, C_COUNT, C_HOME_NS, C_NEXT, C_INTERVAL, C_WINS, C_SLOTS };
enum { RUN, TIME_HOME, TIME_AWAY };

struct gate {
    uint32_t count, sense; /* central's */
    uint32_t go;           /* e + 1 once the master has left episode e */
    uint32_t shut;         /* 1: the others leave after the master; read by them, written by it */
    uint32_t ctl;          /* first of C_SLOTS */
    uint32_t order;
};

static int setup(const struct ag_setup *s, struct ag_layout *L)
{
    struct gate *st = ag_layout_state(L, sizeof *st);
    if (!st)
        return 0; /* the framework reports ENOMEM */
    st->count = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->sense = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->go = ag_flags_alloc(L, 1, 1, AG_PAD).first;
    st->shut = ag_flags_alloc(L, 1, 1, AG_PAD).first; /* rarely written: stays shared in the readers' caches */
    st->ctl = ag_flags_alloc(L, 1, C_SLOTS, AG_PAD).first;
    st->order = ag_word(s->p[0]);
    return 0;
}

static void reset(const struct ag_run *r)
{
    const struct gate *st = r->st;
    flag_store(&r->fl, st->count, 0);
    flag_store(&r->fl, st->sense, r->epoch0 & 1); /* as central: episode e's sense is e & 1 */
    flag_store(&r->fl, st->go, r->epoch0);
    flag_put(&r->fl, st->shut, st->order == ORDER_MASTER);
    for (uint32_t j = 0; j < C_SLOTS; j++)
        flag_put(&r->fl, st->ctl + j, 0); /* RUN, next measurement at once */
}

static void arrive(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t *tok)
{
    (void)tid;
    const struct gate *st = r->st;
    *tok = (uint64_t)ag_sense_arrive(r, st->count, st->sense, e); /* central's */
}

/* Whether a window of `took` ns beats home's of `home` ns: by a quarter, so that a window's noise alone
 * does not turn the gate. */
static int beats(uint64_t took, uint64_t home)
{
    return 4 * took <= 3 * home;
}

/* Close the present window of order=auto: a home window's time is kept and the gate turned the other
 * way; after an away window, away becomes home if it won twice in a row, else the gate turns back. */
static void close_window(const struct ag_run *r, const struct gate *st, uint64_t state, uint64_t now,
                         uint64_t took)
{
    const ag_flags_t *f = &r->fl;
    const uint32_t c = st->ctl;
    const uint64_t shut = flag_load(f, st->shut);
    flag_put(f, c + C_T0, now);
    flag_put(f, c + C_COUNT, 0);
    if (state == TIME_HOME) {
        flag_put(f, c + C_HOME_NS, took);
        flag_put(f, st->shut, !shut);
        flag_put(f, c + C_STATE, TIME_AWAY);
        return;
    }
    const uint64_t home = flag_load(f, c + C_HOME_NS);
    const int won = beats(took, home);
    const uint64_t wins = won ? flag_load(f, c + C_WINS) + 1 : 0;
    if (won && wins < 2) { /* once: measure both again before changing */
        flag_put(f, c + C_WINS, wins);
        flag_put(f, st->shut, !shut);
        flag_put(f, c + C_STATE, TIME_HOME);
        return;
    }
    uint64_t interval = flag_load(f, c + C_INTERVAL) * 2;
    if (won)
        interval = MIN_NS; /* away is home now: the gate stays as it is */
    else
        flag_put(f, st->shut, !shut);
    interval = interval < MIN_NS ? MIN_NS : interval > MAX_NS ? MAX_NS : interval;
    flag_put(f, c + C_WINS, 0);
    flag_put(f, c + C_INTERVAL, interval);
    flag_put(f, c + C_NEXT, now + interval);
    flag_put(f, c + C_STATE, RUN);
}

/* order=auto: participant 0, once it has left episode e. The others read `shut` when they leave, so a
 * turn of the gate takes effect within an episode; a window's first episode may still be the other
 * way's, which both windows share. */
static void steer(const struct ag_run *r, const struct gate *st, uint64_t e)
{
    const ag_flags_t *f = &r->fl;
    const uint32_t c = st->ctl;
    const uint64_t state = flag_load(f, c + C_STATE);
    if (state == RUN) {
        if ((e - r->epoch0) % CHECK_EVERY)
            return;
        const uint64_t now = flag_now(f);
        if (now < flag_load(f, c + C_NEXT))
            return;
        flag_put(f, c + C_T0, now);
        flag_put(f, c + C_COUNT, 0);
        flag_put(f, c + C_STATE, TIME_HOME);
        return;
    }
    const uint64_t count = flag_load(f, c + C_COUNT) + 1;
    if (count < W && state == TIME_HOME) {
        flag_put(f, c + C_COUNT, count);
        return;
    }
    /* An away window whose time so far already fails close_window's test (beats) has lost: its time can
     * only grow. It closes at once, with the decision the full window would have given, so measuring a
     * way that loses costs at most three quarters of a home window, not W of its own episodes (the master
     * order cost PRK's Reduce 4x per episode, docs/results.md, nineteenth part). */
    const uint64_t now = flag_now(f), took = now - flag_load(f, c + C_T0);
    if (count < W && beats(took, flag_load(f, c + C_HOME_NS))) {
        flag_put(f, c + C_COUNT, count);
        return;
    }
    close_window(r, st, state, now, took);
}

static int depart(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t tok, uint64_t deadline)
{
    const struct gate *st = r->st;
    int rc = tok ? AG_SERIAL : flag_wait(&r->fl, st->sense, AG_EQ, (e + 1) & 1, deadline);
    if ((rc != 0 && rc != AG_SERIAL) || st->order == ORDER_ANY)
        return rc;
    if (tid == 0) {
        /* after this store the others may leave episode e and arrive at the next */
        flag_store(&r->fl, st->go, e + 1);
        if (st->order == ORDER_AUTO)
            steer(r, st, e);
        return rc;
    }
    if (!flag_load(&r->fl, st->shut))
        return rc;
    /* acquire on go pairs with the master's release store above: it has left, and what it wrote
     * before it arrived was already ordered before the sense flip */
    int g = flag_wait(&r->fl, st->go, AG_GE, e + 1, deadline);
    return g ? g : rc;
}

static AG_WAIT_FROM_SPLIT(wait, arrive, depart)

const struct ag_algo ag_algo_gate = {
    { "gate", "central, the master leaving first whenever that is faster (measured as the program runs)",
      "002 §II-B SENSE; libomp's release order; 003 §5.2-5.3", keys },
    setup, reset, wait, arrive, depart, NULL, NULL,
};
