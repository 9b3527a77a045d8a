/* model.c — the analytical cost models of 002 (Gao et al., CLUSTER 2021) on a modeled machine: §III-B
 * (operation costs O_RL, O_RR, O_WL, O_WR), §V-B (arrival phase (1), optimal fan-in (2), the worst-case
 * count of §V-B.1), §V-C (global wake-up (3), binary tree (4), NUMA-aware tree (5)); the dissemination
 * rounds of §II-B priced with §III-B. See model.h for the API and docs/sim-model.md for the reading.
 *
 * How a one-layer formula meets a machine where every pair of participants has its own layer:
 *   - a phase made of synchronizing steps (the rounds of (1), of §V-B.1's worst case, of DIS) is the sum
 *     over its steps of the step's term at the most expensive communication of that step (the slowest
 *     group ends the round);
 *   - a wake-up tree ((4), and (5) priced like (4)) is its critical path: the most expensive root-to-node
 *     path, each hop costing (4)'s per-level term at that hop's layer, plus the one level (4) counts
 *     beyond the hops of a path, at the tree's cheapest hop;
 *   - §III-B's RFO is per copy (α_i·L_i for each copy), so the W_L of (3) sums over the P - 1 copies.
 * With every pair in one layer each evaluation is exactly its closed form (model_forms.c; test_model.c
 * checks this).
 */
#include "model.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "spec.h"

struct ctx {
    const struct sim_machine *m;
    unsigned n;
    unsigned *hw; /* hw[q]: the hardware thread of position q (the engine's rank = tid = placement order) */
    double c;
};

/* L between positions a and b: the one-way cost of moving a line from b to a (002's L_i; ε when a == b). */
static double lat(const struct ctx *x, unsigned a, unsigned b)
{
    return sim_machine_cost(x->m, x->hw[a], x->hw[b], 0);
}

/* α_i of a's RFO to b's copy. */
static double alpha(const struct ctx *x, unsigned a, unsigned b)
{
    return sim_machine_alpha(x->m, x->hw[a], x->hw[b]);
}

/* §III-B: O_WR of writer w whose line has one copy, at h: O_RR + O_RFO = L(w,h) + α(w,h)·L(w,h). */
static double o_wr1(const struct ctx *x, unsigned w, unsigned h)
{
    return (1 + alpha(x, w, h)) * lat(x, w, h);
}

/* (1) (worst = 0) and §V-B.1's worst case (worst = 1) of the static f-way tournament over positions:
 * round r has blocks of f^(r+1) positions, the first the winner, its losers at stride f^r (002 §II-B,
 * as stour.c plays it). A round costs its term at the most expensive winner-loser pair of the round; the
 * term keeps 002's count of f - 1 reads even in a partial block, as (1) does. */
static double arrival(const struct ctx *x, unsigned f, int worst)
{
    double t = 0;
    if (f < 2)
        return 0;
    for (uint64_t s = 1; s < x->n; s *= f) {
        double step = 0;
        for (uint64_t w = 0; w < x->n; w += s * f)
            for (uint64_t k = 1; k < f && w + k * s < x->n; k++) {
                unsigned l = (unsigned)(w + k * s), win = (unsigned)w;
                double wr = o_wr1(x, l, win), rr = lat(x, win, l);
                double term = worst ? (f - 1) * (wr + rr) : wr + (f - 1) * rr;
                if (term > step)
                    step = term;
            }
        t += step;
    }
    return t;
}

/* (3) from the champion, position 0: its W_L invalidates the P-1 copies, α_i·L_i each (§III-B prices the
 * RFO per copy), then the P-1 readers fetch the line in parallel (O_RR at the farthest) plus c·(P-1). */
static double global(const struct ctx *x)
{
    double inval = 0, rd = x->n > 1 ? 0 : lat(x, 0, 0);
    for (unsigned j = 1; j < x->n; j++) {
        inval += alpha(x, 0, j) * lat(x, 0, j);
        if (lat(x, j, 0) > rd)
            rd = lat(x, j, 0);
    }
    return inval + rd + x->c * (x->n - 1);
}

