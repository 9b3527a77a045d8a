/* test_contention.c — the contention parts of the coherence model that issue 12 item 1 added beside the
 * directory queue (sim/machines/README.md, "Link occupancy", "Three-leg paths"), each checked so that
 * the test fails if the part stops being applied:
 *   1. link ports (links.c): two transfers over one port at the same instant start one occupancy apart,
 *      transfers inside a unit take no port, the out and in ports of a unit are separate; and in a run,
 *      dissemination across two clusters is slower with link occupancy than without, while a run inside
 *      one cluster is unchanged;
 *   2. three-leg paths (sim_machine_cost_via): the cost of a transfer between two nodes other than the
 *      home, worked out by hand from the layers; and in a run, homes on a third node make it slower;
 *   3. SMT issue sharing (smt.c): a core-bound step stretches by 1 + share per spinning sibling, not for
 *      a pausing, sleeping or finished one; and in a run, spinning siblings make a barrier slower than
 *      pausing ones, which cost what a machine without issue sharing costs;
 *   4. cold transfers (coherence.cold_transfer, coherence.c's xfer): a 2-thread central episode — the
 *      last arrival's fetch-and-add on the counter the other thread incremented (cold), the release's
 *      invalidation and the spinning waiter's re-read (the layer latency) — gets cheaper by exactly the
 *      layer latency minus the cold transfer; dissemination's critical path is the partner's re-read, the
 *      same with and without;
 *   5. paused hand-offs (coherence.paused_transfer): with pause, central's one (the release) and the
 *      tournament's two (arrival, wake-up) hand-offs per 2-thread episode get cheaper by the layer latency
 *      minus the paused transfer each; spinning without pause they cost the latency;
 *   6. the published flag layouts (pad=record: a participant's flags of every round in one record):
 *      early partners' stores land on the line its owner polls for an earlier round, so dissemination and
 *      the tournament are slower over 8 threads than with a line per flag; at 2 threads, one flag per
 *      record, the two layouts cost the same;
 *   7. exclusive pairs (coherence.atomic.kind armv8-llsc, sim_charge_rmw): contended fetch-and-adds on
 *      one counter fail store-exclusives and load again, so central over 8 threads is slower than with
 *      one-instruction atomics and counts failures (none with one instruction); dissemination, which
 *      has no atomics, costs the same; a lone participant's pair on its own line is two hits (the load,
 *      the store-exclusive) where one instruction is a hit plus coherence.atomic.extra.
 *   8. the address hash (sim_line_hash, --layout): in andgate's layout an algorithm's line follows one
 *      line per participant, so its hash moves with the count; with shared-first it keeps one hash for
 *      every count, and the participants' own lines go after the algorithm's.
 * The machines are hand-made (fixed layers), so the expected values follow from their numbers alone. */
#include <stdio.h>
#include <string.h>

#include "engine_state.h"
#include "hand_machine.h"

static int failures, checks;

static void near(const char *what, double got, double want)
{
    checks++;
    if (got < want - 1e-9 || got > want + 1e-9) {
        failures++;
        printf("FAIL %s: %.6f, expected %.6f\n", what, got, want);
    }
}

static void more(const char *what, double got, double than)
{
    checks++;
    if (!(got > than)) {
        failures++;
        printf("FAIL %s: %.3f is not above %.3f\n", what, got, than);
    }
}

/* sockets x clusters x cores, one thread per core: layer 0 self (1 ns), 1 same cluster (10 ns), 2 same
 * socket (30 ns), 3 across sockets (50 ns = the 10 ns base + two 20 ns legs); α 0.5 everywhere. */
static struct sim_machine hand(unsigned sockets, unsigned clusters, unsigned cores)
{
    static const char *const lv[] = { "socket", "cluster", "core", "smt" };
    const unsigned cnt[] = { sockets, clusters, cores, 1 };
    struct sim_machine m = hand_machine(4, lv, cnt);
    m.nlayers = 4;
    m.layer[0] = (struct sim_layer){ "eps", SIM_PATH_FIXED, 1.0, 0, 0, 0 };
    m.layer[1] = (struct sim_layer){ "cluster", SIM_PATH_FIXED, 10.0, 0.5, 0, 0 };
    m.layer[2] = (struct sim_layer){ "socket", SIM_PATH_FIXED, 30.0, 0.5, 0, 0 };
    m.layer[3] = (struct sim_layer){ "remote", SIM_PATH_FIXED, 50.0, 0.5, 0, 0 };
    m.by_diff[2] = 1; /* two cores of one cluster */
    m.by_diff[1] = 2; /* two clusters of one socket */
    m.by_diff[0] = 3; /* two sockets */
    return m;
}

