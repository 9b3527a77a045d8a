/* test_model.c — 002's cost models (sim/model.c; 002 §III-B, §V-B, §V-C):
 *   1. the closed forms (1)-(4) against values worked out by hand, and their evaluation on a hand-made
 *      8-thread machine (2 clusters of 4 cores; L0 = 10 ns, α = 0.5 inside a cluster, L1 = 50 ns,
 *      α = 0.25 across, ε = 1 ns), exact up to floating-point rounding;
 *   2. agreement with the simulator on kunpeng920 where the models' assumptions hold (one participant
 *      per core, no contention), within the tolerance explained at agree().
 * Usage: test_model [-v] (-v prints every row of sim_model_eval). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hand_machine.h"
#include "model.h"

static int failures, checks, verbose;

static void near(const char *what, double got, double want)
{
    checks++;
    if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)) {
        failures++;
        printf("FAIL %s: %.12g, expected %.12g\n", what, got, want);
    }
}

static void is(const char *what, long got, long want)
{
    checks++;
    if (got != want) {
        failures++;
        printf("FAIL %s: %ld, expected %ld\n", what, got, want);
    }
}

/* ---- 1. the formulas ---- */

static void closed_forms(void)
{
    is("rounds(64,4)", sim_model_rounds(64, 4), 3);
    is("rounds(65,4)", sim_model_rounds(65, 4), 4);
    is("rounds(1,2)", sim_model_rounds(1, 2), 0);
    is("rounds(9,2)", sim_model_rounds(9, 2), 4);
    is("rounds(65,2) = ceil(log2(64+1))", sim_model_rounds(65, 2), 7);
    /* (1) at 002's Kunpeng920 L_0 = 14.2 ns, α = 0.5: 3 rounds of 1.5·14.2 + 3·14.2 */
    near("(1) T(4), P=64", sim_model_arrival(64, 4, 0.5, 14.2), 3 * 63.9);
    /* (1) with α = 1 is 002's simplified ceil(log_f P)·(f+1)·L_i */
    near("(1) T(4) at alpha=1 = 3·5·L", sim_model_arrival(64, 4, 1, 10), 150);
    near("§V-B.1 worst, P=64 f=4", sim_model_arrival_worst(64, 4, 0.5, 14.2), 9 * 35.5);
    /* (3): (63·0.5 + 1)·14.2, and c·(P-1) on top */
    near("(3) T_global, P=64", sim_model_global(64, 0.5, 14.2, 0), 32.5 * 14.2);
    near("(3) T_global, P=64, c=2", sim_model_global(64, 0.5, 14.2, 2), 32.5 * 14.2 + 126);
    /* (4): ceil(log2 65) = 7 levels of 1.5·14.2 */
    near("(4) T_tree, P=64", sim_model_tree(64, 0.5, 14.2), 7 * 1.5 * 14.2);
    /* (2): the root solves (ln f - 1)·f = α; e at α = 0, 3.591 at α = 1 (002 §V-B.2) */
    near("(2) f* at alpha=0", sim_model_fopt(0), exp(1.0));
    double f1 = sim_model_fopt(1);
    checks++;
    if (!(f1 > 3.5905 && f1 < 3.5915))
        failures++, printf("FAIL (2) f* at alpha=1: %.6f, 002 says 3.591\n", f1);
    for (double a = 0.25; a <= 1; a += 0.25) {
        double f = sim_model_fopt(a), h = 1e-3;
        near("(2) (ln f* - 1)·f* = alpha", (log(f) - 1) * f, a);
        /* and it minimizes the continuous T(f) = ln P / ln f · (f + α)·L of which (2) is the derivative */
        double tf = (f + a) / log(f), lo = (f - h + a) / log(f - h), hi = (f + h + a) / log(f + h);
        checks++;
        if (!(tf <= lo && tf <= hi))
            failures++, printf("FAIL (2) f*=%.4f does not minimize T(f) at alpha=%.2f\n", f, a);
    }
}

