/* omp_semantics_tasks.c — the OpenMP semantics test's cases of tasks, cancellation, team sizes set
 * between regions, orphaned constructs, many regions and teams of one (omp_semantics.c has the
 * framework, the method and main; omp_semantics_target.c the host `target` case). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp_semantics.h"

/* ---- tasks: deferred, depend, taskwait, taskgroup, taskloop; results complete after the barrier ---- */
static atomic_int tres[2][MAXT * 4], dep[3], tw[4], tg[MAXT][4], tl[2][NI], tlhit[NI];
static int d0, d1; /* the depend chain's dependences */

int case_tasks(void)
{
    memset(tlhit, 0, sizeof tlhit);
    PRAGMA(omp parallel)
    {
        int t = omp_get_thread_num(), n = team_size(0, "tasks");
        for (int r = 0; r < RR; r++) {
            for (int k = 0; k < 4; k++)
                PRAGMA(omp task) { busy(k + t); atomic_store(&tres[r & 1][4 * t + k], 1000 * r + 4 * t + k); }
            PRAGMA(omp barrier)
            expect_seq(tres[r & 1], 4 * n, 1000 * r, "deferred tasks", r);
            PRAGMA(omp single)
            {
                PRAGMA(omp task depend(out : d0)) { busy(3); atomic_store(&dep[0], r + 1); }
                PRAGMA(omp task depend(in : d0) depend(out : d1)) atomic_store(&dep[1], 2 * LD(dep[0]));
                PRAGMA(omp task depend(in : d1)) atomic_store(&dep[2], LD(dep[1]) + 3);
            }
            EXPECT(LD(dep[2]) == 2 * (r + 1) + 3, "depend chain, round %d: %d after the single's barrier", r, LD(dep[2]));
            PRAGMA(omp single)
            {
                for (int k = 0; k < 4; k++)
                    PRAGMA(omp task) { busy(k); atomic_store(&tw[k], 4 * r + k); }
                PRAGMA(omp taskwait)
                expect_seq(tw, 4, 4 * r, "taskwait", r);
            }
            PRAGMA(omp taskgroup)
            for (int k = 0; k < 4; k++)
                PRAGMA(omp task) { busy(k); atomic_store(&tg[t][k], 4 * r + k); }
            expect_seq(tg[t], 4, 4 * r, "taskgroup", r);
            PRAGMA(omp single nowait)
            PRAGMA(omp taskloop grainsize(4) nogroup)
            for (int i = 0; i < NI; i++) {
                atomic_fetch_add(&tlhit[i], 1);
                atomic_store(&tl[r & 1][i], r * NI + i);
            }
            PRAGMA(omp barrier)
            expect_seq(tl[r & 1], NI, r * NI, "taskloop nogroup", r);
        }
    }
    expect_count(tlhit, NI, RR, "taskloop iterations");
    return report("tasks", "rounds %d deferred 4/thread depend 3 taskwait 4 taskgroup 4/thread taskloop %d", RR, NI);
}

/* ---- taskhelp: tasks made in a `single` are run by the threads waiting at its barrier as well, as
 * the runtimes do, while the maker waits for them (taskwait, as a recursive task tree does): a barrier
 * that kept the others waiting would leave the maker to run every task. Each task waits until another
 * thread has run one (10 s at most, once: a hang guard, not a time measured); then a barrier-bound
 * region of the same team, whose barrier must work again. The same output with and without the
 * shim. ---- */
static atomic_int th_ran[MAXT], th_lonely, th_gave_up;
static struct board HB;

static int other_ran(int t, int n)
{
    for (int u = 0; u < n; u++)
        if (u != t && atomic_load(&th_ran[u]))
            return 1;
    return 0;
}

static void helped_task(int n)
{
    int t = omp_get_thread_num();
    atomic_store(&th_ran[t], 1);
    double t0 = omp_get_wtime();
    while (!other_ran(t, n) && !atomic_load(&th_gave_up))
        if (omp_get_wtime() - t0 > 10)
            atomic_store(&th_gave_up, 1);
    if (!other_ran(t, n))
        atomic_fetch_add(&th_lonely, 1);
}

