/* omp_semantics.c — OpenMP construct semantics, self-checked, for runs with and without
 * libandgate-preload.so (tests/omp_semantics.sh); the framework, the worksharing cases and main here,
 * the tasking and team-shape cases in omp_semantics_tasks.c, host targets in omp_semantics_target.c,
 * doacross loops in omp_semantics_doacross.c, scans, copyin and conditional lastprivate in
 * omp_semantics_scan.c (omp_semantics.h between them). Built with gcc -fopenmp
 * (libgomp) and clang -fopenmp=libomp. Usage: omp_semantics [CASE...] (no CASE: every case, in order;
 * --list: the names).
 *
 * Each case prints `case NAME ok SUMMARY`, where SUMMARY depends only on what the case fixes (never on
 * timing or OMP_NUM_THREADS), or `case NAME FAIL WHY`; the exit status is 1 if any case failed.
 * The barrier check: before barrier p every thread stamps its slot of the team's board with p (two
 * banks, p & 1, so a fast thread's next stamp cannot hide a slow one's); after the barrier each thread
 * reads every slot of its team and must find p: a thread let through early finds a slot still behind.
 * Worksharing and tasks the same way: what any thread wrote inside the construct (or a task), every
 * thread must read after the (implicit or explicit) barrier; every iteration, section, single body and
 * taskloop iteration runs exactly once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_semantics.h"

/* ---- the first failure's text and the number of failed checks, per case ---- */
static atomic_long nfail;
static char why[240];

