/* omp_dynamic.c — dynamically scheduled worksharing loops (dynamic, guided, auto, runtime): every
 * iteration runs exactly once and lastprivate sees the last one, whoever gets which chunk. Built with
 * gcc (libgomp) and clang (libomp); omp_dynamic.sh runs it with and without libandgate-preload.so,
 * which hands out libomp's chunks itself (src/preload/kmp_dispatch.c), and compares the outputs.
 *
 * The shim hands out libgomp's too (gomp_loop.c), and steals chunks in nonmonotonic dynamic loops.
 *
 * Loops: int, unsigned, long long and unsigned long long variables; increments 1, 3, -1, -7; trip counts
 * 0-9, 100, 4096; ranges ending at the types' limits; schedule(dynamic, c) for c in 1, 3, 1000,
 * monotonic: dynamic, 2, guided (1, 5), nonmonotonic: guided, auto and runtime (OMP_SCHEDULE from the
 * script); teams of 1-5 threads. Then chains of `nowait` loops with one thread held back (the shim's
 * slots are reused while others run ahead, and the held-back thread's chunks are stolen before it
 * arrives), combined `parallel for` regions of every schedule (gcc: GOMP_parallel_loop_*),
 * team sizes changing between regions, nested teams, and two threads starting teams concurrently.
 * A loop prints one line (its parameters, the iteration count, the last value); a violation prints
 * "FAIL" and the exit status is 1. The output never depends on timing or on who ran what.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { MAXIT = 4200 };
static int failures;

static void check(const char *what, const unsigned char *seen, long trip, long long last, long long want)
{
    long once = 0;
    for (long k = 0; k < trip; k++)
        once += seen[k] == 1;
    int ok = once == trip && (trip == 0 || last == want);
    if (!ok) {
        failures++;
        printf("FAIL ");
    }
    printf("%s: iterations %ld of %ld once, last %lld\n", what, once, trip, trip ? last : -1);
}

/* One loop shape per type and schedule: i from LO while i < HI (or > for negative steps), by STEP. */
#define LOOP(name, T, SCHED, P)                                                                                 \
    static void name(int team, T lo, T hi, long step)                                                          \
    {                                                                                                          \
        static unsigned char seen[MAXIT];                                                                      \
        memset(seen, 0, sizeof seen);                                                                          \
        T last = 0;                                                                                            \
        long trip = 0;                                                                                         \
        if (step > 0) {                                                                                        \
            trip = lo < hi ? (long)((hi - lo - 1) / (T)step) + 1 : 0;                                          \
            _Pragma(P)                                                                                         \
            for (T i = lo; i < hi; i += (T)step) {                                                             \
                long k = (long)((i - lo) / (T)step);                                                           \
                if (k >= 0 && k < MAXIT)                                                                       \
                    _Pragma("omp atomic update") seen[k]++;                                                    \
                last = i;                                                                                      \
            }                                                                                                  \
        } else {                                                                                               \
            trip = lo > hi ? (long)((lo - hi - 1) / (T)(-step)) + 1 : 0;                                       \
            _Pragma(P)                                                                                         \
            for (T i = lo; i > hi; i -= (T)(-step)) {                                                          \
                long k = (long)((lo - i) / (T)(-step));                                                        \
                if (k >= 0 && k < MAXIT)                                                                       \
                    _Pragma("omp atomic update") seen[k]++;                                                    \
                last = i;                                                                                      \
            }                                                                                                  \
        }                                                                                                      \
        T want = step > 0 ? (T)(lo + (T)(trip - 1) * (T)step) : (T)(lo - (T)(trip - 1) * (T)(-step));         \
        char what[160];                                                                                        \
        snprintf(what, sizeof what, "%s %s team %d %lld..%lld step %ld", #T, SCHED, team, (long long)lo,       \
                 (long long)hi, step);                                                                         \
        check(what, seen, trip, (long long)last, (long long)want);                                             \
    }