static double run_result(const struct sim_machine *m, const char *algo, unsigned n, int paused, struct sim_result *r)
{
    struct sim_opts o = { .m = m, .algo = algo, .pin = "compact", .n = n, .episodes = 50, .seed = 1, .paused = paused };
    if (sim_run(&o, r) != 0) {
        failures++, checks++;
        printf("FAIL %s n=%u on the hand-made machine: %s\n", algo, n, r->error);
        return -1;
    }
    return r->median_ns;
}

static double run_median(const struct sim_machine *m, const char *algo, unsigned n, int paused)
{
    struct sim_result r;
    return run_result(m, algo, n, paused, &r);
}

static double median(const struct sim_machine *m, const char *algo, unsigned n)
{
    return run_median(m, algo, n, 0);
}

static void links(void)
{
    struct sim_machine m = hand(1, 2, 4);
    m.nlinks = 1;
    m.link[0] = (struct sim_link){ 1, 2, 4, 5.0 }; /* cluster ports (4 threads each), 5 ns per line */
    struct sim_opts o = { .m = &m };
    struct part me; /* the running participant at time 0: the ports' low-water time (sim_low_water) */
    struct sim s;
    memset(&s, 0, sizeof s);
    memset(&me, 0, sizeof me);
    s.m = &m, s.o = &o, s.part = &me;
    if (sim_links_init(&s)) {
        failures++, checks++;
        printf("FAIL sim_links_init\n");
        return;
    }
    near("first transfer 0 -> 4 at t=0 starts at once", sim_link_take(&s, 0, 4, 0), 0);
    near("second transfer 1 -> 5 at t=0 waits one occupancy", sim_link_take(&s, 1, 5, 0), 5);
    near("a third waits two", sim_link_take(&s, 2, 6, 0), 10);
    near("inside a cluster no port is taken", sim_link_take(&s, 1, 2, 0), 0);
    near("the other direction has its own ports", sim_link_take(&s, 4, 0, 0), 0);
    near("cluster 1's out port is now busy for a transfer at 0", sim_link_take(&s, 5, 1, 0), 5);
    near("a transfer issued after the burst does not wait", sim_link_take(&s, 3, 7, 100), 100);
    sim_links_free(&s);

    /* a run: 20 ns per line, so that the four concurrent transfers of dissemination's round across the
     * clusters cannot slip between each other */
    m.link[0].ns = 20;
    struct sim_machine plain = hand(1, 2, 4);
    double without = median(&plain, "dissemination", 8), with = median(&m, "dissemination", 8);
    more("dissemination over two clusters is slower with link occupancy", with, without);
    near("a run inside one cluster does not use the ports", median(&m, "dissemination", 4),
         median(&plain, "dissemination", 4));
}

static void three_leg(void)
{
    struct sim_machine m = hand(3, 1, 2); /* threads 0-1 socket 0, 2-3 socket 1, 4-5 socket 2 */
    m.node_level = 0;
    m.nnodes = 3;
    m.node_init = 1;
    m.node_base_ns = 10; /* the same-socket layer: remote 50 = 10 + 2 legs of 20 */
    near("2 <- 4 homed at node 0: 10 + (40 + 40 + 40) / 2", sim_machine_cost_via(&m, 2, 4, 0), 70);
    near("2 <- 4 homed at node 1 (the requester's): direct", sim_machine_cost_via(&m, 2, 4, 1), 50);
    near("2 <- 4 homed at node 2 (the owner's): direct", sim_machine_cost_via(&m, 2, 4, 2), 50);
    near("2 <- 3 (same node) homed at node 0: direct", sim_machine_cost_via(&m, 2, 3, 0), 10);
    struct sim_machine plain = hand(3, 1, 2);
    double without = median(&plain, "dissemination", 6), with = median(&m, "dissemination", 6);
    more("dissemination over three sockets is slower with homes on participant 0's socket", with, without);
    near("two sockets cannot have a third home", median(&m, "dissemination", 4),
         median(&plain, "dissemination", 4));
}