void fail(const char *fmt, ...)
{
    if (atomic_fetch_add(&nfail, 1) != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
}

int report(const char *name, const char *fmt, ...)
{
    long n = atomic_exchange(&nfail, 0);
    va_list ap;
    va_start(ap, fmt);
    printf("case %s %s ", name, n ? "FAIL" : "ok");
    if (n)
        printf("%s (%ld failed checks)", why, n);
    else
        vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return n != 0;
}

/* a[i] == base + i for i < n: what the construct's threads or tasks wrote, read after the barrier */
void expect_seq(atomic_int *a, int n, int base, const char *what, int r)
{
    for (int i = 0, v; i < n; i++)
        if ((v = LD(a[i])) != base + i)
            fail("%s, round %d: thread %d read item %d unwritten after the barrier (%d, not %d)", what, r,
                 omp_get_thread_num(), i, v, base + i);
}

/* c[i] == want for i < n: each body ran exactly once per round */
void expect_count(atomic_int *c, int n, int want, const char *what)
{
    for (int i = 0, v; i < n; i++)
        if ((v = LD(c[i])) != want)
            fail("%s: item %d ran %d times, not %d", what, i, v, want);
}

/* ---- the barrier board of one team (omp_semantics.h) ---- */
void board_reset(struct board *b, const char *what)
{
    b->what = what;
    for (int t = 0; t < 2 * MAXT; t++)
        atomic_store(&b->slot[t / MAXT][t % MAXT], -1);
}

void check(struct board *b, int t, int n, int p)
{
    for (int u = 0, v; u < n; u++)
        if ((v = LD(b->slot[p & 1][u])) != p)
            fail("%s (team of %d): thread %d left barrier %d while thread %d was at phase %d", b->what, n, t, p, u, v);
}

int team_size(int want, const char *what)
{
    int n = omp_get_num_threads();
    EXPECT(!want || n == want, "%s: team of %d threads where %d were asked for", what, n, want);
    return n;
}

void phases(struct board *b, int np)
{
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    for (int p = 0; p < np; p++)
        PHASE(b, t, n, p);
}

/* a region of n threads (the num_threads clause) doing np barriers */
void team(struct board *b, const char *what, int n, int np)
{
    board_reset(b, what);
    PRAGMA(omp parallel num_threads(n))
    {
        team_size(n, what);
        phases(b, np);
    }
}

/* ---- barrier: explicit barriers, teams of 3, 5 and the default size, two regions each ---- */
static struct board B1;

static int case_barrier(void)
{
    int sizes[] = { 3, 5, omp_get_max_threads() };
    for (int k = 0; k < 6; k++)
        team(&B1, "barrier", sizes[k / 2], 2 * PH);
    return report("barrier", "teams 3,5,default regions 2 phases %d", 2 * PH);
}

/* ---- loops: static, dynamic, guided, runtime, each with and without nowait; unsigned long long ---- */
atomic_int hit[NI], val[2][NI];

void loop_body(int s, int i)
{
    busy(i);
    atomic_fetch_add(&hit[i], 1);
    atomic_store(&val[s & 1][i], s * NI + i);
}

static int case_loops(void)
{
    memset(hit, 0, sizeof hit);
    memset(val, 0xff, sizeof val);
    omp_set_schedule(omp_sched_dynamic, 2);
    PRAGMA(omp parallel)
    {
        int s = 0;
        for (int r = 0; r < RR; r++) {
            WS_LOOP(s, "static loop", schedule(static));
            WS_LOOP_NOWAIT(s, "static nowait loop", schedule(static));
            WS_LOOP(s, "dynamic loop", schedule(dynamic, 3));
            WS_LOOP_NOWAIT(s, "dynamic nowait loop", schedule(dynamic, 3));
            WS_LOOP(s, "guided loop", schedule(guided));
            WS_LOOP_NOWAIT(s, "guided nowait loop", schedule(guided));
            WS_LOOP(s, "runtime loop", schedule(runtime));
            WS_LOOP_NOWAIT(s, "runtime nowait loop", schedule(runtime));
            PRAGMA(omp for schedule(dynamic, 5))
            for (unsigned long long u = 0; u < NI; u++)
                loop_body(s, (int)u);
            LOOP_CHECK(s, "unsigned long long dynamic loop");
        }
    }
    expect_count(hit, NI, RR * 9, "loop iterations");
    return report("loops", "rounds %d loops 9 iterations %d each once", RR, NI);
}

/* ---- single: one executor each; implicit barrier, nowait + barrier, copyprivate ---- */
static atomic_int singles[3], sdata[2];

static int case_single(void)
{
    memset(singles, 0, sizeof singles);
    PRAGMA(omp parallel)
    for (int r = 0; r < 2 * RR; r++) {
        PRAGMA(omp single)
        { busy(r); atomic_fetch_add(&singles[0], 1); atomic_store(&sdata[0], r); }
        int d = LD(sdata[0]), c = LD(singles[0]);
        EXPECT(d == r && c == r + 1, "single, round %d: after its barrier data %d, %d runs", r, d, c);
        PRAGMA(omp single nowait)
        { busy(r); atomic_fetch_add(&singles[1], 1); atomic_store(&sdata[1], 3 * r); }
        PRAGMA(omp barrier)
        d = LD(sdata[1]), c = LD(singles[1]);
        EXPECT(d == 3 * r && c == r + 1, "single nowait, round %d: after the barrier data %d, %d runs", r, d, c);
        int x = -1;
        PRAGMA(omp single copyprivate(x))
        { atomic_fetch_add(&singles[2], 1); x = 7 * r + 1; }
        EXPECT(x == 7 * r + 1, "single copyprivate, round %d: thread %d got %d", r, omp_get_thread_num(), x);
    }
    expect_count(singles, 3, 2 * RR, "single bodies");
    return report("single", "rounds %d singles 3 each once", 2 * RR);
}

/* ---- sections: each section once, results visible after the implicit / explicit barrier ---- */
static atomic_int secs[7], sv[2][7];

static void section(int k, int r)
{
    busy(k);
    atomic_fetch_add(&secs[k], 1);
    atomic_store(&sv[r & 1][k], 10 * r + k);
}

static int case_sections(void)
{
    memset(secs, 0, sizeof secs);
    PRAGMA(omp parallel)
    for (int r = 0; r < 2 * RR; r++) {
        PRAGMA(omp sections)
        {
            PRAGMA(omp section) section(0, r);
            PRAGMA(omp section) section(1, r);
            PRAGMA(omp section) section(2, r);
            PRAGMA(omp section) section(3, r);
        }
        expect_seq(sv[r & 1], 4, 10 * r, "sections", r);
        PRAGMA(omp sections nowait)
        {
            PRAGMA(omp section) section(4, r);
            PRAGMA(omp section) section(5, r);
            PRAGMA(omp section) section(6, r);
        }
        PRAGMA(omp barrier)
        expect_seq(sv[r & 1] + 4, 3, 10 * r + 4, "sections nowait", r);
    }
    expect_count(secs, 7, 2 * RR, "sections");
    return report("sections", "rounds %d sections 4+3 each once", 2 * RR);
}

/* ---- reduction: the combined sum is complete for every thread after the construct's barrier ---- */
static long work(int i) { busy(i); return i; }

static int case_reduction(void)
{
    long s0 = 0, s1 = 0, s2 = 0, tot = 0; /* rounds alternate between s0 and s1: a slow reader is safe */
    PRAGMA(omp parallel reduction(+ : tot))
    {
        long e[2] = { 0, 0 };
        for (int r = 0; r < 2 * RR; r++) {
            if (r & 1) {
                PRAGMA(omp for schedule(static) reduction(+ : s1))
                for (int i = 0; i < NI; i++)
                    s1 += (long)r * NI + work(i);
            } else {
                PRAGMA(omp for schedule(dynamic, 3) reduction(+ : s0))
                for (int i = 0; i < NI; i++)
                    s0 += (long)r * NI + work(i);
            }
            e[r & 1] += (long)r * NI * NI + NI * (NI - 1) / 2;
            long got = r & 1 ? s1 : s0;
            EXPECT(got == e[r & 1], "reduction, round %d: thread %d read %ld after the barrier, not %ld", r,
                   omp_get_thread_num(), got, e[r & 1]);
        }
        PRAGMA(omp for schedule(guided) reduction(+ : s2) nowait)
        for (int i = 0; i < 4 * NI; i++)
            s2 += work(i);
        PRAGMA(omp barrier)
        long got = s2;
        EXPECT(got == 2L * NI * (4 * NI - 1), "reduction nowait: thread %d read %ld after the barrier, not %ld",
               omp_get_thread_num(), got, 2L * NI * (4 * NI - 1));
        PRAGMA(omp for schedule(static))
        for (int i = 0; i < NI; i++)
            tot += i;
    }
    EXPECT(tot == NI * (NI - 1) / 2, "parallel reduction: %ld, not %d", tot, NI * (NI - 1) / 2);
    return report("reduction", "rounds %d sums %ld %ld %ld parallel %ld", 2 * RR, s0, s1, s2, tot);
}

/* ---- combined parallel for schedule(dynamic) and parallel sections, their bodies starting teams
 * (level 2) that do barriers; a barrier cannot be closely nested in the worksharing body itself ---- */
static struct board CB[6];
static atomic_int chit[25];

static int case_combined(void)
{
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    memset(chit, 0, sizeof chit);
    PRAGMA(omp parallel for schedule(dynamic))
    for (int i = 0; i < 24; i++) {
        atomic_fetch_add(&chit[i], 1);
        if (i % 6 == 0)
            team(&CB[i / 6], "team in parallel for", 2, PH / 2);
    }
    PRAGMA(omp parallel sections)
    {
        PRAGMA(omp section) team(&CB[4], "team in parallel sections", 2, PH / 2);
        PRAGMA(omp section) team(&CB[5], "team in parallel sections", 3, PH / 2);
        PRAGMA(omp section) atomic_fetch_add(&chit[24], 1);
    }
    omp_set_max_active_levels(levels);
    expect_count(chit, 25, 1, "parallel for iterations and sections");
    return report("combined", "iterations 24 sections 3 inner teams 6 phases %d", PH / 2);
}

/* ---- nested: inner teams of 2 and 3 at level 2 (outer threads swapping sizes, so that an inner team
 * of 2 runs while the other outer thread waits at the outer team's barrier, also of 2) ---- */
static struct board NB[2], OB;

static int case_nested(void)
{
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    for (int rep = 0; rep < 3; rep++) {
        board_reset(&OB, "nested outer");
        PRAGMA(omp parallel num_threads(2))
        {
            int t = omp_get_thread_num(), n = team_size(2, "nested outer");
            for (int q = 0; q < 4 && t < 2; q++) {
                int m = 2 + (t ^ (q & 1));
                board_reset(&NB[t], m == 2 ? "nested inner 2" : "nested inner 3");
                PRAGMA(omp parallel num_threads(m))
                {
                    team_size(m, NB[t].what);
                    EXPECT(omp_get_level() == 2 && omp_get_ancestor_thread_num(1) == t, "nested: level %d, ancestor %d",
                           omp_get_level(), omp_get_ancestor_thread_num(1));
                    phases(&NB[t], m == 2 ? PH : PH / 4); /* the team of 3 done first */
                }
                PHASE(&OB, t, n, q);
            }
        }
    }
    omp_set_max_active_levels(levels);
    return report("nested", "regions 3 inner teams 2,3 at level 2 phases %d,%d outer phases 4", PH, PH / 4);
}

/* ---- concurrent: two pthreads start teams at once; sizes 2 and 3, then 2 and 2 ---- */
struct starter { int size; const char *what; struct board b; };
static atomic_int gate;

static void *starter_main(void *arg)
{
    struct starter *s = arg;
    team(&s->b, s->what, s->size, PH); /* its threads made, then both starters go on together */
    for (atomic_fetch_add(&gate, 1); LD(gate) < 2;)
        sched_yield();
    for (int k = 0; k < 8; k++)
        team(&s->b, s->what, s->size, PH);
    return NULL;
}

static int case_concurrent(void)
{
    static struct starter st[2];
    static const int sizes[2][2] = { { 2, 3 }, { 2, 2 } };
    for (int k = 0; k < 2; k++) {
        pthread_t th[2];
        atomic_store(&gate, 0);
        for (int i = 0; i < 2; i++) {
            st[i].size = sizes[k][i];
            st[i].what = i ? "second starter's team" : "first starter's team";
            if (pthread_create(&th[i], NULL, starter_main, &st[i]))
                exit((fprintf(stderr, "omp_semantics: pthread_create failed\n"), 2));
        }
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
    }
    return report("concurrent", "starters 2 team sizes 2+3 then 2+2 regions 9 phases %d", PH);
}

static const struct {
    const char *name;
    int (*run)(void);
} cases[] = {
    { "barrier", case_barrier }, { "loops", case_loops }, { "single", case_single }, { "sections", case_sections },
    { "reduction", case_reduction }, { "combined", case_combined }, { "nested", case_nested },
    { "concurrent", case_concurrent }, { "tasks", case_tasks }, { "taskhelp", case_taskhelp },
    { "undeferred", case_undeferred }, { "detach", case_detach },
    { "taskmemory", case_taskmemory }, { "cancel", case_cancel }, { "target", case_target },
    { "numthreads", case_numthreads }, { "orphan", case_orphan }, { "regions", case_regions }, { "pause", case_pause },
    { "one", case_one },
    { "hostteams", case_hostteams }, { "doacross", case_doacross },
    { "scan", case_scan },
};
enum { NCASES = sizeof cases / sizeof *cases };

int main(int argc, char **argv)
{
    int run[NCASES], bad = 0;
    for (int k = 0; k < NCASES; k++)
        run[k] = argc == 1;
    for (int a = 1, k = 0; a < argc; a++, k = 0) {
        if (!strcmp(argv[a], "--list")) {
            for (; k < NCASES; k++)
                puts(cases[k].name);
            return 0;
        }
        while (k < NCASES && strcmp(cases[k].name, argv[a]))
            k++;
        if (k == NCASES)
            return fprintf(stderr, "omp_semantics: no case '%s' (--list names them)\n", argv[a]), 2;
        run[k] = 1;
    }
    if (omp_get_max_threads() > MAXT / 4) /* the largest team here: OMP_NUM_THREADS, or 5 */
        return fprintf(stderr, "omp_semantics: at most %d threads (OMP_NUM_THREADS)\n", MAXT / 4), 2;
    for (int k = 0; k < NCASES; k++)
        if (run[k])
            bad |= cases[k].run();
    return bad;
}
