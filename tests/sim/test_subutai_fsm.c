/* test_subutai_fsm.c — sim/hw/subutai_fsm.c against 004 Tables III and IV (seed 004_bffc6c40a88a61a2).
 *
 *   test_subutai_fsm table    drive the FSM into each state's best and worst case and print, per row, 004's
 *                             figure next to the model's: Table IV (c = 1, m = 2 ns, n = 4, rho = 63,
 *                             FSMentry = 4, FSMexit = 1 ns) as printed and as Table III's formula, and Table
 *                             III's formula for a second parameter set. A row must equal 004's figure, or, for
 *                             the three rows listed in `dev` (docs/sim-hw.md says why), the model's own formula.
 *                             Also: noc64.json's devices.subutai_ni are Table IV's values; the defined error
 *                             answers (status, in or before the FSM, cost). The injection times beside Table IV's:
 *                             andgate-subutai-table (sim/subutai_table.c), which drives the same cases.
 *   test_subutai_fsm random N N random schedules against a reference (subutai_fsm_random.c)
 *   test_subutai_fsm broken   each deliberate breakage (SUF_BRK_*) must make the random schedules fail
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subutai_cases.h"
#include "machine.h"

int suf_random(unsigned seeds, unsigned brk, int verbose);

struct pset {
    const char *name;
    double c, m, entry, exit;
    unsigned n, rho;
};

static const struct pset PA = {"Table IV", 1, 2, 4, 1, 4, 63};
static const struct pset PB = {"second set", 0.8, 3, 2.5, 1.5, 4, 20};

static int fails;

static void fresh(struct suf *s, const struct pset *p)
{
    struct suf_params pp = {p->c, p->m, p->entry, p->exit};
    suf_init(s, &pp, SUF_NENT);
}

static unsigned mk(struct suf *s, enum suf_kind k, unsigned max)
{
    unsigned id = suf_mk(s, k, max);
    if (id == SUF_NCTRL) {
        printf("FAIL: allocation refused\n");
        fails++;
    }
    return id;
}

static const struct suf_paper_params *pparams(const struct pset *p)
{
    static struct suf_paper_params pp;
    pp = (struct suf_paper_params){{p->c, p->m, p->entry, p->exit}, p->n, p->rho};
    return &pp;
}

/* The request of each row's case (worst = 1, best = 0): sim/hw/subutai_cases.c, shared with the table tool. */
static struct suf_res scenario(int row, int worst, const struct pset *p)
{
    struct suf_res r;
    if (suf_case(row, worst, pparams(p), &r)) {
        printf("FAIL: %s %s: the setup was refused\n", suf_paper[row].state, worst ? "worst" : "best");
        fails++;
    }
    return r;
}

/* 004 Table III (rows 0-7, best and worst) at a parameter set, without FSMentry/FSMexit (sim/hw/subutai_paper.c).
 */
static double paper(int row, int worst, const struct pset *p)
{
    return suf_formula_ns(&suf_paper[row].resp[worst], pparams(p));
}

/* The model's own formula where it departs from 004 (row, worst), docs/sim-hw.md. */
static double dev(int row, int worst, const struct pset *p, const char **why)
{
    double c = p->c, m = p->m;
    if (worst && row == 4) {
        *why = "last released thread has no next entry: 9m + 3c";
        return paper(row, worst, p) - 2 * m;
    }
    if (worst && row == 6) {
        *why = "reconstructed: grant the head, rest becomes the mutex queue";
        return 12 * m + c;
    }
    if (worst && row == 7) {
        *why = "reconstructed: dequeue + grant or requeue";
        return 11 * m + c;
    }
    *why = NULL;
    return NAN;
}

static void check_row(int row, int worst, const struct pset *p, int table4)
{
    struct suf_res r = scenario(row, worst, p);
    const char *why;
    double fix = p->entry + p->exit, want = paper(row, worst, p) + fix, d = dev(row, worst, p, &why);
    double printed = table4 ? suf_paper[row].table4[worst] : want;
    /* Table III's formula must give Table IV's printed figure; the model must give the formula (or its own) */
    int ok = fabs(printed - want) < 1e-9 && fabs(r.t - (why ? d + fix : want)) < 1e-9;
    printf("  %-20s %-5s  004 %8.2f ns%s  model %8.2f ns (%3u m + %3u c)  %s%s\n", suf_paper[row].state,
           worst ? "worst" : "best", want, table4 ? (fabs(printed - want) < 1e-9 ? " (=IV)" : " (!IV)") : "", r.t,
           r.mops, r.cyc, ok ? (why ? "DEVIATES as documented: " : "match") : "FAIL", why ? why : "");
    if (!ok)
        fails++;
}