int case_taskhelp(void)
{
    int n = omp_get_max_threads();
    for (int r = 0; r < 3; r++) {
        memset(th_ran, 0, sizeof th_ran);
        atomic_store(&th_lonely, 0);
        atomic_store(&th_gave_up, 0);
        PRAGMA(omp parallel)
        PRAGMA(omp single)
        {
            for (int k = 0; k < 4 * n && n > 1; k++)
                PRAGMA(omp task)
                helped_task(n);
            PRAGMA(omp taskwait)
        }
        EXPECT(atomic_load(&th_lonely) == 0, "taskhelp, round %d: %d tasks ran while no other thread ran one", r,
               atomic_load(&th_lonely));
        board_reset(&HB, "barriers after a tasking region");
        PRAGMA(omp parallel)
        phases(&HB, PH);
    }
    return report("taskhelp", "rounds 3 tasks 4/thread from a single, taskwait, then phases %d", PH);
}

/* ---- undeferred: an if(0) task has run when its creator goes on (OpenMP: the creating task waits for
 * it), and barriers between such tasks still hold — the shim sends them straight to the runtime and
 * keeps its own barrier for the team. Then a task tree made at the region's end (single nowait): its
 * tasks run in the join barrier, make their children there, outside any context of the shim's, and
 * every one has run when the region is over. ---- */
static atomic_int tree_nodes;
static struct board UB;

static void tree(int depth)
{
    atomic_fetch_add(&tree_nodes, 1);
    if (depth > 0) {
        PRAGMA(omp task) tree(depth - 1);
        PRAGMA(omp task) tree(depth - 1);
    }
}

int case_undeferred(void)
{
    for (int r = 0; r < 3; r++) {
        atomic_store(&tree_nodes, 0);
        board_reset(&UB, "barriers between undeferred tasks");
        PRAGMA(omp parallel)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            for (int p = 0; p < PH; p++) {
                int done = -1;
                PRAGMA(omp task if (0) shared(done)) { busy(p + t); done = p; }
                EXPECT(done == p, "undeferred, round %d phase %d: the if(0) task had not run (%d)", r, p, done);
                PHASE(&UB, t, n, p);
            }
            PRAGMA(omp single nowait)
            tree(10);
        }
        EXPECT(LD(tree_nodes) == 2047, "a task tree made at the region's end, round %d: %d of 2047 tasks ran", r,
               LD(tree_nodes));
    }
    return report("undeferred", "rounds 3 phases %d if(0) tasks, then a tree of 2047 tasks in the join", PH);
}

/* ---- detach: GOMP_task's last three arguments (depend, priority, detach) pass the caller's stack: a
 * detached task is complete only once another task fulfils its event, and the taskwait waits for
 * that; the depend and priority clauses ride along. ---- */
static atomic_int det_x[MAXT], det_y[MAXT];
static int det_d;

int case_detach(void)
{
    PRAGMA(omp parallel)
    {
        int t = omp_get_thread_num();
        for (int r = 0; r < RR; r++) {
            omp_event_handle_t ev;
            PRAGMA(omp task detach(ev) shared(det_x)) atomic_store(&det_x[t], r + 1);
            PRAGMA(omp task depend(out : det_d) priority(1) firstprivate(ev) shared(det_y))
            {
                atomic_store(&det_y[t], r + 2);
                omp_fulfill_event(ev);
            }
            PRAGMA(omp taskwait)
            EXPECT(LD(det_x[t]) == r + 1 && LD(det_y[t]) == r + 2,
                   "detach, thread %d round %d: %d %d after taskwait", t, r, LD(det_x[t]), LD(det_y[t]));
            PRAGMA(omp barrier)
        }
    }
    return report("detach", "rounds %d detached task and its fulfiller (depend, priority) per thread", RR);
}

/* ---- taskmemory: one region run again and again, deferred tasks in some runs and not in others. The
 * shim remembers per region whether its last run made tasks and starts such a region on the runtime's
 * barriers; the pattern covers each pair (tasks after tasks, none after tasks, none after none, tasks
 * after none). In every run the tasks are complete after the barrier that follows them and the
 * barriers keep their phases. ---- */
