/* andgate-subutai-table — every row of 004's Tables III and IV (seed 004_bffc6c40a88a61a2, §V-B) beside
 * Subutai-HW's FSM model (sim/hw/subutai_fsm.c), as Markdown: each state's best and worst response time and
 * its packet injection, the paper's value, the model's, their ratio and whether they agree. The paper's
 * figures are sim/hw/subutai_paper.c's; the cases are driven by sim/hw/subutai_cases.c (the FSM's tests use
 * both). Run by scripts/sim_experiment.sh 004-fsm; docs/sim-hw.md explains each disagreement.
 *
 * Usage: andgate-subutai-table [MACHINE]   (a machine name or file with devices.subutai_ni; default noc64)
 * The FSM's c, m, FSMentry, FSMexit come from the machine (suf_params_load); n = 4 primitives and rho = 63
 * threads are Table IV's. Exit 0 when printed, 1 when the machine is refused, 2 for a bad command line.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "subutai_cases.h"

#define PROG "andgate-subutai-table"

static const char *const CASE[2] = {"best", "worst"};

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* Response times: Table III's formula at these values (+ FSMentry + FSMexit, as Table IV counts), Table IV as
 * printed, the model's counted latency. The model is compared with Table III at the machine's values, which at
 * Table IV's values must also be Table IV's printed figure. */
static int response_rows(const struct suf_paper_params *pp, int is_iv)
{
    int agree = 0;
    printf("| state | case | 004 Table III | Table III at these values, ns | 004 Table IV, ns | model, ns "
           "| model: accesses, cycles | model / 004 | agrees |\n|---|---|---|---:|---:|---:|---|---:|---|\n");
    for (int row = 0; row < SUF_PAPER_ROWS; row++)
        for (int w = 0; w < 2; w++) {
            const struct suf_paper_row *r = &suf_paper[row];
            struct suf_res x;
            double want = suf_formula_ns(&r->resp[w], pp) + pp->p.entry + pp->p.exit;
            if (suf_case(row, w, pp, &x))
                return -1;
            int ok = same(x.t, want);
            agree += ok;
            const char *odd = is_iv && !same(want, r->table4[w]) ? " (not Table III's)" : "";
            printf("| %s | %s | %s | %g | %g%s | %g | %um + %uc | %.3f | %s |\n", r->state, CASE[w],
                   r->resp[w].text, want, r->table4[w], odd, x.t, x.mops, x.cyc, x.t / want,
                   ok ? "yes" : "**no**");
        }
    return agree;
}

/* "7, 32, 57" or "None": the first k packet times of a case. */
static void times(char *buf, size_t len, const double *at, unsigned k)
{
    size_t o = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < k && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%g", i ? ", " : "", at[i]);
    if (!k)
        snprintf(buf, len, "None");
}

/* Packet injection: Table IV's best and worst cells beside the model's first packets in the same cases
 * (Table III's one formula per row, + FSMentry, is printed for reference: it matches IV only in some cells). */
static int inject_rows(const struct suf_paper_params *pp)
{
    int agree = 0;
    printf("| state | case | 004 Table III | Table III + FSMentry, ns | 004 Table IV, ns | model, ns "
           "| model / 004 | agrees |\n|---|---|---|---:|---|---|---:|---|\n");
    for (int row = 0; row < SUF_PAPER_ROWS; row++)
        for (int w = 0; w < 2; w++) {
            const struct suf_paper_row *r = &suf_paper[row];
            const struct suf_inject *iv = &r->inject4[w];
            struct suf_res x;
            double f = suf_formula_ns(&r->inject, pp) + pp->p.entry, mt[3];
            if (suf_case(row, w, pp, &x))
                return -1;
            /* the model's first packets, as many as IV lists (one when IV says None); agree: both send or
             * neither does, and every listed time is the model's */
            unsigned k = iv->n ? (x.npkt < iv->n ? x.npkt : iv->n) : (x.npkt ? 1 : 0);
            unsigned ok = x.npkt ? iv->n > 0 : !iv->n;
            for (unsigned i = 0; i < k; i++) {
                mt[i] = x.pkt[i].at;
                ok = ok && (i >= iv->n || same(mt[i], iv->at[i]));
            }
            char a[64], b[64], fs[32];
            times(a, sizeof a, iv->at, iv->n);
            times(b, sizeof b, mt, k);
            snprintf(fs, sizeof fs, isnan(f) ? "-" : "%g", f);
            char ratio[32] = "-";
            if (iv->n && k)
                snprintf(ratio, sizeof ratio, "%.3f", mt[0] / iv->at[0]);
            agree += (int)ok;
            printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r->state, CASE[w], r->inject.text, fs, a, b,
                   ratio, ok ? "yes" : "**no**");
        }
    return agree;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && (!argv[1][0] || argv[1][0] == '-'))) {
        fprintf(stderr, "usage: %s [MACHINE]   (a machine with devices.subutai_ni; default noc64)\n", PROG);
        return 2;
    }
    struct sim_machine m;
    struct suf_paper_params pp = suf_paper_table4;
    char err[600];
    const char *name = argc == 2 ? argv[1] : "noc64";
    if (sim_machine_load(name, &m, err, sizeof err) || suf_params_load(&m, &pp.p, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 1;
    }
    const struct suf_params *t4 = &suf_paper_table4.p;
    int is_iv = pp.p.c == t4->c && pp.p.m == t4->m && pp.p.entry == t4->entry && pp.p.exit == t4->exit;
    printf("004 Tables III-IV beside Subutai-HW's FSM model on %s: c = %g, m = %g, FSMentry = %g, FSMexit = %g ns "
           "(%s), n = %u primitives, rho = %u threads on the barrier (Table IV's caption).\n\n",
           m.name, pp.p.c, pp.p.m, pp.p.entry, pp.p.exit, is_iv ? "Table IV's values" : "not Table IV's values",
           pp.n, pp.rho);
    sim_machine_free(&m);
    printf("Response time (FSMentry + FSMexit included, as in Table IV):\n\n");
    int a = response_rows(&pp, is_iv);
    printf("\nPacket injection (from the request's arrival at the FSM; Barrier Wait: the first three "
           "packets):\n\n");
    int b = a < 0 ? -1 : inject_rows(&pp);
    if (a < 0 || b < 0) {
        fprintf(stderr, "%s: a case's setup was refused by the FSM\n", PROG);
        return 1;
    }
    printf("\nagree: response time %d of %d, packet injection %d of %d (docs/sim-hw.md explains each "
           "disagreement)\n", a, 2 * SUF_PAPER_ROWS, b, 2 * SUF_PAPER_ROWS);
    return 0;
}
