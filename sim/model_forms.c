/* model_forms.c — 002's closed forms (Gao et al., CLUSTER 2021) on one layer, as the paper writes them:
 * rounds of an f-way tree, the arrival phase (1) and §V-B.1's worst case, the optimal fan-in (2), the
 * global (3) and binary-tree (4) wake-ups. model.c applies them to a machine's layers; model.h is the
 * API. */
#include "model.h"

#include <math.h>
#include <stdint.h>

unsigned sim_model_rounds(unsigned P, unsigned f)
{
    unsigned r = 0;
    if (f < 2)
        return 0;
    for (uint64_t s = 1; s < P; s *= f)
        r++;
    return r;
}

/* 002 §V-B.2, (1): T(f) = ceil(log_f P)·(O_WR + (f-1)·O_RR) = ceil(log_f P)·((1+α_i)L_i + (f-1)L_i).
 * 002 simplifies the last form to ceil(log_f P)·(f+1)·L_i, which holds only for α_i = 1; (2) is the
 * derivative of the (f + α_i) form, which is the one kept here. */
double sim_model_arrival(unsigned P, unsigned f, double alpha, double L)
{
    return sim_model_rounds(P, f) * ((1 + alpha) * L + (f - 1) * L);
}

/* 002 §V-B.1: "(f-1)×W_R + (f-1)×R_R in the worst case" per synchronization point, O_WR as in (1). */
double sim_model_arrival_worst(unsigned P, unsigned f, double alpha, double L)
{
    return sim_model_rounds(P, f) * (f - 1) * ((1 + alpha) * L + L);
}

/* 002 §V-B.2, (2): T'(f) = L_i·ln P·((ln f - 1)·f - α_i) / (f·ln² f) = 0 where (ln f - 1)·f = α_i;
 * (ln f - 1)·f increases for f > 1 and is 0 at e, so bisect on [e, hi]. */
double sim_model_fopt(double alpha)
{
    double lo = exp(1.0), hi = 4;
    if (alpha <= 0)
        return lo;
    while ((log(hi) - 1) * hi < alpha)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        if ((log(mid) - 1) * mid < alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* 002 §V-C, (3): T_global = (P-1)·α_i·L_i + O_RR + c·(P-1) = ((P-1)·α_i + 1)·L_i + c·(P-1). */
double sim_model_global(unsigned P, double alpha, double L, double c)
{
    double others = P > 1 ? P - 1 : 0;
    return (others * alpha + 1) * L + c * others;
}

/* 002 §V-C, (4): T_tree = ceil(log2(P+1))·(α_i·L_i + L_i) = ceil(log2(P+1))·(α_i + 1)·L_i. */
double sim_model_tree(unsigned P, double alpha, double L)
{
    return sim_model_rounds(P + 1, 2) * (alpha + 1) * L;
}