static atomic_int tm_done[MAXT * 4];
static struct board MB;

int case_taskmemory(void)
{
    static const char pattern[] = "TTTNNTNTTN";
    for (int r = 0; pattern[r]; r++) {
        const int tasks = pattern[r] == 'T';
        memset(tm_done, 0, sizeof tm_done);
        board_reset(&MB, tasks ? "barriers after tasks in a remembered region" : "barriers in a remembered region");
        PRAGMA(omp parallel)
        {
            int t = omp_get_thread_num(), n = team_size(0, "taskmemory");
            for (int k = 0; k < 4 && tasks; k++)
                PRAGMA(omp task) { busy(k + t); atomic_store(&tm_done[4 * t + k], 1000 * r + 4 * t + k); }
            PRAGMA(omp barrier)
            if (tasks)
                expect_seq(tm_done, 4 * n, 1000 * r, "tasks of a remembered region", r);
            phases(&MB, PH);
        }
    }
    return report("taskmemory", "runs %d (%s) tasks 4/thread phases %d", (int)sizeof pattern - 1, pattern, PH);
}

/* ---- cancel: cancel for, then a loop with a cancellation point and barriers; cancel parallel, then a
 * plain region. The same output whether OMP_CANCELLATION is true (the constructs cancel) or not. The
 * second loop runs every iteration: the runtime's barrier at the first loop's end clears the
 * cancellation (an andgate barrier there left libgomp's mark set and the second loop was skipped).
 * Cancel parallel comes before any barrier: clang 14 + libomp deadlock when other threads may still be
 * leaving a cancellable barrier then (llvm-project #164586). ---- */
static atomic_int cfound, chits[200], chits2[200];
static volatile int cnever;
static struct board KB;

int case_cancel(void)
{
    memset(chits, 0, sizeof chits);
    memset(chits2, 0, sizeof chits2);
    board_reset(&KB, "after cancel for");
    PRAGMA(omp parallel)
    {
        PRAGMA(omp for schedule(static))
        for (int i = 0; i < 200; i++) {
            atomic_fetch_add(&chits[i], 1);
            if (i == 137) {
                atomic_store(&cfound, i);
                PRAGMA(omp cancel for)
            }
            PRAGMA(omp cancellation point for)
        }
        PRAGMA(omp for schedule(static))
        for (int i = 0; i < 200; i++) {
            PRAGMA(omp cancel for if (cnever)) /* never true: a cancellation point the compiler keeps */
            atomic_fetch_add(&chits2[i], 1);
        }
        phases(&KB, PH);
    }
    for (int i = 0; i < 200; i++) {
        EXPECT(LD(chits[i]) <= 1 && (i != 137 || LD(chits[i]) == 1), "cancel for: iteration %d ran %d times", i,
               LD(chits[i]));
        EXPECT(LD(chits2[i]) == 1, "the loop after a cancelled one: iteration %d ran %d times", i, LD(chits2[i]));
    }
    for (int rep = 0; rep < 3; rep++) {
        board_reset(&KB, "cancellable barrier");
        PRAGMA(omp parallel)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            if (t == 0) {
                PRAGMA(omp cancel parallel)
            }
            for (int p = 0; p < PH; p++) /* cancelled at the first barrier, or all run without cancellation */
                PHASE(&KB, t, n, p);
        }
        board_reset(&KB, "after cancel parallel");
        PRAGMA(omp parallel)
        phases(&KB, PH);
    }
    return report("cancel", "cancel-for found %d cancel-parallel regions 3 then phases %d", LD(cfound), PH);
}

/* ---- numthreads: omp_set_num_threads changes the team size between regions ---- */
static struct board TB;

int case_numthreads(void)
{
    static const int seq[] = { 2, 3, 1, 4, 2, 5, 3, 1, 2 };
    int saved = omp_get_max_threads();
    for (unsigned k = 0; k < sizeof seq / sizeof *seq; k++) {
        omp_set_num_threads(seq[k]);
        board_reset(&TB, "omp_set_num_threads");
        PRAGMA(omp parallel)
        {
            team_size(seq[k], "omp_set_num_threads");
            phases(&TB, PH);
        }
    }
    omp_set_num_threads(saved);
    return report("numthreads", "sizes 2,3,1,4,2,5,3,1,2 phases %d", PH);
}

