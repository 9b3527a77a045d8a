/* subutai_cases.h — Subutai-HW's FSM model (subutai_fsm.h) driven into the cases of 004's Table III rows
 * (seed 004_bffc6c40a88a61a2, §V-B): each state's best and worst response time. Shared by the FSM's tests and
 * the table tool (sim/subutai_table.c), so that both measure the same setups. */
#ifndef AG_SIM_SUBUTAI_CASES_H
#define AG_SIM_SUBUTAI_CASES_H

#include "subutai_paper.h"

/* One request; the result (status in r.st). */
struct suf_res suf_go(struct suf *s, enum suf_op op, unsigned id, unsigned thread, unsigned mutex);
/* Allocates a primitive of kind k (a barrier of max participants); its id, or SUF_NCTRL when refused. */
unsigned suf_mk(struct suf *s, enum suf_kind k, unsigned max);
/* A mutex owned by thread 1000 with waiters 1001.. until `left` free entries remain; its id. */
unsigned suf_fill(struct suf *s, unsigned left);

/* Row `row` (suf_paper's order) in its best (worst = 0) or worst case, on an FSM of its own with pp's
 * parameters: every request of the setup, then the row's request, whose result is *r. -1 for a row out of
 * range or a setup the FSM refused (a bug), else 0. Setups (each row's comment in subutai_cases.c):
 * docs/sim-hw.md "hw-subutai: the FSM". */
int suf_case(int row, int worst, const struct suf_paper_params *pp, struct suf_res *r);

#endif
