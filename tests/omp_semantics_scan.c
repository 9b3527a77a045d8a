/* omp_semantics_scan.c — the OpenMP semantics test's case of constructs whose runtime calls carry data
 * between the team's threads around a barrier: `scan` (OpenMP 5.0 §2.11.8; gcc builds a scan loop with
 * GOMP_loop_start, whose `mem` argument is the team's buffer of per-thread partial sums, and a barrier
 * between its two phases), `copyin` of a threadprivate variable at a region's start, gcc's
 * `lastprivate(conditional:)` (OpenMP 5.0 §2.19.4.5; an atomic compare of the iteration numbers, then the
 * loop's barrier), task reductions of a worksharing loop and of `sections` (§2.19.5.5: the tasks' shares
 * are combined at the construct's end; gcc: GOMP_loop_start and GOMP_sections2_start with the reductions)
 * and `ordered` blocks of a dynamic loop. omp_semantics.c has the framework, the method and main. */
#include "omp_semantics.h"

enum { SR = 2 * RR, NS = 3 * NI + 5 }; /* rounds; a length no team size divides evenly */
static int in[NS], incl[NS], excl[NS];
static int tp = -1;
PRAGMA(omp threadprivate(tp))

/* the element values of round r: small, varied, and different every round */
static int elem(int r, int i) { return (i * 7 + r * 3) % 11 - 4; }

/* every prefix of round r as the sequential loop gives it: 0, or the first wrong one + 1 */
static int prefixes_wrong(int r)
{
    for (int i = 0, want = 0; i < NS; i++) {
        if (excl[i] != want)
            return i + 1;
        want += elem(r, i);
        if (incl[i] != want)
            return i + 1;
    }
    return 0;
}

/* both scans of round r as combined `parallel for` regions, from the initial thread (local variables:
 * clang 14 gets a scan of a file-scope variable wrong without the shim too) */
static void combined_scans(int r)
{
    for (int i = 0; i < NS; i++)
        in[i] = elem(r, i);
    int s = 0, e = 0;
    PRAGMA(omp parallel for reduction(inscan, + : s))
    for (int i = 0; i < NS; i++) {
        s += in[i];
        PRAGMA(omp scan inclusive(s))
        incl[i] = s;
    }
    PRAGMA(omp parallel for reduction(inscan, + : e))
    for (int i = 0; i < NS; i++) {
        excl[i] = e;
        PRAGMA(omp scan exclusive(e))
        e += in[i];
    }
    int bad = prefixes_wrong(r);
    EXPECT(!bad, "combined scans, round %d: prefix %d is %d inclusive, %d exclusive", r, bad - 1,
           bad ? incl[bad - 1] : 0, bad ? excl[bad - 1] : 0);
}

#if !defined(__clang__)
/* the same scans as orphaned loops in the running team, read by every thread after each loop's
 * barrier. Not with clang 14, which gets them wrong without the shim too (an orphaned scan's prefixes
 * are all 0, an in-region one's last is garbage, with one thread as with two). The variables are shared,
 * as the clauses of an orphaned loop need. */
static int sc_s, sc_e;

static void team_scans(int r)
{
    PRAGMA(omp single)
    sc_s = sc_e = 0;
    PRAGMA(omp for reduction(inscan, + : sc_s))
    for (int i = 0; i < NS; i++) {
        sc_s += in[i];
        PRAGMA(omp scan inclusive(sc_s))
        incl[i] = sc_s;
    }
    PRAGMA(omp for reduction(inscan, + : sc_e))
    for (int i = 0; i < NS; i++) {
        excl[i] = sc_e;
        PRAGMA(omp scan exclusive(sc_e))
        sc_e += in[i];
    }
    int bad = prefixes_wrong(r);
    EXPECT(!bad, "team scans, round %d, thread %d: prefix %d is %d inclusive, %d exclusive", r,
           omp_get_thread_num(), bad - 1, bad ? incl[bad - 1] : 0, bad ? excl[bad - 1] : 0);
}