/* The level of 002's "logical core cluster" (N_c threads, §III-A: the L_0 group — Phytium's core group,
 * ThunderX2's socket, Kunpeng's CCL): the level just above "core". */
static unsigned cluster_level(const struct sim_machine *m)
{
    int core = sim_machine_level(m, "core");
    if (core < 0)
        core = m->nlevels >= 2 ? (int)m->nlevels - 2 : 0;
    return core > 0 ? (unsigned)core - 1 : 0;
}

/* A wake-up tree priced like (4): hop p -> q costs W_L + R_R = α(p,q)·L(p,q) + L(q,p), and the tree its
 * most expensive root-to-node path. (4) counts ceil(log2(P+1)) levels, one more than the hops of the
 * deepest path (the root's level has no incoming hop); that extra level is charged once, at the tree's
 * cheapest hop, so a one-layer machine gives (4) exactly and trees of the same depth are charged alike.
 * *remote counts the hops between different clusters (002 §V-C's "remote accesses with L_i (i > 0)").
 * parent[q] < q; parent[0] unused. */
static double tree_path(const struct ctx *x, const unsigned *parent, unsigned *remote)
{
    *remote = 0;
    if (x->n <= 1)
        return (alpha(x, 0, 0) + 1) * lat(x, 0, 0);
    double *at = malloc(x->n * sizeof *at), worst = 0, cheapest = INFINITY;
    if (!at)
        return NAN;
    unsigned lvl = cluster_level(x->m);
    at[0] = 0;
    for (unsigned q = 1; q < x->n; q++) {
        unsigned p = parent[q];
        double hop = alpha(x, p, q) * lat(x, p, q) + lat(x, q, p);
        at[q] = at[p] + hop;
        worst = at[q] > worst ? at[q] : worst;
        cheapest = hop < cheapest ? hop : cheapest;
        *remote += sim_machine_unit(x->m, x->hw[p], lvl) != sim_machine_unit(x->m, x->hw[q], lvl);
    }
    free(at);
    return worst + cheapest;
}

/* (4)'s tree: node q wakes 2q+1 and 2q+2. */
static double tree(const struct ctx *x, unsigned *remote)
{
    unsigned *parent = malloc((x->n ? x->n : 1) * sizeof *parent);
    if (!parent)
        return NAN;
    for (unsigned q = 1; q < x->n; q++)
        parent[q] = (q - 1) / 2;
    double t = tree_path(x, parent, remote);
    free(parent);
    return t;
}

/* (5)'s tree: clusters numbered by first appearance in position order, the first position of each its
 * master; master of cluster g wakes the masters of clusters 2g+1 and 2g+2 ((5)'s 2n + N_c, 2n + 2N_c) and
 * inside a cluster local index l wakes 2l+1 and 2l+2 ((5)'s last two cases; a master is local 0). The
 * number of clusters is returned in *ngroups. Priced like (4): 002 gives (5) as a topology only. */
static double numa_tree(const struct ctx *x, unsigned *ngroups, unsigned *remote)
{
    unsigned n = x->n, lvl = cluster_level(x->m), units = x->m->threads;
    unsigned *dense = malloc(units * sizeof *dense), *grp = malloc((n ? n : 1) * sizeof *grp);
    unsigned *loc = malloc((n ? n : 1) * sizeof *loc), *size = calloc(n ? n : 1, sizeof *size);
    unsigned *start = calloc(n ? n : 1, sizeof *start), *member = malloc((n ? n : 1) * sizeof *member);
    unsigned *parent = malloc((n ? n : 1) * sizeof *parent);
    double t = NAN;
    *ngroups = *remote = 0;
    if (dense && grp && loc && size && start && member && parent) {
        unsigned g = 0;
        for (unsigned u = 0; u < units; u++)
            dense[u] = UINT32_MAX;
        for (unsigned q = 0; q < n; q++) {
            unsigned u = sim_machine_unit(x->m, x->hw[q], lvl);
            if (dense[u] == UINT32_MAX)
                dense[u] = g++;
            grp[q] = dense[u];
            loc[q] = size[grp[q]]++;
        }
        for (unsigned k = 1; k < g; k++)
            start[k] = start[k - 1] + size[k - 1];
        for (unsigned q = 0; q < n; q++)
            member[start[grp[q]] + loc[q]] = q;
        for (unsigned q = 1; q < n; q++)
            parent[q] = loc[q] ? member[start[grp[q]] + (loc[q] - 1) / 2] : member[start[(grp[q] - 1) / 2]];
        *ngroups = g;
        t = tree_path(x, parent, remote);
    }
    free(dense), free(grp), free(loc), free(size), free(start), free(member), free(parent);
    return t;
}