/* Barrier release packets: 004 Table IV's 7, 32, 57 ns = FSMentry + (m + c) + k (11m + 3c). */
static void check_packets(const struct pset *p)
{
    struct suf_res r = scenario(4, 1, p);
    printf("  Barrier Wait packets:");
    for (unsigned k = 0; k < 3 && k < r.npkt; k++) {
        double want = p->entry + (p->m + p->c) + k * (11 * p->m + 3 * p->c);
        printf(" %g (004 %g)", r.pkt[k].at, want);
        if (fabs(r.pkt[k].at - want) > 1e-9)
            fails++;
    }
    printf(", %u packets for rho = %u\n", r.npkt, p->rho);
    if (r.npkt != p->rho + 1)
        fails++;
}

static void expect(const char *what, struct suf_res r, enum suf_status st, int fsm, double t)
{
    int ok = r.st == st && r.fsm == fsm && fabs(r.t - t) < 1e-9;
    printf("  error %-44s status %d, %s, %5.1f ns  %s\n", what, r.st, r.fsm ? "in the FSM" : "before the FSM", r.t,
           ok ? "ok" : "FAIL");
    if (!ok)
        fails++;
}

/* The defined error answers (subutai_fsm.h; docs/sim-hw.md), Table IV's parameters. */
static void check_errors(void)
{
    static struct suf s;
    const struct pset *p = &PA;
    double fix = p->entry + p->exit;
    fresh(&s, p);
    unsigned mx = mk(&s, SUF_MUTEX, 0), cv = mk(&s, SUF_COND, 0), m2 = mk(&s, SUF_MUTEX, 0);
    mk(&s, SUF_BARRIER, 2);
    expect("5th allocation (n = 4): SW-only fallback", suf_go(&s, SUF_ALLOC, 0, 1, 0), SUF_ENOSPC, 1,
           4 * p->m + p->c + fix);
    expect("unlock of a free mutex", suf_go(&s, SUF_UNLOCK, mx, 1, 0), SUF_EPERM, 0, 0);
    suf_go(&s, SUF_LOCK, mx, 1, 0);
    expect("unlock by a non-owner", suf_go(&s, SUF_UNLOCK, mx, 2, 0), SUF_EPERM, 0, 0);
    expect("lock by the owner", suf_go(&s, SUF_LOCK, mx, 1, 0), SUF_EDEADLK, 1, p->m + p->c + fix);
    expect("cond wait without the mutex", suf_go(&s, SUF_COND_WAIT, cv, 2, mx), SUF_EPERM, 0, 0);
    expect("unknown id", suf_go(&s, SUF_LOCK, 7, 1, 0), SUF_EINVAL, 0, 0);
    expect("barrier wait on a mutex", suf_go(&s, SUF_BARRIER_WAIT, mx, 1, 0), SUF_EINVAL, 0, 0);
    expect("dealloc of a locked mutex", suf_go(&s, SUF_DEALLOC, mx, 1, 0), SUF_EBUSY, 0, 0);
    suf_go(&s, SUF_COND_WAIT, cv, 1, mx);
    suf_go(&s, SUF_LOCK, m2, 3, 0);
    expect("cond wait with a second mutex", suf_go(&s, SUF_COND_WAIT, cv, 3, m2), SUF_EINVAL, 0, 0);
    fresh(&s, p);
    unsigned b = mk(&s, SUF_BARRIER, 3), f = suf_fill(&s, 0);
    expect("lock of an owned mutex, no free entry", suf_go(&s, SUF_LOCK, f, 5, 0), SUF_EAGAIN, 1,
           p->m + p->c + fix);
    expect("barrier wait, no free entry", suf_go(&s, SUF_BARRIER_WAIT, b, 5, 0), SUF_EAGAIN, 1, p->m + p->c + fix);
}

