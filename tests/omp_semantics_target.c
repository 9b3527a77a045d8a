/* omp_semantics_target.c — the OpenMP semantics test's case of host `target` constructs: deferred target
 * tasks, and target tasks whose host fallback starts a team inside a running region, before the region's
 * end and in its join (omp_semantics.c has the framework, the method and main). */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "omp_semantics.h"

/* The master's or single's tasks: each runs a `target` whose host fallback starts a team of its own
 * (a `parallel for` over 8 elements of c), and adds 1 to them. */
static void target_tasks(int *c)
{
    for (int i = 0; i < NI; i += 8)
        PRAGMA(omp task) PRAGMA(omp target map(tofrom : c[i : 8])) PRAGMA(omp parallel for)
        for (int j = i; j < i + 8; j++)
            c[j]++;
}

/* ---- target, last part: target tasks that nothing waits for inside their region. A `single nowait`
 * after a worksharing loop (whose barrier is the shim's) makes them, so the team's threads run them in
 * libgomp's join, and each task's host `target` starts a team at level 1 there, inside the region being
 * joined: the one place where a thread starts a second team at one level while the first is still its
 * context (src/preload/team.h). The shim gives it the set of the region being joined, which no thread
 * can be waiting in any more. Checked after each region: the loop's values, and every task's team
 * ran. ---- */
enum { JR = 9 };
static int tgt_d[NI], tgt_e[NI];

static void joined_targets(void)
{
    memset(tgt_d, 0, sizeof tgt_d);
    for (int r = 0; r < JR; r++) {
        PRAGMA(omp parallel)
        {
            PRAGMA(omp for schedule(static))
            for (int i = 0; i < NI; i++)
                tgt_e[i] = r * NI + i;
            PRAGMA(omp single nowait)
            {
                usleep(1000);
                target_tasks(tgt_d);
            }
        }
        for (int i = 0; i < NI; i++)
            EXPECT(tgt_e[i] == r * NI + i && tgt_d[i] == r + 1, "joined round %d, element %d: loop value %d, "
                   "%d target tasks' teams ran", r, i, tgt_e[i], tgt_d[i]);
    }
}

/* ---- target: a `master`'s nowait target constructs (deferred target tasks, on the host without a device)
 * are complete after the next barrier, in every thread. Then tasks that each run a `target` with a
 * `parallel for` inside: on the host, libgomp starts that team at level 1 again, inside the region of the
 * thread running the task (the shim must leave it to libgomp: it reused the running region's barrier,
 * repaired it under the waiting thread, and hung; libgomp's target7.f90). The master waits 2 ms first,
 * so that the other threads sleep in the barrier when the tasks come. gcc only: clang 14's libomp
 * asserts in this case with or without the shim ("kmp_tasking.cpp(1530): KMP_HIDDEN_HELPER_THREAD(gtid)",
 * its hidden helper threads), so the clang build reports the case not run. ---- */
static int tgt_a[RR], tgt_b[RR], tgt_c[NI];

int case_target(void)
{
#ifdef __clang__
    return report("target", "not run (clang 14's libomp asserts on it alone)");
#endif
    PRAGMA(omp parallel)
    {
        for (int r = 0; r < RR; r++) {
            PRAGMA(omp master)
            {
                PRAGMA(omp target nowait map(tofrom : tgt_a[r : 1]))
                {
                    busy(3);
                    tgt_a[r] = r + 1;
                }
                PRAGMA(omp target nowait map(tofrom : tgt_b[r : 1]))
                tgt_b[r] = 2 * r + 1;
            }
            PRAGMA(omp barrier)
            EXPECT(tgt_a[r] == r + 1 && tgt_b[r] == 2 * r + 1, "round %d: target results %d %d after the barrier",
                   r, tgt_a[r], tgt_b[r]);
            PRAGMA(omp barrier)
        }
    }
    memset(tgt_c, 0, sizeof tgt_c);
    for (int r = 0; r < 4; r++) {
        PRAGMA(omp parallel)
        {
            PRAGMA(omp master)
            {
                usleep(2000);
                target_tasks(tgt_c);
            }
            PRAGMA(omp barrier)
            EXPECT(tgt_c[NI - 1] == r + 1, "round %d: %d target tasks' teams ran after the barrier", r,
                   tgt_c[NI - 1]);
            PRAGMA(omp barrier)
        }
    }
    for (int j = 0; j < NI; j++)
        EXPECT(tgt_c[j] == 4, "element %d: %d of 4 target tasks' teams ran", j, tgt_c[j]);
    joined_targets();
    return report("target", "rounds %d, then 4 of %d target tasks with a team each, then %d regions whose "
                  "target tasks run in the join", RR, NI / 8, JR);
}