/* The hand-made machine: 1 socket × 2 clusters × 4 cores × 1 thread. */
static struct sim_machine tiny(void)
{
    static const char *const lv[] = { "socket", "cluster", "core", "smt" };
    static const unsigned cnt[] = { 1, 2, 4, 1 };
    struct sim_machine m = hand_machine(4, lv, cnt);
    m.nlayers = 3;
    m.layer[0] = (struct sim_layer){ "eps", SIM_PATH_FIXED, 1.0, 0, 0, 0 };
    m.layer[1] = (struct sim_layer){ "L0", SIM_PATH_FIXED, 10.0, 0.5, 0, 0 };
    m.layer[2] = (struct sim_layer){ "L1", SIM_PATH_FIXED, 50.0, 0.25, 0, 0 };
    m.self_layer = 0;
    m.cache_level = 1;
    m.by_diff[2] = 1; /* two cores of one cluster */
    m.by_diff[1] = 2; /* two clusters */
    return m;
}

static double row(const struct sim_model_row *r, int k, const char *what)
{
    for (int i = 0; i < k; i++)
        if (!strcmp(r[i].what, what))
            return r[i].ns;
    printf("FAIL no row %s\n", what);
    failures++;
    return NAN;
}

static double algo(const struct sim_machine *m, unsigned n, const char *spec, int want)
{
    double ns;
    char d[160], err[200];
    int rc = sim_model_algo(m, n, "cores", 0, spec, &ns, d, sizeof d, err, sizeof err);
    char what[200];
    snprintf(what, sizeof what, "sim_model_algo(%s, n=%u) returns", spec, n);
    is(what, rc, want);
    if (verbose)
        printf("  %-36s rc %d  %8.2f  %s\n", spec, rc, ns, rc < 0 ? err : d);
    return ns;
}