/* DIS (002 §II-B): ceil(log2 P) rounds; in round j position i writes the flag of (i + 2^j) mod P and
 * waits for (i - 2^j) mod P. 002 gives no equation for it; each round is priced like a round of (1) with
 * f = 2: one O_WR (the flag's one copy is at its reader) and one O_RR, at the round's most expensive pair. */
static double dissemination(const struct ctx *x)
{
    double t = 0;
    for (uint64_t d = 1; d < x->n; d *= 2) {
        double step = 0;
        for (unsigned i = 0; i < x->n; i++) {
            unsigned j = (unsigned)((i + d) % x->n);
            double term = o_wr1(x, i, j) + lat(x, j, i);
            if (term > step)
                step = term;
        }
        t += step;
    }
    return t;
}

/* α range over the pairs (0, j): the α_i that (2) solves for. */
static void alpha_range(const struct ctx *x, double *lo, double *hi)
{
    *lo = *hi = x->n > 1 ? alpha(x, 0, 1) : alpha(x, 0, 0);
    for (unsigned j = 2; j < x->n; j++) {
        double a = alpha(x, 0, j);
        *lo = a < *lo ? a : *lo;
        *hi = a > *hi ? a : *hi;
    }
}

/* Everything sim_model_eval and sim_model_algo report, computed once. */
struct all {
    double t[9];           /* T(2), T(3), T(4), T(8), T_worst(4), T_global, T_tree, T_numa, DIS */
    unsigned ngroups;      /* clusters of the NUMA-aware tree */
    unsigned rtree, rnuma; /* hops between clusters in the binary and the NUMA-aware tree */
    unsigned nc_level;     /* the clusters' level */
    double alo, ahi;       /* α range */
};
enum { T2, T3, T4, T8, TW4, TG, TT, TN, TD };