/* lastprivate(conditional:) of the three schedules: the value of the sequentially last iteration that
 * assigned it. Not with clang 14, whose C front end emits no code for the modifier (a plain lastprivate
 * results; llvm-project pull request 156004, 2025) */
static int lp_a, lp_b, lp_c;

static void conditional(int r)
{
    int want = -1;
    for (int i = 0; i < NS; i++)
        if (elem(r, i) == 2)
            want = i;
    PRAGMA(omp single)
    lp_a = lp_b = lp_c = -1;
    PRAGMA(omp for schedule(static) lastprivate(conditional : lp_a))
    for (int i = 0; i < NS; i++)
        if (in[i] == 2)
            lp_a = i;
    PRAGMA(omp for schedule(dynamic, 3) lastprivate(conditional : lp_b))
    for (int i = 0; i < NS; i++)
        if (in[i] == 2)
            lp_b = i;
    PRAGMA(omp for schedule(guided) lastprivate(conditional : lp_c))
    for (int i = 0; i < NS; i++)
        if (in[i] == 2)
            lp_c = i;
    EXPECT(lp_a == want && lp_b == want && lp_c == want, "lastprivate(conditional), round %d: static %d, "
           "dynamic %d, guided %d, not %d", r, lp_a, lp_b, lp_c, want);
}
#define GCC_ONLY "; team scans, conditional lastprivate 3 schedules"
#else
static void team_scans(int r) { (void)r; }
static void conditional(int r) { (void)r; }
#define GCC_ONLY "; not with clang 14: team scans, conditional lastprivate"
#endif

/* task reductions: one task per iteration (or section) adds its part; the construct's value, read by
 * every thread after its barrier, is the whole sum. Then an `ordered` block in each iteration of a
 * dynamic loop: the blocks run in the iterations' order. */
static int tr_loop, tr_secs, ord_next, ord_bad;

static void task_reductions(int r)
{
    PRAGMA(omp single)
    tr_loop = tr_secs = ord_next = ord_bad = 0;
    PRAGMA(omp for schedule(dynamic, 2) reduction(task, + : tr_loop))
    for (int i = 0; i < NS; i++)
        PRAGMA(omp task in_reduction(+ : tr_loop))
        tr_loop += in[i];
    PRAGMA(omp sections reduction(task, + : tr_secs))
    {
        PRAGMA(omp section)
        PRAGMA(omp task in_reduction(+ : tr_secs))
        tr_secs += 1;
        PRAGMA(omp section)
        PRAGMA(omp task in_reduction(+ : tr_secs))
        tr_secs += 10 * r;
    }
    PRAGMA(omp for ordered schedule(dynamic, 3))
    for (int i = 0; i < NS; i++) {
        busy(i);
        PRAGMA(omp ordered)
        {
            ord_bad += ord_next != i;
            ord_next = i + 1;
        }
    }
    int want = 0;
    for (int i = 0; i < NS; i++)
        want += elem(r, i);
    EXPECT(tr_loop == want && tr_secs == 1 + 10 * r && ord_next == NS && !ord_bad,
           "task reductions, round %d: loop %d (not %d), sections %d, ordered %d of %d out of order", r,
           tr_loop, want, tr_secs, ord_bad, NS);
}

int case_scan(void)
{
    for (int r = 0; r < SR; r++) {
        combined_scans(r);
        tp = 5 * r + 1;
        PRAGMA(omp parallel copyin(tp) num_threads(r % 3 ? omp_get_max_threads() : 3))
        {
            EXPECT(tp == 5 * r + 1, "copyin, round %d: thread %d has %d", r, omp_get_thread_num(), tp);
            tp = -omp_get_thread_num(); /* the master's copy, the next round's source, is set again there */
            team_scans(r);
            conditional(r);
            task_reductions(r);
        }
    }
    return report("scan", "rounds %d length %d combined inclusive and exclusive scans, copyin, "
                          "task reductions of for and sections, ordered" GCC_ONLY, SR, NS);
}