static void on_tiny(void)
{
    struct sim_machine m = tiny();
    struct sim_model_row r[32];
    char err[200];

    /* n = 4: one cluster, one layer (L0 = 10, α = 0.5): each evaluation is its closed form */
    int k = sim_model_eval(&m, 4, "cores", 0, r, 32, err, sizeof err);
    is("rows at n=4", k, 14);
    near("n=4 T(2)", row(r, k, "T(2)"), sim_model_arrival(4, 2, 0.5, 10)); /* 2·(15 + 10) */
    near("n=4 T(2) by hand", row(r, k, "T(2)"), 50);
    near("n=4 T(4)", row(r, k, "T(4)"), sim_model_arrival(4, 4, 0.5, 10)); /* 15 + 3·10 */
    near("n=4 T(4) by hand", row(r, k, "T(4)"), 45);
    near("n=4 T(8)", row(r, k, "T(8)"), sim_model_arrival(4, 8, 0.5, 10));
    near("n=4 T_worst(4)", row(r, k, "T_worst(4)"), sim_model_arrival_worst(4, 4, 0.5, 10));
    near("n=4 T_global", row(r, k, "T_global"), sim_model_global(4, 0.5, 10, 0)); /* (3·0.5 + 1)·10 */
    near("n=4 T_global by hand", row(r, k, "T_global"), 25);
    near("n=4 T_tree", row(r, k, "T_tree"), sim_model_tree(4, 0.5, 10)); /* 3 levels of 15 */
    near("n=4 T_tree by hand", row(r, k, "T_tree"), 45);
    near("n=4 T_numa = T_tree (one cluster)", row(r, k, "T_numa"), 45);
    near("n=4 DIS", row(r, k, "DIS"), 50); /* 2 rounds of 15 + 10 */
    /* c adds c·(P-1) to (3) */
    k = sim_model_eval(&m, 4, "cores", 3, r, 32, err, sizeof err);
    near("n=4 T_global, c=3", row(r, k, "T_global"), 25 + 9);

    /* n = 8: two clusters. Per round the most expensive pair; (1)'s f-1 reads kept in partial blocks. */
    k = sim_model_eval(&m, 8, "cores", 0, r, 32, err, sizeof err);
    if (verbose)
        for (int i = 0; i < k; i++)
            printf("  %-36s %8.2f  %s\n", r[i].what, r[i].ns, r[i].detail);
    /* T(2): rounds at stride 1, 2 inside clusters (15 + 10), stride 4 across (1.25·50 + 50) */
    near("n=8 T(2)", row(r, k, "T(2)"), 25 + 25 + 112.5);
    /* T(3): blocks {0,1,2} {3,4,5} {6,7}: 3-4 crosses (62.5 + 2·50); then {0;3,6}: crosses */
    near("n=8 T(3)", row(r, k, "T(3)"), 162.5 + 162.5);
    /* T(4): {0;1,2,3} {4;5,6,7} at L0 (15 + 3·10), then {0;4} at L1 (62.5 + 3·50) */
    near("n=8 T(4)", row(r, k, "T(4)"), 45 + 212.5);
    near("n=8 T(8)", row(r, k, "T(8)"), 62.5 + 7 * 50);
    near("n=8 T_worst(4)", row(r, k, "T_worst(4)"), 3 * 25 + 3 * 112.5);
    /* (3): RFO to 3 copies at 0.5·10 and 4 at 0.25·50, then the farthest read, 50 */
    near("n=8 T_global", row(r, k, "T_global"), 15 + 50 + 50);
    /* (4): binary tree 0-1-3-7 = 15 + 15 + 62.5 is the costliest path, plus the extra level at 15 */
    near("n=8 T_tree", row(r, k, "T_tree"), 92.5 + 15);
    /* (5): masters 0 -> 4 (62.5), 4 -> 5 -> 7 (15 + 15), plus the extra level at 15 */
    near("n=8 T_numa", row(r, k, "T_numa"), 92.5 + 15);
    checks++;
    if (!strstr(r[7].detail, "1 hops cross") || !strstr(r[6].detail, "4 hops cross"))
        failures++, printf("FAIL remote hop counts: tree '%s', numa '%s'\n", r[6].detail, r[7].detail);
    /* DIS: every round has a pair across the clusters (3-4, 7-0; 2-4; 0-4): 3·(62.5 + 50) */
    near("n=8 DIS", row(r, k, "DIS"), 3 * 112.5);
    near("n=8 stour (002's barrier)", row(r, k, "stour:fanin=4,pad=line,wake=numa"), 257.5 + 107.5);
    near("n=8 tournament:wake=global", row(r, k, "tournament:wake=global"), 162.5 + 115);

    /* sim_model_algo: the mapping onto this project's algorithms */
    near("algo stour", algo(&m, 8, "stour", 1), 365);
    near("algo stour:fanin=2,wake=global", algo(&m, 8, "stour:fanin=2,wake=global", 1), 162.5 + 115);
    near("algo stour:wake=tree", algo(&m, 8, "stour:wake=tree", 1), 257.5 + 107.5);
    near("algo stour:fanin=8,wake=global", algo(&m, 8, "stour:fanin=8,wake=global", 1), 412.5 + 115);
    near("algo tournament:wake=global", algo(&m, 8, "tournament:wake=global", 1), 277.5);
    near("algo dissemination", algo(&m, 8, "dissemination", 1), 337.5);
    static const char *const none[] = { "central", "counting", "ticket", "linear", "combining", "mcs", "dtour",
                                        "hybrid", "tournament", "stour:pad=packed", "dissemination:ways=2",
                                        "dissemination:pad=record", "tournament:wake=global,pad=record", NULL };
    for (int i = 0; none[i]; i++)
        near(none[i], algo(&m, 8, none[i], 0), 0);
    algo(&m, 8, "nosuch", -1);
    algo(&m, 9, "stour", -1); /* 9 participants on 8 threads: refused by sim_place */
    is("eval refuses n=9", sim_model_eval(&m, 9, "cores", 0, r, 32, err, sizeof err), -1);

    /* n = 1: no communication; the formulas at ε */
    k = sim_model_eval(&m, 1, "cores", 0, r, 32, err, sizeof err);
    near("n=1 T(4)", row(r, k, "T(4)"), 0);
    near("n=1 T_global", row(r, k, "T_global"), sim_model_global(1, 0, 1, 0));
    near("n=1 T_tree", row(r, k, "T_tree"), sim_model_tree(1, 0, 1));
}

