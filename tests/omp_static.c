/* omp_static.c — which thread runs which iteration of static worksharing loops, and which thread runs
 * the last one (lastprivate). Built with gcc (libgomp) and clang (libomp); omp_static.sh compares the
 * output with and without libandgate-preload.so, which computes libomp's static loop starts itself
 * (src/preload/kmp_loop.c): the split must be the runtime's, iteration for iteration.
 *
 * Loops: int, unsigned, long long and unsigned long long variables; increments ±1, ±3, ±7; trip counts
 * 0-9, 10, 31, 100, 1000; ranges ending at the type's limits; schedule(static) and schedule(static, c)
 * for c in 1, 2, 3, 5, 1000, and the same through schedule(runtime) with the run-sched-var set to static
 * (libomp's dispatcher path); teams of 2, 3, 4 and 5 threads. Each loop prints one line: its parameters,
 * an FNV-1a hash of the owner of every iteration in order, the iteration count, and the owner of the
 * last iteration as lastprivate saw it. The output depends only on the runtime's split, never on timing.
 */
#include <inttypes.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { MAXIT = 4096 };
static int owner[MAXIT];
static int count;

static void record(long k)
{
    if (k < 0 || k >= MAXIT) {
        fprintf(stderr, "omp_static: iteration index %ld out of range\n", k);
        return;
    }
#pragma omp atomic write
    owner[k] = omp_get_thread_num();
#pragma omp atomic update
    count++;
}

static void print(const char *what, int team, long lo, long hi, long step, int chunk, int last)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int k = 0; k < count && k < MAXIT; k++)
        h = (h ^ (uint64_t)owner[k]) * UINT64_C(0x100000001b3);
    /* lastprivate is unspecified when no iteration runs */
    printf("%s team %d range %ld..%ld step %ld chunk %d: iterations %d owners %016" PRIx64 " last %d\n", what,
           team, lo, hi, step, chunk, count, h, count ? last : -1);
}

/* One loop of variable type T under the pragma P: i from LO while i < HI (or > for negative steps), by
 * STEP. The iteration index k = (i - LO) / STEP is computed in the loop variable's own type. */
#define ONE(T, P)                                                                                              \
    if (step > 0) {                                                                                            \
        _Pragma(P) for (T i = lo; i < hi; i += (T)step)                                                        \
        {                                                                                                      \
            record((long)((i - lo) / (T)step));                                                                \
            last = omp_get_thread_num();                                                                       \
        }                                                                                                      \
    } else {                                                                                                   \
        _Pragma(P) for (T i = lo; i > hi; i -= (T)-step)                                                       \
        {                                                                                                      \
            record((long)((lo - i) / (T)-step));                                                               \
            last = omp_get_thread_num();                                                                       \
        }                                                                                                      \
    }

/* One loop shape per variable type: schedule(static), schedule(static, chunk), or (runtime != 0)
 * schedule(runtime) with the run-sched-var set to static and the chunk (0: the plain split), which
 * libomp starts through its dispatcher rather than its static-loop start, and so does the shim
 * (kmp_dispatch.c). */
#define LOOP(name, T)                                                                                          \
    static void name(int team, T lo, T hi, long step, int chunk, int runtime)                                  \
    {                                                                                                          \
        int last = -1;                                                                                         \
        count = 0;                                                                                             \
        memset(owner, 0xff, sizeof owner);                                                                     \
        if (runtime) {                                                                                         \
            omp_set_schedule(omp_sched_static, chunk);                                                         \
            ONE(T, "omp parallel for num_threads(team) schedule(runtime) lastprivate(last)")                  \
        } else if (chunk == 0) {                                                                               \
            ONE(T, "omp parallel for num_threads(team) schedule(static) lastprivate(last)")                   \
        } else {                                                                                               \
            ONE(T, "omp parallel for num_threads(team) schedule(static, chunk) lastprivate(last)")            \
        }                                                                                                      \
        print(runtime ? "runtime " #T : #T, team, (long)lo, (long)hi, step, chunk, last);                      \
    }
LOOP(loop_int, int)
LOOP(loop_unsigned, unsigned)
LOOP(loop_ll, long long)
LOOP(loop_ull, unsigned long long)

int main(void)
{
    static const int trips[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 31, 100, 1000 };
    static const long steps[] = { 1, 3, 7, -1, -3, -7 };
    static const int chunks[] = { 0, 1, 2, 3, 5, 1000 };
    for (int team = 2; team <= 5; team++)
        for (unsigned t = 0; t < sizeof trips / sizeof *trips; t++)
            for (unsigned s = 0; s < sizeof steps / sizeof *steps; s++)
                for (unsigned c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                    long step = steps[s], span = trips[t] * step;
                    int chunk = chunks[c];
                    for (int runtime = 0; runtime <= 1; runtime++) {
                        if (step > 0) { /* unsigned variables count up only */
                            loop_unsigned(team, 10u, 10u + (unsigned)span, step, chunk, runtime);
                            loop_ull(team, 10ull, 10ull + (unsigned long long)span, step, chunk, runtime);
                            /* up to the type's last values: the split's end clamps at the limit */
                            loop_int(team, INT_MAX - (int)span, INT_MAX, step, chunk, runtime);
                            loop_ull(team, ULLONG_MAX - (unsigned long long)span, ULLONG_MAX, step, chunk, runtime);
                        } else {
                            loop_int(team, INT_MIN - (int)span, INT_MIN, step, chunk, runtime);
                        }
                        loop_int(team, -5, -5 + (int)span, step, chunk, runtime);
                        loop_ll(team, 1000, 1000 + span, step, chunk, runtime);
                    }
                }
    return 0;
}