/* ---- orphan: a barrier and a loop in functions called from a region, and from outside one ---- */
static struct board OR;

static void orphan_phase(struct board *b, int p)
{
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    stamp(b, t, p);
    PRAGMA(omp barrier)
    check(b, t, n, p);
}

static void orphan_loop(int s)
{
    PRAGMA(omp for schedule(dynamic, 16))
    for (int i = 0; i < NI; i++)
        loop_body(s, i);
    expect_seq(val[s & 1], NI, s * NI, "orphaned loop", s);
}

static void (*volatile orphan_fn)(struct board *, int) = orphan_phase;

int case_orphan(void)
{
    memset(val, 0xff, sizeof val);
    board_reset(&OR, "orphaned barrier outside a region");
    orphan_fn(&OR, 0); /* binds to the implicit team of one */
    orphan_loop(0);
    board_reset(&OR, "orphaned barrier");
    PRAGMA(omp parallel)
    for (int p = 0; p < PH; p++) {
        orphan_fn(&OR, p);
        orphan_loop(p + 1);
    }
    return report("orphan", "outside-region 1 phases %d loops %d", PH, PH);
}

/* ---- regions: twelve region bodies (more than the shim's set keeps records of) in turn, each entered
 * twice in a row from stack frames of different depths (its argument block at another address): every
 * thread must run the body with the argument of this call ---- */
enum { NREG = 12, RROUNDS = 3 };
static struct board RB;
static atomic_int rhit[NREG], rbad, rcall;

#define REGION_BODY(k)                                                                                       \
    static void region_##k(int call)                                                                      \
    {                                                                                                     \
        int mine = call; /* firstprivate: in the region's argument block */                               \
        PRAGMA(omp parallel firstprivate(mine))                                                           \
        {                                                                                                 \
            if (mine != atomic_load(&rcall))                                                              \
                atomic_fetch_add(&rbad, 1);                                                               \
            atomic_fetch_add(&rhit[k], 1);                                                                \
            PHASE(&RB, omp_get_thread_num(), omp_get_num_threads(), mine);                                \
        }                                                                                                 \
    }
REGION_BODY(0) REGION_BODY(1) REGION_BODY(2) REGION_BODY(3) REGION_BODY(4) REGION_BODY(5)
REGION_BODY(6) REGION_BODY(7) REGION_BODY(8) REGION_BODY(9) REGION_BODY(10) REGION_BODY(11)
static void (*const region_fn[NREG])(int) = { region_0, region_1, region_2, region_3, region_4, region_5,
                                              region_6, region_7, region_8, region_9, region_10, region_11 };

static void __attribute__((noinline)) region_deeper(int k, int call)
{
    volatile int frame[64]; /* the region's argument block lands at another address */
    frame[0] = k;
    region_fn[frame[0]](call);
    frame[1] = k; /* not a tail call: this frame stays below the region's */
}

static struct board RN[2], RO;

int case_regions(void)
{
    memset(rhit, 0, sizeof rhit);
    atomic_store(&rbad, 0);
    board_reset(&RB, "twelve regions in turn");
    int n = omp_get_max_threads();
    for (int round = 0, call = 0; round < RROUNDS; round++)
        for (int k = 0; k < NREG; k++) {
            atomic_store(&rcall, ++call);
            region_fn[k](call);
            atomic_store(&rcall, ++call);
            region_deeper(k, call);
        }
    expect_count(rhit, NREG, 2 * RROUNDS * n, "regions in turn: threads that ran each region");
    EXPECT(atomic_load(&rbad) == 0, "regions in turn: %d threads ran a region with another call's argument",
           atomic_load(&rbad));
    /* a nested team started before its enclosing team's first barrier */
    int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    board_reset(&RO, "outer team whose inner team starts first");
    PRAGMA(omp parallel num_threads(2))
    {
        int t = omp_get_thread_num();
        board_reset(&RN[t], "inner team before the outer team's first barrier");
        PRAGMA(omp parallel num_threads(2))
        phases(&RN[t], PH / 4);
        PHASE(&RO, t, 2, 0);
    }
    omp_set_max_active_levels(levels);
    return report("regions", "bodies %d rounds %d, inner teams 2 before outer barrier phases %d", NREG, RROUNDS,
                  PH / 4);
}