static void smt(void)
{
    struct sim_machine m = hand_smt_machine(1);
    struct sim_opts o = { .m = &m, .n = 4 };
    struct part parts[4];
    struct sim s;
    memset(&s, 0, sizeof s);
    memset(parts, 0, sizeof parts);
    s.m = &m, s.o = &o, s.n = 4, s.part = parts;
    for (unsigned t = 0; t < 4; t++)
        parts[t].hw = t, parts[t].state = RUNNABLE;
    if (sim_smt_init(&s)) {
        failures++, checks++;
        printf("FAIL sim_smt_init\n");
        return;
    }
    s.cur = 0;
    near("sibling running between its misses: no stretch", sim_issue_share(&s), 1);
    parts[1].state = WAITING;
    near("sibling spinning: one more turn", sim_issue_share(&s), 2);
    parts[3].state = WAITING;
    near("a spinner on the other core does not count", sim_issue_share(&s), 2);
    o.paused = 1;
    near("sibling pausing: no stretch", sim_issue_share(&s), 1);
    o.paused = 0, o.sleeps = 1, o.spin_ns = 10, parts[1].wait_t0 = 0, parts[0].clock = 50;
    near("sibling past its spin budget (yielding or asleep): no stretch", sim_issue_share(&s), 1);
    sim_smt_free(&s);

    struct sim_opts spin = { .m = &m, .algo = "hybrid:group=core", .pin = "compact", .n = 4, .episodes = 50,
                             .seed = 1 };
    struct sim_opts pause = spin;
    pause.paused = 1;
    struct sim_machine none = hand_smt_machine(0);
    struct sim_opts plain = spin;
    plain.m = &none;
    struct sim_result a, b, c;
    if (sim_run(&spin, &a) || sim_run(&pause, &b) || sim_run(&plain, &c)) {
        failures++, checks++;
        printf("FAIL a run on the SMT machine\n");
        return;
    }
    more("hybrid with spinning siblings is slower than with pausing ones", a.median_ns, b.median_ns);
    near("pausing siblings cost what a machine without issue sharing costs", b.median_ns, c.median_ns);
}

static void cold(void)
{
    struct sim_machine plain = hand(1, 1, 2), m = hand(1, 1, 2); /* two cores of one cluster: 10 ns, α 0.5 */
    m.layer[1].cold_ns = 4;
    near("cold delta inside the cluster", sim_machine_xfer_delta(&m, 0, 1, SIM_XFER_COLD), 4 - 10);
    near("no cold delta for a hit", sim_machine_xfer_delta(&m, 0, 0, SIM_XFER_COLD), 0);
    near("no cold delta where none is given", sim_machine_xfer_delta(&plain, 0, 1, SIM_XFER_COLD), 0);
    near("a cold transfer is not a paused hand-off", sim_machine_xfer_delta(&m, 0, 1, SIM_XFER_PAUSED), 0);
    near("central: only the fetch-and-add's transfer is cold", median(&plain, "central", 2) - median(&m, "central", 2),
         10 - 4);
    near("ticket likewise", median(&plain, "ticket", 2) - median(&m, "ticket", 2), 10 - 4);
    near("dissemination: the partner's re-read sets the episode", median(&m, "dissemination", 2),
         median(&plain, "dissemination", 2));
}

/* A paused hand-off: with pause, a woken waiter's re-read costs the layer's paused_transfer instead of its
 * latency; spinning without pause, and every cold transfer, are unchanged. */
static void paused(void)
{
    struct sim_machine plain = hand(1, 1, 2), m = hand(1, 1, 2);
    m.layer[1].paused_ns = 6;
    near("paused delta inside the cluster", sim_machine_xfer_delta(&m, 0, 1, SIM_XFER_PAUSED), 6 - 10);
    near("a plain spinner's re-read costs the latency", sim_machine_xfer_delta(&m, 0, 1, SIM_XFER_SPUN), 0);
    near("central, pausing: the release's re-read is paused",
         run_median(&plain, "central", 2, 1) - run_median(&m, "central", 2, 1), 10 - 6);
    near("tournament, pausing: arrival and wake-up, two paused re-reads",
         run_median(&plain, "tournament", 2, 1) - run_median(&m, "tournament", 2, 1), 2 * (10 - 6));
    near("tournament, spinning without pause: unchanged", run_median(&m, "tournament", 2, 0),
         run_median(&plain, "tournament", 2, 0));
}

