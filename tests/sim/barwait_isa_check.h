/* barwait_isa_check.h — what test_barwait_isa.c and barwait_isa_random.c share: failure counting and an
 * event log the model writes into (sim/hw/barwait_isa.h). */
#ifndef AG_TEST_BARWAIT_ISA_CHECK_H
#define AG_TEST_BARWAIT_ISA_CHECK_H

#include <stdio.h>

#include "barwait_isa.h"

extern int bwt_failures, bwt_checks;

#define CHECK(cond, ...)                                                                                      \
    do {                                                                                                      \
        bwt_checks++;                                                                                         \
        if (!(cond)) {                                                                                        \
            bwt_failures++;                                                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                              \
            fprintf(stderr, __VA_ARGS__);                                                                     \
            fprintf(stderr, "\n");                                                                            \
        }                                                                                                     \
    } while (0)

#define BWT_MAXEV 1024

struct bwt_log {
    struct bwi_event ev[BWT_MAXEV];
    unsigned n;
    int overflow;
};

void bwt_record(void *arg, const struct bwi_event *ev);

/* Random schedules (barwait_isa_random.c): seeds 0..nseeds-1; returns the number of seeds run. */
int bwt_random(unsigned nseeds);

#endif
