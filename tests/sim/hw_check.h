/* hw_check.h — what test_hw.c and test_hw_noc.c share: failure counting, the machine files and variants of
 * them, and the sim/hw devices opened and run episode by episode the way sim/engine.c does (hw_check.c). */
#ifndef AG_TEST_HW_CHECK_H
#define AG_TEST_HW_CHECK_H

#include <stddef.h>

#include "hw.h"
#include "machine.h"

#define MAXN 512

extern const char *dir; /* the machine files (test_hw's argument, else AG_TEST_MACHINES) */
extern int failures, checks;

void fail(const char *fmt, ...);
void near(const char *what, double got, double want);
void load(const char *name, struct sim_machine *m);

/* ops: "set PATH VALUE UNIT" or "del PATH", applied to NAME's file; loads the result into m. */
void variant(const char *name, struct sim_machine *m, int nops, const char *const *ops);

struct dev {
    const struct sim_hw *d;
    struct sim_hw_ctx c;
    unsigned hw[MAXN];
};

int open_dev(struct dev *x, const char *name, const struct sim_machine *m, unsigned n, const unsigned *hw,
             char *err, size_t errlen);
void must_open(struct dev *x, const char *name, const struct sim_machine *m, unsigned n, const unsigned *hw);
void close_dev(struct dev *x);
/* Arrivals in nondecreasing t (ties: tid order), then every release with t_all = the largest registration. */
double episode(struct dev *x, const double *t, double *reg, double *rel);
void refused(const char *dev, const struct sim_machine *m, unsigned n, const unsigned *hw, const char *needle);
void iota(unsigned *hw, unsigned n, unsigned stride);

/* test_hw_noc.c: 001's Reflex, 004's Subutai and its FSM's counts */
void test_reflex(void);
void test_subutai(void);
void test_subutai_fsm_count(void);

#endif
