/* test_barwait_isa.c — the semantics of 000 §4.1's barinit/barwait ISA (sim/hw/barwait_isa.c,
 * docs/sim-hw.md "hw-barwait: the ISA's semantics"): one test per rule, then random schedules
 * (barwait_isa_random.c). Virtual time only; no timing thresholds.
 *
 * Usage: test_barwait_isa rules | random [SEEDS] */
#include <stdlib.h>
#include <string.h>

#include "barwait_isa_check.h"

int bwt_failures, bwt_checks;

void bwt_record(void *arg, const struct bwi_event *ev)
{
    struct bwt_log *l = arg;
    if (l->n < BWT_MAXEV)
        l->ev[l->n++] = *ev;
    else
        l->overflow = 1;
}

#define B(x) ((uint64_t)1 << (x))

/* The threads that got an event of this kind for group g, episode ep, since the log was cleared. */
static uint64_t who(const struct bwt_log *l, enum bwi_event_kind k, unsigned g, uint64_t ep, int *nlast)
{
    uint64_t m = 0;
    if (nlast)
        *nlast = 0;
    for (unsigned i = 0; i < l->n; i++)
        if (l->ev[i].kind == k && l->ev[i].group == g && l->ev[i].episode == ep) {
            CHECK(!(m & B(l->ev[i].thread)), "thread %u got two events for group %u ep %llu", l->ev[i].thread, g,
                  (unsigned long long)ep);
            m |= B(l->ev[i].thread);
            if (nlast && l->ev[i].last)
                (*nlast)++;
        }
    return m;
}

static void fresh(struct bwi *b, struct bwt_log *l, unsigned n, unsigned m)
{
    memset(l, 0, sizeof *l);
    if (bwi_init(b, n, m, 1000, bwt_record, l)) {
        fprintf(stderr, "bwi_init failed\n");
        exit(2);
    }
}