/* ---- 2. model against simulator ---- */

/* kunpeng920 (002 Table III: L0 14.2 ns in a CCL of 4 cores, L1 44.2 in an SCCL, L2 75 across; α 0.5
 * assumed), one participant per core ("cores"), fixed schedule, no work between barriers.
 * Since issue 12 item 1 the engine overlaps what 002's closed forms add up: a writer's invalidations go
 * out in parallel (the model's T_global charges (P - 1)·α·L for one release store), and plain stores
 * leave through a store buffer (a parent's stores to its children's flags overlap). So the engine is
 * checked to stay at or below the model (sim/model <= 1.02) on every case below, which fails if a cost
 * the model counts once were charged twice; and at P = 4 (one CCL: three sharers of the release flag,
 * one arrival round) within [0.75, 1.02] of it, the gap being 002 §V-B.2's W_R = (1 + α)·L_r for an
 * arrival store where the engine charges the upgrade W_L = α·L_r (the loser still holds the flag it
 * wrote last episode) plus the hits of the barrier's own bookkeeping. */
static void agree(void)
{
    struct sim_machine m;
    char err[600];
    if (sim_machine_load("kunpeng920", &m, err, sizeof err)) {
        failures++, checks++;
        printf("FAIL loading kunpeng920: %s\n", err);
        return;
    }
    static const struct {
        const char *spec;
        unsigned n;
        int check;
    } cases[] = {
        { "stour:fanin=4,pad=line,wake=global", 4, 1 },  { "stour:fanin=4,pad=line,wake=global", 16, 0 },
        { "stour:fanin=4,pad=line,wake=global", 64, 0 }, { "stour", 16, 0 },
        { "stour", 64, 0 },                              { "stour:wake=tree", 64, 0 },
        { "tournament:wake=global", 16, 0 },             { "tournament:wake=global", 64, 0 },
        { "dissemination", 16, 0 },                      { "dissemination", 64, 0 },
    };
    printf("model (002) vs simulated median on kunpeng920, pin=cores, 100 episodes:\n");
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sim_opts o = { .m = &m, .algo = cases[i].spec, .pin = "cores", .n = cases[i].n, .episodes = 100,
                              .seed = 1 };
        struct sim_result r;
        double model;
        char d[160];
        if (sim_run(&o, &r) != 0 ||
            sim_model_algo(&m, cases[i].n, "cores", 0, cases[i].spec, &model, d, sizeof d, err, sizeof err) != 1) {
            failures++, checks++;
            printf("FAIL %s n=%u: %s\n", cases[i].spec, cases[i].n, r.ok ? err : r.error);
            continue;
        }
        double ratio = r.median_ns / model;
        int ok = ratio <= 1.02 && (!cases[i].check || ratio >= 0.75);
        checks++;
        failures += !ok;
        printf("  %-4s %-36s n=%-3u sim %8.1f ns  model %8.1f ns  sim/model %.3f%s  [%s]\n",
               ok ? "ok" : "FAIL", cases[i].spec, cases[i].n, r.median_ns, model, ratio,
               cases[i].check ? " (in 0.75..1.02)" : " (<= 1.02)", d);
    }
    sim_machine_free(&m);
}

int main(int argc, char **argv)
{
    verbose = argc > 1 && !strcmp(argv[1], "-v");
    closed_forms();
    on_tiny();
    agree();
    printf("%s: %d of %d checks failed\n", failures ? "FAIL" : "ok", failures, checks);
    return failures != 0;
}