#define STR(...) #__VA_ARGS__
#define PRAGMA(...) STR(omp parallel for num_threads(team) lastprivate(last) schedule(__VA_ARGS__))
#define SHAPES(T, sfx)                                                                                         \
    LOOP(dyn1_##sfx, T, "dynamic", PRAGMA(dynamic))                                                            \
    LOOP(dyn3_##sfx, T, "dynamic, 3", PRAGMA(dynamic, 3))                                                      \
    LOOP(mono2_##sfx, T, "monotonic: dynamic, 2", PRAGMA(monotonic : dynamic, 2))                              \
    LOOP(nmgui_##sfx, T, "nonmonotonic: guided", PRAGMA(nonmonotonic : guided))                                \
    LOOP(dynbig_##sfx, T, "dynamic, 1000", PRAGMA(dynamic, 1000))                                              \
    LOOP(gui1_##sfx, T, "guided", PRAGMA(guided))                                                              \
    LOOP(gui5_##sfx, T, "guided, 5", PRAGMA(guided, 5))                                                        \
    LOOP(auto_##sfx, T, "auto", PRAGMA(auto))                                                                  \
    LOOP(run_##sfx, T, "runtime", PRAGMA(runtime))                                                             \
    static void (*const shapes_##sfx[])(int, T, T, long) = { dyn1_##sfx, dyn3_##sfx, mono2_##sfx, nmgui_##sfx, \
                                                           dynbig_##sfx, gui1_##sfx, gui5_##sfx, auto_##sfx,   \
                                                           run_##sfx };
SHAPES(int, i)
SHAPES(unsigned, u)
SHAPES(long long, ll)
SHAPES(unsigned long long, ull)
#define NSHAPES (sizeof shapes_i / sizeof shapes_i[0])

static const long trips[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 4096 };
#define FOR_TRIPS for (size_t t = 0; t < sizeof trips / sizeof trips[0]; t++)

static void shapes(int team)
{
    for (size_t s = 0; s < NSHAPES; s++) {
        FOR_TRIPS
        {
            long n = trips[t];
            shapes_i[s](team, -5, (int)(-5 + 3 * n), 3);
            shapes_i[s](team, INT_MAX, (int)(INT_MAX - n), -1);
            shapes_u[s](team, 7, (unsigned)(7 + n), 1);
            shapes_u[s](team, (unsigned)(UINT_MAX - 3 * n), UINT_MAX, 3);
            shapes_ll[s](team, LLONG_MIN, LLONG_MIN + 3 * n, 3);
            shapes_ull[s](team, ULLONG_MAX - n, ULLONG_MAX, 1);
            shapes_ull[s](team, 5 + 7 * (unsigned long long)n, 5, -7); /* gcc: GOMP_loop_ull_* with up = false */
        }
    }
}

/* A region of `loops` nowait loops in a row; thread 0 sleeps now and then, so the others run loops
 * ahead of it (and reuse the shim's slots) before its chunks are handed out. */
static void nowait_chain(int team, int loops, long n)
{
    static unsigned char seen[64][MAXIT];
    memset(seen, 0, sizeof seen);
#pragma omp parallel num_threads(team)
    for (int l = 0; l < loops; l++) {
        if (omp_get_thread_num() == 0 && l % 5 == 0)
            usleep(2000);
#pragma omp for schedule(dynamic, 2) nowait
        for (long i = 0; i < n; i++) {
#pragma omp atomic update
            seen[l][i]++;
        }
    }
    for (int l = 0; l < loops; l++) {
        char what[96];
        snprintf(what, sizeof what, "nowait chain team %d loop %d of %d", team, l, loops);
        check(what, seen[l], n, n - 1, n - 1);
    }
}

/* Combined `parallel for` regions: constant bounds, so gcc starts them through GOMP_parallel_loop_* (the
 * shim starts a plain region and sets the loop up in each thread: its own, or libgomp's in a team of
 * one), one per schedule, in teams of 1, 2 and 3 with lastprivate, between regions whose loops are
 * separate from their `parallel`. */
#define COMBINED(r, team, ...)                                                                                 \
    do {                                                                                                       \
        long last = -1;                                                                                        \
        _Pragma(STR(omp parallel for num_threads(team) lastprivate(last) schedule(__VA_ARGS__)))               \
        for (long i = 999; i > -1000; i -= 2) {                                                                \
            _Pragma("omp atomic update") seen[r][(999 - i) / 2]++;                                             \
            last = i;                                                                                          \
        }                                                                                                      \
        lasts[r] = last;                                                                                       \
    } while (0)
static const char *const combined_sched[] = { "dynamic, 2", "monotonic: dynamic, 3", "guided, 3", "runtime" };
static void combined(void)
{
    enum { ROUNDS = 12 };
    static unsigned char seen[2 * ROUNDS][MAXIT];
    long lasts[2 * ROUNDS];
    memset(seen, 0, sizeof seen);
    for (int r = 0; r < ROUNDS; r++) {
        const int team = 1 + r % 3;
        switch (r / 3) {
        case 0: COMBINED(r, team, dynamic, 2); break;
        case 1: COMBINED(r, team, monotonic : dynamic, 3); break;
        case 2: COMBINED(r, team, guided, 3); break;
        default: COMBINED(r, team, runtime);
        }
        long last = -1;
#pragma omp parallel num_threads(2)
#pragma omp for schedule(dynamic, 2) lastprivate(last)
        for (long i = 999; i > -1000; i -= 2) {
#pragma omp atomic update
            seen[ROUNDS + r][(999 - i) / 2]++;
            last = i;
        }
        lasts[ROUNDS + r] = last;
    }
    for (int r = 0; r < 2 * ROUNDS; r++) {
        char what[96];
        if (r < ROUNDS)
            snprintf(what, sizeof what, "combined %s team %d region %d", combined_sched[r / 3], 1 + r % 3, r);
        else
            snprintf(what, sizeof what, "separate region %d", r - ROUNDS);
        check(what, seen[r], 1000, lasts[r], -999);
    }
}

/* Nested teams, each with its own dynamic loops. */
static void nested(void)
{
    static unsigned char seen[2][2][MAXIT];
    memset(seen, 0, sizeof seen);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
        for (int r = 0; r < 2; r++) {
#pragma omp for schedule(guided, 3)
            for (long i = 0; i < 1000; i++)
                seen[outer][r][i]++;
        }
    }
    omp_set_max_active_levels(1);
    for (int o = 0; o < 2; o++)
        for (int r = 0; r < 2; r++) {
            char what[64];
            snprintf(what, sizeof what, "nested team %d loop %d", o, r);
            check(what, seen[o][r], 1000, 999, 999);
        }
}

/* Two threads, each starting teams of 2 with dynamic loops at once. */
static unsigned char concurrent_seen[2][MAXIT];
static void *starter(void *arg)
{
    long who = (long)arg;
    for (int r = 0; r < 50; r++) {
#pragma omp parallel for num_threads(2) schedule(dynamic, 7)
        for (long i = 0; i < 3000; i++)
            concurrent_seen[who][i] = (unsigned char)(concurrent_seen[who][i] + 1);
    }
    return NULL;
}

int main(void)
{
    for (int team = 1; team <= 5; team++)
        shapes(team);
    nowait_chain(2, 40, 100);
    nowait_chain(3, 40, 7);
    for (int r = 0; r < 3; r++) /* team sizes change between regions */
        for (int team = 4; team >= 2; team--)
            nowait_chain(team, 12, 50);
    combined();
    nested();
    pthread_t th[2];
    for (long w = 0; w < 2; w++)
        pthread_create(&th[w], NULL, starter, (void *)w);
    for (int w = 0; w < 2; w++)
        pthread_join(th[w], NULL);
    for (int w = 0; w < 2; w++) {
        long all = 0;
        for (long i = 0; i < 3000; i++)
            all += concurrent_seen[w][i] == 50;
        if (all != 3000)
            failures++, printf("FAIL ");
        printf("concurrent starter %d: %ld of 3000 iterations ran once in each of 50 regions\n", w, all);
    }
    printf("%s\n", failures ? "FAILED" : "all loops correct");
    return failures != 0;
}