/* Places the participants (x->hw, freed by the caller) and computes every model. */
static int compute(struct ctx *x, const char *policy, struct all *a, char *err, size_t errlen)
{
    if (x->n == 0) {
        snprintf(err, errlen, "the models need at least one participant");
        return -1;
    }
    if (!(x->hw = malloc(x->n * sizeof *x->hw))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (sim_place(x->m, x->n, policy ? policy : "cores", x->hw, err, errlen))
        return -1;
    a->t[T2] = arrival(x, 2, 0);
    a->t[T3] = arrival(x, 3, 0);
    a->t[T4] = arrival(x, 4, 0);
    a->t[T8] = arrival(x, 8, 0);
    a->t[TW4] = arrival(x, 4, 1);
    a->t[TG] = global(x);
    a->t[TT] = tree(x, &a->rtree);
    a->t[TN] = numa_tree(x, &a->ngroups, &a->rnuma);
    a->t[TD] = dissemination(x);
    a->nc_level = cluster_level(x->m);
    alpha_range(x, &a->alo, &a->ahi);
    for (int i = 0; i < 9; i++)
        if (isnan(a->t[i])) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    return 0;
}

/* The value of key name in a parsed spec, or LONG_MIN when the kind has no such key. */
static long key_of(const struct ag_spec *sp, const char *name)
{
    const struct ag_key *k;
    for (unsigned j = 0; (k = ag_spec_key(&ag_algo_table, sp->kind, j)); j++)
        if (!strcmp(k->name, name))
            return sp->val[j];
    return LONG_MIN;
}

/* Whether key name holds word (read through src/algo.h's accessors, never the encoding). */
static int word_is(const struct ag_spec *sp, const char *name, const char *word)
{
    const struct ag_key *k;
    for (unsigned j = 0; (k = ag_spec_key(&ag_algo_table, sp->kind, j)); j++)
        if (!strcmp(k->name, name))
            return k->words && ag_is_word(sp->val[j]) && !strcmp(k->words[ag_word(sp->val[j])], word);
    return 0;
}

/* The prediction for a parsed spec, from the computed models (arrival T(f) for stour's own f). */
static int predict(const struct ctx *x, const struct all *a, const struct ag_spec *sp, double *ns, char *d, size_t len)
{
    const char *name = sp->kind->name;
    *ns = 0;
    if (!strcmp(name, "stour")) {
        unsigned f = (unsigned)key_of(sp, "fanin");
        double arr = arrival(x, f, 0);
        if (word_is(sp, "pad", "packed")) {
            snprintf(d, len, "packed flags (002 Fig. 8(a)): 002 gives only the worst-case count of §V-B.1, "
                             "%.1f ns for f=%u; no model", arrival(x, f, 1), f);
            return 0;
        }
        if (word_is(sp, "wake", "global"))
            return *ns = arr + a->t[TG], snprintf(d, len, "STOUR: T(%u) %.1f + T_global (3) %.1f", f, arr, a->t[TG]), 1;
        if (word_is(sp, "wake", "tree"))
            return *ns = arr + a->t[TT], snprintf(d, len, "STOUR: T(%u) %.1f + T_tree (4) %.1f", f, arr, a->t[TT]), 1;
        *ns = arr + a->t[TN];
        snprintf(d, len, "002's barrier: T(%u) %.1f + NUMA-aware tree (5) %.1f (N_c = %s units)", f, arr, a->t[TN],
                 x->m->level[a->nc_level]);
        return 1;
    }
    if ((!strcmp(name, "tournament") || !strcmp(name, "dissemination")) && word_is(sp, "pad", "record")) {
        snprintf(d, len, "a participant's flags of all rounds in one record: 002 §III-B counts one line per flag; "
                         "no model of the stores that land on a polled line");
        return 0;
    }
    if (!strcmp(name, "tournament")) {
        if (word_is(sp, "wake", "global"))
            return *ns = a->t[T2] + a->t[TG],
                   snprintf(d, len, "TOUR: T(2) %.1f + T_global (3) %.1f", a->t[T2], a->t[TG]), 1;
        snprintf(d, len, "wake=tree is a binomial tree, not 002's binary tree (4); TOUR's arrival T(2) = %.1f",
                 a->t[T2]);
        return 0;
    }
    if (!strcmp(name, "dissemination")) {
        if (key_of(sp, "ways") != 1) {
            snprintf(d, len, "002 models (composed) only the 1-way DIS of §II-B");
            return 0;
        }
        *ns = a->t[TD];
        snprintf(d, len, "DIS: ceil(log2 P) rounds of O_WR + O_RR (§II-B rounds, §III-B costs; no 002 equation)");
        return 1;
    }
    if (!strcmp(name, "central"))
        snprintf(d, len, "SENSE: 002 models only its wake-up, T_global (3) = %.1f; the arrival (P atomics on one "
                         "line) is discussed as contention, not modeled", a->t[TG]);
    else if (!strcmp(name, "mcs"))
        snprintf(d, len, "MCS: 002 models only its binary wake-up, T_tree (4) = %.1f; no formula for its "
                         "arrival tree", a->t[TT]);
    else if (!strcmp(name, "combining"))
        snprintf(d, len, "CMB: arrival on shared counters with atomics; no 002 formula");
    else if (!strcmp(name, "dtour"))
        snprintf(d, len, "DTOUR: dynamic winners by atomics; no 002 formula");
    else
        snprintf(d, len, "not one of 002's algorithms (SENSE, DIS, CMB, MCS, TOUR, STOUR, DTOUR)");
    return 0;
}

int sim_model_algo(const struct sim_machine *m, unsigned n, const char *policy, double c, const char *spec,
                   double *ns, char *detail, size_t len, char *err, size_t errlen)
{
    struct ag_spec sp;
    struct all a;
    struct ctx x = { m, n, NULL, c };
    *ns = 0;
    if (ag_spec_parse(&ag_algo_table, spec, &sp, err, errlen))
        return -1;
    int rc = compute(&x, policy, &a, err, errlen) ? -1 : predict(&x, &a, &sp, ns, detail, len);
    free(x.hw);
    return rc;
}

/* The algorithm specs of sim_model_eval's last rows: what 002 models, in this project's names. */
static const char *const modeled[] = {
    "stour:fanin=4,pad=line,wake=numa", "stour:fanin=4,pad=line,wake=tree", "stour:fanin=4,pad=line,wake=global",
    "tournament:wake=global", "dissemination:ways=1",
};

int sim_model_eval(const struct sim_machine *m, unsigned n, const char *policy, double c,
                   struct sim_model_row *rows, int max, char *err, size_t errlen)
{
    struct all a;
    struct ctx x = { m, n, NULL, c };
    if (compute(&x, policy, &a, err, errlen)) {
        free(x.hw);
        return -1;
    }
    int k = 0;
#define ROW(name, value, ...)                                                                                          \
    do {                                                                                                               \
        if (k < max) {                                                                                                 \
            rows[k].what = name;                                                                                       \
            rows[k].ns = value;                                                                                        \
            snprintf(rows[k].detail, sizeof rows[k].detail, __VA_ARGS__);                                              \
        }                                                                                                              \
        k++;                                                                                                           \
    } while (0)
    unsigned P = n;
    ROW("T(2)", a.t[T2], "arrival (1), f=2 (TOUR): %u rounds of O_WR + 1 O_RR", sim_model_rounds(P, 2));
    ROW("T(3)", a.t[T3], "arrival (1), f=3: %u rounds of O_WR + 2 O_RR", sim_model_rounds(P, 3));
    if (a.alo == a.ahi)
        ROW("T(4)", a.t[T4], "arrival (1), f=4, 002's choice: %u rounds; (2) = 0 at f*=%.2f for alpha=%.2f",
            sim_model_rounds(P, 4), sim_model_fopt(a.alo), a.alo);
    else
        ROW("T(4)", a.t[T4], "arrival (1), f=4, 002's choice: %u rounds; (2) = 0 at f* in %.2f..%.2f for alpha "
            "%.2f..%.2f", sim_model_rounds(P, 4), sim_model_fopt(a.alo), sim_model_fopt(a.ahi), a.alo, a.ahi);
    ROW("T(8)", a.t[T8], "arrival (1), f=8: %u rounds of O_WR + 7 O_RR", sim_model_rounds(P, 8));
    ROW("T_worst(4)", a.t[TW4], "arrival, worst case of 002 §V-B.1: %u rounds of 3 W_R + 3 R_R",
        sim_model_rounds(P, 4));
    ROW("T_global", a.t[TG], "wake-up (3): W_L over %u copies + O_RR + c(P-1), c=%g ns", P - 1, c);
    ROW("T_tree", a.t[TT], "wake-up (4): ceil(log2(P+1))=%u levels of (alpha+1)L on the critical path; %u hops "
        "cross clusters", sim_model_rounds(P + 1, 2), a.rtree);
    ROW("T_numa", a.t[TN], "wake-up, NUMA-aware tree (5) over %u %s units, priced like (4) (002: no cost "
        "formula); %u hops cross clusters", a.ngroups, m->level[a.nc_level], a.rnuma);
    ROW("DIS", a.t[TD], "dissemination: %u rounds of O_WR + O_RR (composed from §II-B, §III-B; 002 has no "
        "equation)", sim_model_rounds(P, 2));
    for (unsigned i = 0; i < sizeof modeled / sizeof *modeled; i++) {
        struct ag_spec sp;
        double ns;
        char d[160];
        if (ag_spec_parse(&ag_algo_table, modeled[i], &sp, err, errlen) || predict(&x, &a, &sp, &ns, d, sizeof d) != 1)
            continue; /* cannot happen: the specs are fixed */
        ROW(modeled[i], ns, "%s", d);
    }
#undef ROW
    free(x.hw);
    return k < max ? k : max;
}
