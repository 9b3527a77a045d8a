/* subutai_paper.c — 004 Tables III and IV (seed 004_bffc6c40a88a61a2, §V-B) as data; subutai_paper.h. */
#include "subutai_paper.h"

#include <math.h>

#define F(M, C, NM, RM, RC, TEXT) {M, C, NM, RM, RC, 0, TEXT}
#define NONE {0, 0, 0, 0, 0, 1, "None"}
#define IN0 {0, {0}}
#define IN1(a) {1, {a}}

/* Condition Wait's Table III cells read "5m + c + Mutex Unlock" and "10m + c + Mutex Unlock": Mutex Unlock's
 * own best (2m) and worst (10m + c) are added in, which is what Table IV prints (20 = 5 + 11 + 4; 47 = 5 + 42). */
const struct suf_paper_row suf_paper[SUF_PAPER_ROWS] = {
    {"Allocation", {F(4, 1, 0, 0, 0, "4m+c"), F(3, 1, 1, 0, 0, "(n x m) + (3m+c)")},
     F(1, 1, 1, 0, 0, "(n x m) + (m+c)"), {14, 20}, {IN1(10), IN1(15)}},
    {"Deallocation", {F(3, 0, 0, 0, 0, "3m"), F(3, 0, 0, 0, 0, "3m")}, NONE, {11, 11}, {IN0, IN0}},
    {"Mutex Lock", {F(2, 1, 0, 0, 0, "2m+c"), F(11, 0, 0, 0, 0, "11m")}, F(2, 1, 0, 0, 0, "2m+c"), {10, 27},
     {IN0, IN1(10)}},
    {"Mutex Unlock", {F(2, 0, 0, 0, 0, "2m"), F(10, 1, 0, 0, 0, "10m + c")}, F(2, 1, 0, 0, 0, "2m+c"), {9, 26},
     {IN0, IN1(12)}},
    {"Barrier Wait", {F(7, 0, 0, 0, 0, "7m"), F(1, 1, 0, 11, 3, "(m+c) + rho x (11m+3c)")},
     F(1, 1, 0, 11, 3, "(m+c) + rho x (11m + 3c)"), {19, 1583}, {IN0, {3, {7, 32, 57}}}},
    {"Condition Wait", {F(7, 1, 0, 0, 0, "5m + c + Mutex Unlock"), F(20, 2, 0, 0, 0, "10m + c + Mutex Unlock")},
     NONE, {20, 47}, {IN0, IN0}},
    {"Condition Broadcast", {F(1, 0, 0, 0, 0, "m"), F(18, 1, 0, 0, 0, "18m + c")}, F(11, 1, 0, 0, 0, "11m + c"),
     {7, 42}, {IN0, IN1(27)}},
    {"Condition Signal", {F(1, 0, 0, 0, 0, "m"), F(29, 2, 0, 0, 0, "29m + 2c")}, F(11, 1, 0, 0, 0, "11m + c"),
     {7, 65}, {IN0, IN1(27)}},
};

/* Table IV's caption: "c=1ns, m=2ns, n=4, rho=63, FSMentry=4ns, FSMexit=1ns" */
const struct suf_paper_params suf_paper_table4 = {{1, 2, 4, 1}, 4, 63};

double suf_formula_ns(const struct suf_formula *f, const struct suf_paper_params *pp)
{
    if (f->none)
        return NAN;
    double m = pp->p.m, c = pp->p.c;
    return f->m_ * m + f->c_ * c + f->nm * pp->n * m + pp->rho * (f->rm * m + f->rc * c);
}
