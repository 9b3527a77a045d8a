/* subutai_paper.h — 004's Subutai-HW latency tables as data (seed 004_bffc6c40a88a61a2, §V-B): Table III
 * (each state's best and worst response time and its packet injection, as formulas in c, m, n, rho) and
 * Table IV (the same at c = 1, m = 2 ns, n = 4, rho = 63, FSMentry = 4, FSMexit = 1 ns, as printed). The one
 * place these figures live: the FSM's tests (tests/sim/test_subutai_fsm.c) and the table tool
 * (sim/subutai_table.c, scripts/sim_experiment.sh 004-fsm) read them from here. Nothing here feeds a model.
 */
#ifndef AG_SIM_SUBUTAI_PAPER_H
#define AG_SIM_SUBUTAI_PAPER_H

#include "subutai_fsm.h"

/* A Table III formula: m_ m + c_ c + nm n m + rho (rm m + rc c); none = 1: "None" (no packet). */
struct suf_formula {
    double m_, c_, nm, rm, rc;
    int none;
    const char *text; /* as Table III prints it */
};

/* Table IV's packet-injection cell: up to 3 times (ns) as printed, n = 0 for "None". */
struct suf_inject {
    unsigned n;
    double at[3];
};

struct suf_paper_row {
    const char *state;             /* the Table III/IV row */
    struct suf_formula resp[2];    /* Table III: best, worst response time (no FSMentry/FSMexit) */
    struct suf_formula inject;     /* Table III: packet injection (one column) */
    double table4[2];              /* Table IV: best, worst response time, ns as printed */
    struct suf_inject inject4[2];  /* Table IV: packet injection, best and worst columns */
};

/* The scenario parameters of a table: Table IV's caption (c, m, FSMentry, FSMexit in ns; n primitives, rho
 * threads on the barrier). */
struct suf_paper_params {
    struct suf_params p;
    unsigned n, rho;
};

#define SUF_PAPER_ROWS 8
/* Rows in Table III's order: Allocation, Deallocation, Mutex Lock, Mutex Unlock, Barrier Wait, Condition Wait,
 * Condition Broadcast, Condition Signal. */
extern const struct suf_paper_row suf_paper[SUF_PAPER_ROWS];
extern const struct suf_paper_params suf_paper_table4;

/* A Table III formula at these parameters (ns, without FSMentry/FSMexit); NAN for "None". */
double suf_formula_ns(const struct suf_formula *f, const struct suf_paper_params *pp);

#endif