static void records(void)
{
    struct sim_machine m = hand(1, 2, 4);
    static const char *const pairs_of[][2] = {
        { "dissemination", "dissemination:pad=record" },
        { "tournament:wake=global", "tournament:wake=global,pad=record" },
        { "tournament:wake=tree", "tournament:wake=tree,pad=record" },
    };
    for (unsigned i = 0; i < sizeof pairs_of / sizeof pairs_of[0]; i++) {
        char what[160];
        snprintf(what, sizeof what, "%s is slower than %s over 8 threads", pairs_of[i][1], pairs_of[i][0]);
        more(what, median(&m, pairs_of[i][1], 8), median(&m, pairs_of[i][0], 8));
        snprintf(what, sizeof what, "%s costs what %s costs at 2 threads", pairs_of[i][1], pairs_of[i][0]);
        near(what, median(&m, pairs_of[i][1], 2), median(&m, pairs_of[i][0], 2));
    }
}

static void exclusive_pairs(void)
{
    struct sim_machine one = hand(1, 2, 4), pairs_m = hand(1, 2, 4);
    one.atomic_extra_ns = pairs_m.atomic_extra_ns = 2;
    pairs_m.atomic_llsc = 1;
    struct sim_result r1, rp;
    more("central over 8 threads: exclusive pairs slower than one-instruction atomics",
         run_result(&pairs_m, "central", 8, 0, &rp), run_result(&one, "central", 8, 0, &r1));
    more("central over 8 threads: store-exclusives failed", (double)rp.traffic.sc_fails, 0);
    near("central over 8 threads: no failures with one instruction", (double)r1.traffic.sc_fails, 0);
    near("dissemination (no atomics): the same either way", median(&pairs_m, "dissemination", 8),
         median(&one, "dissemination", 8));
    near("a lone participant: two hits against a hit plus the extra",
         median(&one, "central", 1) - median(&pairs_m, "central", 1), (1 + 2) - 2 * 1);
}

/* The hash of line `a` of a layout with the broken flag, n participants' lines and 3 algorithm lines. */
static uint64_t hash_in(unsigned n, unsigned a, int shared_first)
{
    static struct line lines[64];
    struct sim_opts o = { .seed = 7, .shared_first = shared_first };
    struct sim s = { .o = &o, .n = n, .lines = lines, .nlines = 1 + n + 3, .line_slots = 8,
                     .self = { .first = 8, .stride = 8 } };
    s.run.fl.nslots = (1 + n + 3) * 8;
    return sim_line_hash(&s, &lines[a]);
}

static void address_hash(void)
{
    for (unsigned k = 0; k < 3; k++) { /* the algorithm's k-th line at 4 and at 9 participants */
        near("shared-first: an algorithm line's hash is the same at 4 and 9 participants",
             (double)(hash_in(4, 5 + k, 1) == hash_in(9, 10 + k, 1)), 1);
        near("andgate's layout: an algorithm line's hash moves from 4 to 9 participants",
             (double)(hash_in(4, 5 + k, 0) == hash_in(9, 10 + k, 0)), 0);
        near("andgate's layout: the algorithm's line 1+n+k hashes as address 1+n+k",
             (double)(hash_in(4, 5 + k, 0) == hash_in(9, 5 + k, 0)), 1);
    }
    near("shared-first: a participant's line goes after the algorithm's",
         (double)(hash_in(4, 1, 1) == hash_in(4, 4, 0)), 1);
    near("shared-first: the broken flag stays line 0", (double)(hash_in(4, 0, 1) == hash_in(4, 0, 0)), 1);
}

int main(void)
{
    links();
    three_leg();
    smt();
    cold();
    paused();
    records();
    exclusive_pairs();
    address_hash();
    printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "ok", failures, checks);
    return failures != 0;
}