/* Table IV's parameters are the machine file's (noc64.json, devices.subutai_ni, sourced to 004). */
static void check_machine(void)
{
    struct sim_machine m;
    struct suf_params p;
    char err[512];
    if (sim_machine_load(AG_TEST_MACHINES "/noc64.json", &m, err, sizeof err) ||
        suf_params_load(&m, &p, err, sizeof err)) {
        printf("FAIL: noc64: %s\n", err);
        fails++;
        return;
    }
    int ok = p.c == PA.c && p.m == PA.m && p.entry == PA.entry && p.exit == PA.exit;
    printf("noc64.json devices.subutai_ni: c = %g, m = %g, FSMentry = %g, FSMexit = %g ns: %s\n", p.c, p.m,
           p.entry, p.exit, ok ? "Table IV's" : "FAIL, not Table IV's");
    fails += !ok;
    sim_machine_free(&m);
}

/* Cases between best and worst, with the access counts docs/sim-hw.md states (Table IV's parameters). */
static void check_between(void)
{
    static struct suf s;
    const struct pset *p = &PA;
    struct {
        const char *what;
        struct suf_res r;
        unsigned mops, cyc;
    } c[5];
    fresh(&s, p);
    unsigned mx = mk(&s, SUF_MUTEX, 0), b = mk(&s, SUF_BARRIER, 4);
    suf_go(&s, SUF_LOCK, mx, 1, 0);
    c[0].r = suf_go(&s, SUF_LOCK, mx, 2, 0), c[0].what = "lock queued, empty queue", c[0].mops = 9, c[0].cyc = 0;
    c[1].r = suf_go(&s, SUF_UNLOCK, mx, 1, 0);
    c[1].what = "unlock to the only waiter", c[1].mops = 8, c[1].cyc = 1;
    c[2].r = suf_go(&s, SUF_BARRIER_WAIT, b, 1, 0);
    c[2].what = "barrier 1st arrival", c[2].mops = 10, c[2].cyc = 0;
    c[3].r = suf_go(&s, SUF_BARRIER_WAIT, b, 2, 0);
    c[3].what = "barrier 2nd arrival", c[3].mops = 12, c[3].cyc = 0;
    suf_go(&s, SUF_BARRIER_WAIT, b, 3, 0);
    c[4].r = suf_go(&s, SUF_BARRIER_WAIT, b, 4, 0), c[4].what = "barrier last of 4 (3 queued)";
    c[4].mops = 1 + 2 * 11 + 9, c[4].cyc = 1 + 3 * 3;
    for (int i = 0; i < 5; i++) {
        double t = p->entry + c[i].mops * p->m + c[i].cyc * p->c + p->exit;
        int ok = c[i].r.mops == c[i].mops && c[i].r.cyc == c[i].cyc && fabs(c[i].r.t - t) < 1e-9;
        printf("  between %-30s model %6.1f ns (%2u m + %2u c)  %s\n", c[i].what, c[i].r.t, c[i].r.mops,
               c[i].r.cyc, ok ? "ok" : "FAIL");
        fails += !ok;
    }
}

static int table(void)
{
    check_machine();
    const struct pset *ps[] = {&PA, &PB};
    for (int k = 0; k < 2; k++) {
        const struct pset *p = ps[k];
        printf("%s: c = %g, m = %g, n = %u, rho = %u, FSMentry = %g, FSMexit = %g ns\n", p->name, p->c, p->m, p->n,
               p->rho, p->entry, p->exit);
        for (int row = 0; row < 8; row++)
            for (int w = 0; w < 2; w++)
                check_row(row, w, p, k == 0);
        check_packets(p);
    }
    check_between();
    check_errors();
    printf("%s\n", fails ? "FAIL" : "ok");
    return fails != 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "table"))
        return table();
    if (argc >= 2 && !strcmp(argv[1], "random"))
        return suf_random(argc >= 3 ? (unsigned)atoi(argv[2]) : 200, SUF_BRK_NONE, 1) != 0;
    if (argc >= 2 && !strcmp(argv[1], "broken")) {
        static const char *const nm[] = {"", "LIFO hand-off", "leaked entry", "barrier releases early"};
        int bad = 0;
        for (unsigned b = SUF_BRK_LIFO; b <= SUF_BRK_BARRIER_EARLY; b++) {
            int caught = suf_random(200, b, 0) != 0;
            printf("breakage %-24s %s\n", nm[b], caught ? "caught" : "NOT CAUGHT");
            bad += !caught;
        }
        return bad != 0;
    }
    fprintf(stderr, "usage: test_subutai_fsm table | random N | broken\n");
    return 2;
}
