/* model.h — the analytical cost models of 002 (Gao et al., "Optimizing Barrier Synchronization on ARMv8
 * Many-Core Architectures", CLUSTER 2021), evaluated on a modeled machine (machine.h) beside what
 * andgate sim measures.
 *
 * 002 §III-B: per-operation costs from the core-to-core layers L_i of §III-A (Tables I-III) and a
 * per-layer RFO weight α_i: O_RL = ε, O_RR = L_i, O_WL = n·α_i·L_i, O_WR = (1 + n·α_i)·L_i (n copies).
 * 002 §V-B.2: the arrival phase of the static f-way tournament, (1) T(f) and its optimum (2).
 * 002 §V-C: the notification phase, (3) T_global, (4) T_tree, and the NUMA-aware tree (5).
 *
 * The closed forms below take one layer (L, α), as 002 writes them. sim_model_eval and sim_model_algo
 * evaluate them on a machine, where every communication has its own layer: L between participants i
 * and j is sim_machine_cost(m, hw[i], hw[j], 0), α is sim_machine_alpha; on a machine whose
 * participants all share one layer they equal the closed forms exactly. docs/sim-model.md says how
 * each formula is resolved per layer and what 002 leaves out.
 */
#ifndef AG_SIM_MODEL_H
#define AG_SIM_MODEL_H

#include <stddef.h>

#include "machine.h"

struct sim_model_row {
    const char *what;  /* "T(4)", "T_global", ... or an algorithm spec; a static string */
    double ns;
    char detail[160];  /* the formula, its source in 002, and what was left out */
};

/* ceil(log_f P) as an integer: the number of rounds of an f-way tournament of P players (0 for P <= 1). */
unsigned sim_model_rounds(unsigned P, unsigned f);

/* 002 (1): T(f) = ceil(log_f P)·((1 + α)·L + (f - 1)·L), the arrival phase of the static f-way
 * tournament in the best case, one copy per flag. */
double sim_model_arrival(unsigned P, unsigned f, double alpha, double L);
/* 002 §V-B.1's worst case of a synchronization point, (f - 1)·W_R + (f - 1)·R_R per round:
 * ceil(log_f P)·(f - 1)·((1 + α)·L + L). */
double sim_model_arrival_worst(unsigned P, unsigned f, double alpha, double L);
/* 002 (2): the f > 1 where T'(f) = 0, i.e. (ln f - 1)·f = α; in [e, 3.591] for α in [0, 1]. */
double sim_model_fopt(double alpha);
/* 002 (3): T_global = ((P - 1)·α + 1)·L + c·(P - 1). */
double sim_model_global(unsigned P, double alpha, double L, double c);
/* 002 (4): T_tree = ceil(log2(P + 1))·(α + 1)·L. */
double sim_model_tree(unsigned P, double alpha, double L);

/* Evaluates 002's models for n participants placed by policy (sim_place: cores, compact, scatter):
 * the arrival phase T(f) for f = 2, 3, 4 (002's choice), 8 and the worst case for f = 4, T_global,
 * T_tree, the NUMA-aware tree, the dissemination rounds (composed from §III-B, 002 gives no equation),
 * then the prediction for each algorithm spec 002 models (see sim_model_algo). c is 002's contention
 * coefficient of (3) in ns per reader; the machine files carry none (the engine models contention as
 * queueing), so pass 0 unless you have a value. Returns the number of rows written (at most max), or -1
 * with a message in err (placement refused). */
int sim_model_eval(const struct sim_machine *m, unsigned n, const char *policy, double c,
                   struct sim_model_row *rows, int max, char *err, size_t errlen);

/* 002's prediction for one algorithm spec of this project (src/algos.c) with n participants: 1 with *ns
 * and what it is made of in detail; 0 when 002 gives no model for that algorithm or variant (detail says
 * why, *ns = 0); -1 with a message in err (bad spec, placement refused). The mapping:
 *   stour:pad=line,wake=global|tree|numa  STOUR with padded flags: T(fanin) + (3) | (4) | (5) tree
 *   tournament:wake=global                TOUR: T(2) + (3) (002 §II-B: "adopts global wake-up")
 *   dissemination:ways=1                  DIS: ceil(log2 P) rounds of one W_R + one R_R (composed)
 * and none for central (SENSE), combining (CMB), mcs (MCS), dtour (DTOUR), stour:pad=packed,
 * tournament:wake=tree (binomial tree), dissemination:ways>1 and the algorithms 002 does not study. */
int sim_model_algo(const struct sim_machine *m, unsigned n, const char *policy, double c, const char *spec,
                   double *ns, char *detail, size_t len, char *err, size_t errlen);

#endif