/* ---- pause: omp_pause_resource_all between regions of changing size. The runtime lets its threads go
 * (libgomp's hard pause ends the pool's threads, and the next region starts new ones, which may reuse the
 * old threads' stacks and identifiers); every team after a pause must synchronize like the first. The hard
 * pause only with libgomp: libomp 14 fails the next region after its own hard pause, without the shim
 * ("OMP: Error #132: Thread identifier invalid") ---- */
extern void __kmpc_fork_call(void) __attribute__((weak)); /* defined when the runtime is libomp */
static struct board PB;

int case_pause(void)
{
    static const int seq[] = { 2, 3, 2, 4, 3, 2 };
    enum { NSEQ = sizeof seq / sizeof *seq };
    int hard = !__kmpc_fork_call, nhard = 0;
    memset(val, 0xff, sizeof val);
    for (int k = 0; k < 2 * NSEQ; k++) {
        /* the pause after region j is hard when j is odd (and the runtime is libgomp) */
        board_reset(&PB, !k ? "first region" : (k - 1) & 1 && hard ? "region after a hard pause"
                                                                     : "region after a soft pause");
        PRAGMA(omp parallel num_threads(seq[k % NSEQ]))
        {
            team_size(seq[k % NSEQ], PB.what);
            phases(&PB, PH / 4);
            int s = 2000 + k;
            WS_LOOP(s, PB.what, schedule(dynamic, 4));
        }
        int kind = k & 1 && hard ? omp_pause_hard : omp_pause_soft;
        nhard += kind == omp_pause_hard;
        EXPECT(omp_pause_resource_all(kind) == 0, "omp_pause_resource_all(%s) failed after region %d",
               kind == omp_pause_hard ? "hard" : "soft", k);
    }
    return report("pause", "regions %d phases %d loops %d hard pauses %s", 2 * NSEQ, PH / 4, 2 * NSEQ,
                  nhard ? "yes" : "no (libomp)");
}

/* ---- one: teams of one (num_threads(1), if(0)) with barriers, single and a loop ---- */
static struct board SB;

int case_one(void)
{
    int singles1 = 0;
    for (int k = 0; k < 2; k++) {
        board_reset(&SB, k ? "parallel if(0)" : "num_threads(1)");
        PRAGMA(omp parallel num_threads(1) if (k == 0))
        {
            team_size(1, SB.what);
            phases(&SB, PH);
            PRAGMA(omp single)
            singles1++;
            int s = 1000 + k;
            WS_LOOP(s, "team of one", schedule(dynamic));
        }
    }
    EXPECT(singles1 == 2, "team of one: %d singles, not 2", singles1);
    return report("one", "regions 2 phases %d singles 2", PH);
}

/* ---- hostteams: a `teams` construct on the host, each team's master starting a team of up to 2; then more
 * regions of 2 and 3 threads than the shim's nesting depth (8), which the threads that were league
 * masters join as workers (libomp 14 reports the ends of their later implicit tasks as initial tasks) ---- */
static struct board LB[2], LA;

int case_hostteams(void)
{
    int nteams = 0;
    for (int k = 0; k < 2; k++)
        board_reset(&LB[k], "team of 2 inside a host teams construct");
    PRAGMA(omp teams num_teams(2) reduction(+ : nteams))
    {
        int league = omp_get_team_num();
        nteams++;
        PRAGMA(omp parallel num_threads(2)) /* libomp may give each team 1 thread (its thread limit) */
        phases(&LB[league], PH / 4);
    }
    EXPECT(nteams >= 1 && nteams <= 2, "host teams: %d teams ran, asked for 2", nteams);
    for (int r = 0; r < 20; r++) {
        int n = 2 + r % 2;
        team(&LA, "regions after a host teams construct", n, 4);
    }
    return report("hostteams", "regions 20 after the league, phases %d and 4", PH / 4);
}