/* The call is made once; its status checked. */
#define ST(call, want)                                                                                        \
    do {                                                                                                      \
        enum bwi_status st_ = (call);                                                                         \
        CHECK(st_ == (want), "%s: got %s, want %s", #call, bwi_status_name(st_), bwi_status_name(want));      \
    } while (0)

/* A subset barrier releases exactly its members, only when the last one arrives; S resets for the next. */
static void t_subset(void)
{
    struct bwi b;
    struct bwt_log l;
    unsigned g;
    fresh(&b, &l, 8, 4);
    ST(bwi_create(&b, 0, 0, B(1) | B(3) | B(5), 500, &g), BWI_OK);
    for (uint64_t ep = 0; ep < 3; ep++) {
        l.n = 0;
        ST(bwi_barwait(&b, 10, 5, g), BWI_BLOCKED);
        ST(bwi_barwait(&b, 11, 1, g), BWI_BLOCKED);
        CHECK(l.n == 0, "released before the last member arrived (%u events)", l.n);
        CHECK(bwi_arrived(&b, g) == (B(1) | B(5)), "S holds 1 and 5");
        ST(bwi_barwait(&b, 12, 3, g), BWI_OK);
        int nlast;
        CHECK(who(&l, BWI_EV_RELEASE, g, ep, &nlast) == (B(1) | B(3) | B(5)) && l.n == 3,
              "episode %llu releases exactly {1,3,5}", (unsigned long long)ep);
        CHECK(nlast == 1 && l.ev[1].thread == 3 && l.ev[1].last, "thread 3 is the one last arriver");
        CHECK(bwi_arrived(&b, g) == 0, "S reset to P after completion");
    }
    /* the non-members ran all along: a full-group barrier of the others is unaffected */
    unsigned h;
    ST(bwi_create(&b, 20, 0, B(0) | B(2) | B(4) | B(6) | B(7), 500, &h), BWI_OK);
    l.n = 0;
    ST(bwi_barwait(&b, 21, 1, g), BWI_BLOCKED);
    CHECK(l.n == 0 && bwi_arrived(&b, h) == 0, "an arrival in g touches nothing of h");
    bwi_free(&b);
}

/* Two groups concurrently: overlapping ({0,1,2} and {2,3}) and disjoint ({4,5}). */
static void t_two_groups(void)
{
    struct bwi b;
    struct bwt_log l;
    unsigned A, Bg, C;
    fresh(&b, &l, 6, 4);
    ST(bwi_create(&b, 0, 0, B(0) | B(1) | B(2), 900, &A), BWI_OK);
    ST(bwi_create(&b, 0, 0, B(2) | B(3), 900, &Bg), BWI_OK);
    ST(bwi_create(&b, 0, 0, B(4) | B(5), 900, &C), BWI_OK);
    CHECK(A == 0 && Bg == 1 && C == 2, "lowest free MSR first: %u %u %u", A, Bg, C);
    ST(bwi_barwait(&b, 1, 0, A), BWI_BLOCKED);
    ST(bwi_barwait(&b, 2, 3, Bg), BWI_BLOCKED);
    ST(bwi_barwait(&b, 3, 4, C), BWI_BLOCKED);
    ST(bwi_barwait(&b, 4, 2, Bg), BWI_OK);
    CHECK(who(&l, BWI_EV_RELEASE, Bg, 0, NULL) == (B(2) | B(3)) && l.n == 2, "B releases {2,3} only");
    l.n = 0;
    ST(bwi_barwait(&b, 5, 0, A), BWI_E_BUSY); /* 0 is still blocked in A */
    ST(bwi_barwait(&b, 6, 2, A), BWI_BLOCKED);
    ST(bwi_barwait(&b, 7, 1, A), BWI_OK);
    CHECK(who(&l, BWI_EV_RELEASE, A, 0, NULL) == (B(0) | B(1) | B(2)) && l.n == 3, "A releases {0,1,2} only");
    l.n = 0;
    ST(bwi_barwait(&b, 8, 5, C), BWI_OK);
    CHECK(who(&l, BWI_EV_RELEASE, C, 0, NULL) == (B(4) | B(5)) && l.n == 2, "C releases {4,5} only");
    bwi_free(&b);
}

/* Refusals of barwait and barinit: not in P, no such group, another process's group, user-mode barinit. */
static void t_refused(void)
{
    struct bwi b;
    struct bwt_log l;
    unsigned g, h;
    fresh(&b, &l, 6, 3);
    CHECK(bwi_set_process(&b, 5, 1) == 0, "thread 5 to process 1");
    ST(bwi_create(&b, 0, 0, B(0) | B(1), 500, &g), BWI_OK);
    ST(bwi_barwait(&b, 1, 0, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 2, 4, g), BWI_E_NOTMEMBER);
    CHECK(bwi_arrived(&b, g) == B(0) && l.n == 0, "the refusal leaves S and everyone alone");
    ST(bwi_barwait(&b, 3, 4, 2), BWI_E_NOGROUP);  /* unused MSR */
    ST(bwi_barwait(&b, 3, 4, 3), BWI_E_NOGROUP);  /* index >= m */
    ST(bwi_barwait(&b, 4, 5, g), BWI_E_NOGROUP);  /* process 1 has no group at g */
    ST(bwi_create(&b, 5, 1, B(5), 500, &h), BWI_OK);
    ST(bwi_barwait(&b, 6, 4, h), BWI_E_NOGROUP);  /* process 0 cannot use process 1's group */
    ST(bwi_barwait(&b, 7, 5, h), BWI_OK);         /* a one-thread group completes at once */
    ST(bwi_barinit(&b, 8, 1, g, 0), BWI_E_PRIV);
    ST(bwi_barinit(&b, 8, 4, g, 1), BWI_E_NOTMEMBER);
    ST(bwi_barinit(&b, 8, 0, g, 1), BWI_E_BUSY); /* would cancel 0's recorded arrival */
    ST(bwi_barwait(&b, 9, 1, g), BWI_OK);
    ST(bwi_destroy(&b, 10, 1, g), BWI_E_NOGROUP);
    ST(bwi_destroy(&b, 10, 0, g), BWI_OK);
    ST(bwi_barwait(&b, 11, 0, g), BWI_E_NOGROUP);
    bwi_free(&b);
}

/* A timeout fails every member of the group and only them; then the group is broken (S == P, barwait
 * refused) until every member has executed barinit. Deadline = first arrival of the episode + t. */
static void t_timeout(void)
{
    struct bwi b;
    struct bwt_log l;
    unsigned g, h;
    fresh(&b, &l, 5, 2);
    ST(bwi_create(&b, 0, 0, B(0) | B(1) | B(2), 100, &g), BWI_OK);
    ST(bwi_create(&b, 0, 0, B(3) | B(4), 1000, &h), BWI_OK);
    ST(bwi_barwait(&b, 10, 0, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 10, 3, h), BWI_BLOCKED);
    ST(bwi_barwait(&b, 50, 1, g), BWI_BLOCKED);
    bwi_advance(&b, 109);
    CHECK(l.n == 0, "nothing before the deadline 110");
    bwi_advance(&b, 300);
    CHECK(who(&l, BWI_EV_FAIL, g, 0, NULL) == (B(0) | B(1) | B(2)) && l.n == 3, "every member of g fails, only them");
    for (unsigned i = 0; i < l.n; i++)
        CHECK(l.ev[i].time == 110 && l.ev[i].waiting == (l.ev[i].thread != 2),
              "thread %u: failed at 110 (got %llu), waiting iff it had arrived", l.ev[i].thread,
              (unsigned long long)l.ev[i].time);
    CHECK(bwi_broken(&b, g) && bwi_arrived(&b, g) == 0, "post-state: broken, S == P");
    CHECK(bwi_arrived(&b, h) == B(3) && !bwi_broken(&b, h), "h is untouched");
    ST(bwi_barwait(&b, 301, 2, g), BWI_E_BROKEN);
    ST(bwi_barinit(&b, 302, 0, g, 1), BWI_OK);
    ST(bwi_barinit(&b, 302, 1, g, 1), BWI_OK);
    ST(bwi_barwait(&b, 303, 0, g), BWI_E_BROKEN); /* 2 has not re-initialized */
    ST(bwi_barinit(&b, 304, 2, g, 1), BWI_OK);
    CHECK(!bwi_broken(&b, g), "re-armed once every member executed barinit");
    l.n = 0;
    ST(bwi_barwait(&b, 305, 0, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 404, 1, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 404, 2, g), BWI_OK); /* 1 cycle before 305 + 100 */
    CHECK(who(&l, BWI_EV_RELEASE, g, 1, NULL) == (B(0) | B(1) | B(2)), "episode 1 completes after re-init");
    l.n = 0;
    ST(bwi_barwait(&b, 500, 4, h), BWI_OK); /* h's deadline 1010 was never reached */
    CHECK(who(&l, BWI_EV_RELEASE, h, 0, NULL) == (B(3) | B(4)), "h completes");
    l.n = 0;
    ST(bwi_barwait(&b, 600, 0, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 700, 1, g), BWI_E_BROKEN); /* the deadline 700 is reached first */
    CHECK(who(&l, BWI_EV_FAIL, g, 2, NULL) == (B(0) | B(1) | B(2)), "a deadline equal to now fires first");
    bwi_free(&b);
}

/* Context switches: an arrival survives a switch and counts once; a completion or timeout during the
 * switch is delivered once at resume; a switched-out thread issues nothing and pins its group. */
static void t_switch(void)
{
    struct bwi b;
    struct bwt_log l;
    unsigned g;
    fresh(&b, &l, 4, 2);
    ST(bwi_create(&b, 0, 0, B(0) | B(1) | B(2), 1000, &g), BWI_OK);
    /* (a) switched out and back in before the others arrive: still one arrival */
    ST(bwi_barwait(&b, 1, 0, g), BWI_BLOCKED);
    ST(bwi_deschedule(&b, 2, 0), BWI_OK);
    ST(bwi_barwait(&b, 3, 0, g), BWI_E_BUSY);
    ST(bwi_barinit(&b, 3, 0, g, 1), BWI_E_BUSY);
    ST(bwi_destroy(&b, 3, 0, g), BWI_E_BUSY);
    ST(bwi_barwait(&b, 4, 1, g), BWI_BLOCKED);
    ST(bwi_resume(&b, 5, 0), BWI_OK);
    CHECK(l.n == 0 && bwi_arrived(&b, g) == (B(0) | B(1)), "resumed, waiting again, counted once");
    ST(bwi_barwait(&b, 6, 0, g), BWI_E_BUSY);
    ST(bwi_barwait(&b, 7, 2, g), BWI_OK);
    CHECK(who(&l, BWI_EV_RELEASE, g, 0, NULL) == (B(0) | B(1) | B(2)) && l.n == 3, "episode 0: each once");
    /* (b) the episode completes while 0 is switched out; 0 is released at resume and not counted in 1 */
    l.n = 0;
    ST(bwi_barwait(&b, 10, 0, g), BWI_BLOCKED);
    ST(bwi_deschedule(&b, 11, 0), BWI_OK);
    ST(bwi_barwait(&b, 12, 1, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 13, 2, g), BWI_OK);
    CHECK(who(&l, BWI_EV_RELEASE, g, 1, NULL) == (B(1) | B(2)), "1 and 2 leave; 0 is switched out");
    ST(bwi_barwait(&b, 14, 1, g), BWI_BLOCKED);
    l.n = 0;
    ST(bwi_resume(&b, 15, 0), BWI_OK);
    CHECK(l.n == 1 && l.ev[0].thread == 0 && l.ev[0].kind == BWI_EV_RELEASE && l.ev[0].episode == 1 &&
              l.ev[0].time == 15, "0 released at its resume, for episode 1");
    CHECK(bwi_arrived(&b, g) == B(1), "0 is not counted in episode 2");
    ST(bwi_barwait(&b, 16, 2, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 17, 0, g), BWI_OK);
    /* (c) a timeout while switched out: failure at resume; a switch outside barwait: nothing */
    l.n = 0;
    ST(bwi_barwait(&b, 20, 0, g), BWI_BLOCKED);
    ST(bwi_deschedule(&b, 21, 0), BWI_OK);
    ST(bwi_deschedule(&b, 21, 1), BWI_OK);
    bwi_advance(&b, 1020);
    CHECK(who(&l, BWI_EV_FAIL, g, 3, NULL) == (B(1) | B(2)), "1 and 2 signalled, 0's failure is saved");
    ST(bwi_resume(&b, 1030, 1), BWI_OK);
    ST(bwi_resume(&b, 1030, 0), BWI_OK);
    CHECK(l.n == 3 && l.ev[2].thread == 0 && l.ev[2].kind == BWI_EV_FAIL && l.ev[2].waiting,
          "0's barwait fails at resume, once");
    ST(bwi_resume(&b, 1031, 0), BWI_E_BUSY);
    /* (d) completed while switched out, then the next episode times out before the resume: the saved
     * success stands (released once, for its episode); the timeout is a signal like to any non-waiter */
    for (unsigned i = 0; i < 3; i++)
        ST(bwi_barinit(&b, 1040, i, g, 1), BWI_OK);
    l.n = 0;
    ST(bwi_barwait(&b, 1041, 0, g), BWI_BLOCKED);
    ST(bwi_deschedule(&b, 1042, 0), BWI_OK);
    ST(bwi_barwait(&b, 1043, 1, g), BWI_BLOCKED);
    ST(bwi_barwait(&b, 1044, 2, g), BWI_OK); /* episode 4 completes */
    ST(bwi_barwait(&b, 1045, 1, g), BWI_BLOCKED);
    bwi_advance(&b, 2045); /* episode 5 times out */
    ST(bwi_resume(&b, 2046, 0), BWI_OK);
    CHECK(who(&l, BWI_EV_RELEASE, g, 4, NULL) == (B(0) | B(1) | B(2)), "episode 4: all three released");
    CHECK(who(&l, BWI_EV_FAIL, g, 5, NULL) == (B(0) | B(1) | B(2)), "episode 5: all three failed");
    CHECK(l.n == 6 && l.ev[5].kind == BWI_EV_RELEASE && l.ev[5].thread == 0, "0's release comes at resume");
    bwi_free(&b);
}

/* The kernel's vetting of create_barrier: timeout, mask, process, capacity m. */
static void t_vetting(void)
{
    struct bwi b;
    struct bwt_log l;
    unsigned g, h;
    fresh(&b, &l, 8, 2);
    ST(bwi_create(&b, 0, 0, B(0), 0, &g), BWI_E_TIMEOUT);
    ST(bwi_create(&b, 0, 0, B(0), 1001, &g), BWI_E_TIMEOUT);
    ST(bwi_create(&b, 0, 0, 0, 10, &g), BWI_E_MASK);
    ST(bwi_create(&b, 0, 0, B(8), 10, &g), BWI_E_MASK);
    CHECK(bwi_set_process(&b, 7, 1) == 0, "thread 7 to process 1");
    ST(bwi_create(&b, 0, 0, B(6) | B(7), 10, &g), BWI_E_MASK);
    ST(bwi_create(&b, 0, 0, B(0) | B(6), 1000, &g), BWI_OK);
    ST(bwi_create(&b, 0, 1, B(7), 10, &h), BWI_OK);
    CHECK(bwi_set_process(&b, 7, 0) == -1, "a thread named by a group stays in its process");
    ST(bwi_create(&b, 0, 0, B(1), 10, &h), BWI_E_NOSPACE);
    ST(bwi_destroy(&b, 1, 1, 1), BWI_OK);
    ST(bwi_create(&b, 2, 0, B(1), 10, &h), BWI_OK);
    CHECK(h == 1, "the freed MSR is reused");
    bwi_free(&b);
    /* 000 §4.2's example: n = 28 x 2 + 3 = 59 (000 §4.1's rule), 128 groups */
    fresh(&b, &l, 59, BWI_M_EXAMPLE);
    unsigned k = 0;
    while (bwi_create(&b, 0, 0, (uint64_t)1 << (k % 59), 10, &g) == BWI_OK)
        k++;
    CHECK(k == 128, "128 groups fit, got %u", k);
    ST(bwi_create(&b, 0, 0, B(58), 10, &g), BWI_E_NOSPACE);
    bwi_free(&b);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "rules";
    if (!strcmp(what, "rules")) {
        t_subset();
        t_two_groups();
        t_refused();
        t_timeout();
        t_switch();
        t_vetting();
    } else if (!strcmp(what, "random")) {
        bwt_random(argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 500);
    } else {
        fprintf(stderr, "usage: test_barwait_isa rules | random [SEEDS]\n");
        return 2;
    }
    printf("%s: %d checks, %d failures\n", what, bwt_checks, bwt_failures);
    return bwt_failures ? 1 : 0;
}
