/* omp_semantics_doacross.c — the doacross case of the OpenMP semantics test (omp_semantics.c's head
 * comment says how cases are run and judged): loops `for ordered(n)` with `ordered depend(sink: ...)` and
 * `ordered depend(source)` (OpenMP 5.0 §2.17.9), which libandgate-preload.so hands out and keeps the
 * posts of in libgomp's served teams (src/preload/gomp_doacross.c) and leaves to libomp.
 *
 * Every iteration waits for its sinks, then checks that each sink inside the iteration space has already
 * run (its flag, set before its source), reads the sinks' values (plain memory: the source's release and
 * the sink's acquire make them visible), and writes its own. The values form recurrences whose results are
 * computed again sequentially and compared: a sink let through early reads an unwritten or stale value.
 * Loops: one dimension under every schedule, a decreasing one (gcc passes the logical iteration numbers),
 * an unsigned long long one, a 2-D wavefront whose third sink leaves the space at the last column (to be
 * ignored), a 3-D one with collapse(2), a 7-D one (more sink indices than integer registers) and a 9-D one
 * (more than the shim keeps posts for: libgomp's loop, its waits passed on through the shim). All of them
 * run again in a team of one (whose waits the shim skips), and a team of two that libgomp enters without
 * the shim runs doacross loops inside a team of one's loop and inside a loop of a team of the default
 * size (whose posts the shim keeps). Random work between the steps varies who waits for whom; every
 * iteration runs exactly once. */
#include <stdio.h>
#include <string.h>

#include "omp_semantics.h"

enum { N1 = 48, DI = 10, DJ = 9, TI = 4, TJ = 3, TK = 5, SEVEN = 3 * 64, NINE = 512, DXR = 3, P = 1000003 };

static atomic_int ran[NINE];   /* per iteration of the loop in progress: runs this round */
static atomic_int posted[NINE]; /* per iteration: the round whose source it has reached */
static long v[NINE], want[NINE];

/* iteration k's sink s (of this round r) has run: its flag, set before its source */
static void sink_done(int k, int s, int r, const char *what)
{
    int p = LD(posted[s]);
    if (p != r)
        fail("%s, round %d: iteration %d passed its sink %d, which had not posted (its round %d)", what, r,
             k, s, p);
}

/* iteration k's end: its value, its run counted, its flag (before the source that follows) */
static void post_at(int k, long x, int r)
{
    v[k] = x % P;
    atomic_fetch_add(&ran[k], 1);
    atomic_store(&posted[k], r);
}

static void begin(int n)
{
    for (int k = 0; k < n; k++)
        atomic_store(&ran[k], 0), atomic_store(&posted[k], -1), v[k] = -1;
}

/* after the loop: every iteration once, every value the sequential one */
static void compare(int n, const char *what, int r)
{
    expect_count(ran, n, 1, what);
    for (int k = 0; k < n; k++)
        if (v[k] != want[k])
            fail("%s, round %d: item %d is %ld, not %ld as run in order", what, r, k, v[k], want[k]);
}

/* a one-dimensional recurrence: x[i] = 3 x[i-1] + i + r (mod P) */
static void want_1d(int r)
{
    for (int i = 0; i < N1; i++)
        want[i] = ((i ? 3 * want[i - 1] : 7) + i + r) % P;
}

#define BODY_1D(i, r, what)                                                                                \
    do {                                                                                                   \
        busy((i) * 5 + (r));                                                                               \
        PRAGMA(omp ordered depend(sink : i - 1))                                                           \
        if (i)                                                                                             \
            sink_done(i, i - 1, r, what);                                                                  \
        post_at(i, (i ? 3 * v[i - 1] : 7) + i + r, r);                                                     \
        PRAGMA(omp ordered depend(source))                                                                 \
    } while (0)

#define LOOP_1D(r, what, ...)                                                                              \
    do {                                                                                                   \
        PRAGMA(omp single) begin(N1);                                                                      \
        PRAGMA(omp for ordered(1) __VA_ARGS__)                                                             \
        for (int i = 0; i < N1; i++)                                                                       \
            BODY_1D(i, r, what);                                                                           \
        PRAGMA(omp single) compare(N1, what, r);                                                           \
    } while (0)

static void loops_1d(int r)
{
    LOOP_1D(r, "static doacross loop", schedule(static));
    LOOP_1D(r, "static,1 doacross loop", schedule(static, 1));
    LOOP_1D(r, "static,5 doacross loop", schedule(static, 5));
    LOOP_1D(r, "dynamic doacross loop", schedule(dynamic, 3));
    LOOP_1D(r, "guided doacross loop", schedule(guided));
    LOOP_1D(r, "runtime doacross loop", schedule(runtime));
    PRAGMA(omp single) begin(N1);
    PRAGMA(omp for ordered(1) schedule(dynamic))
    for (int i = N1 - 1; i >= 0; i--) { /* the same recurrence, run from the top: item N1-1-i */
        int k = N1 - 1 - i;
        busy(k * 3 + r);
        PRAGMA(omp ordered depend(sink : i + 1))
        if (k)
            sink_done(k, k - 1, r, "decreasing doacross loop");
        post_at(k, (k ? 3 * v[k - 1] : 7) + k + r, r);
        PRAGMA(omp ordered depend(source))
    }
    PRAGMA(omp single) compare(N1, "decreasing doacross loop", r);
    PRAGMA(omp single) begin(N1);
    PRAGMA(omp for ordered(1) schedule(guided, 2))
    for (unsigned long long u = 1; u <= N1; u++) { /* from 1: u - 1 does not wrap (gcc then waits for it) */
        int i = (int)u - 1;
        busy(i * 7 + r);
        PRAGMA(omp ordered depend(sink : u - 1))
        if (i)
            sink_done(i, i - 1, r, "unsigned long long doacross loop");
        post_at(i, (i ? 3 * v[i - 1] : 7) + i + r, r);
        PRAGMA(omp ordered depend(source))
    }
    PRAGMA(omp single) compare(N1, "unsigned long long doacross loop", r);
}

/* a wavefront: w[i][j] = w[i-1][j] + w[i][j-1] + w[i-1][j+1] + r (mod P), 0 outside the grid. The third
 * sink is past the grid in the last column, a sink OpenMP says to ignore; clang 14's libomp waits for it
 * forever instead (a loop with that sink alone hangs at 2 threads without the shim), so under clang the
 * wavefront has the first two sinks and terms only. */
#ifdef __clang__
#define WAVE_SINK3
#define DIAG 0
#else
#define WAVE_SINK3 depend(sink : i - 1, j + 1)
#define DIAG 1
#endif
#define W(i, j) ((i) >= 0 && (j) >= 0 && (j) < DJ ? v[(i) * DJ + (j)] : 0)
#define WW(i, j) ((i) >= 0 && (j) >= 0 && (j) < DJ ? want[(i) * DJ + (j)] : 0)
static void want_2d(int r)
{
    for (int i = 0; i < DI; i++)
        for (int j = 0; j < DJ; j++)
            want[i * DJ + j] = (WW(i - 1, j) + WW(i, j - 1) + DIAG * WW(i - 1, j + 1) + r + 1) % P;
}

static void wavefront(int r, const char *what, int dynamic)
{
    PRAGMA(omp single) begin(DI * DJ);
#define WAVE_LOOP(...)                                                                                     \
    PRAGMA(omp for ordered(2) __VA_ARGS__)                                                                 \
    for (int i = 0; i < DI; i++)                                                                           \
        for (int j = 0; j < DJ; j++) {                                                                     \
            busy(i * 11 + j + r);                                                                          \
            PRAGMA(omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1) WAVE_SINK3)                 \
            if (i)                                                                                         \
                sink_done(i * DJ + j, (i - 1) * DJ + j, r, what);                                          \
            if (j)                                                                                         \
                sink_done(i * DJ + j, i * DJ + j - 1, r, what);                                            \
            post_at(i * DJ + j, W(i - 1, j) + W(i, j - 1) + DIAG * W(i - 1, j + 1) + r + 1, r);            \
            PRAGMA(omp ordered depend(source))                                                             \
        }
    if (dynamic) {
        WAVE_LOOP(schedule(dynamic))
    } else {
        WAVE_LOOP(schedule(static, 1))
    }
#undef WAVE_LOOP
    PRAGMA(omp single) compare(DI * DJ, what, r);
}

/* three dimensions, the outer two workshared together: x[i][j][k] = x[i-1][j][k] + x[i][j-1][k] +
 * x[i][j][k-1] + r + 1 */
#define X(i, j, k, a) ((i) >= 0 && (j) >= 0 && (k) >= 0 ? a[((i) * TJ + (j)) * TK + (k)] : 0)
static void want_3d(int r)
{
    for (int i = 0; i < TI; i++)
        for (int j = 0; j < TJ; j++)
            for (int k = 0; k < TK; k++)
                want[(i * TJ + j) * TK + k] = (X(i - 1, j, k, want) + X(i, j - 1, k, want) +
                                               X(i, j, k - 1, want) + r + 1) % P;
}

static void cube(int r)
{
    PRAGMA(omp single) begin(TI * TJ * TK);
    PRAGMA(omp for ordered(3) collapse(2) schedule(dynamic))
    for (int i = 0; i < TI; i++)
        for (int j = 0; j < TJ; j++)
            for (int k = 0; k < TK; k++) {
                const int at = (i * TJ + j) * TK + k;
                busy(i + j * 3 + k * 5 + r);
                PRAGMA(omp ordered depend(sink : i - 1, j, k) depend(sink : i, j - 1, k)
                           depend(sink : i, j, k - 1))
                if (i)
                    sink_done(at, at - TJ * TK, r, "collapse(2) ordered(3) doacross loop");
                if (j)
                    sink_done(at, at - TK, r, "collapse(2) ordered(3) doacross loop");
                post_at(at, X(i - 1, j, k, v) + X(i, j - 1, k, v) + X(i, j, k - 1, v) + r + 1, r);
                PRAGMA(omp ordered depend(source))
            }
    PRAGMA(omp single) compare(TI * TJ * TK, "collapse(2) ordered(3) doacross loop", r);
}

/* the loops of many dimensions, n iterations, `inner` per outer index: x_k = 2 x_{k-inner} + x_{k-1} + 1
 * (the terms 0 outside the outer index's range or before its first inner iteration) */
static void want_outer(int n, int inner)
{
    begin(n);
    for (int k = 0; k < n; k++)
        want[k] = (2 * (k >= inner ? want[k - inner] : 0) + (k % inner ? want[k - 1] : 0) + 1) % P;
}

/* seven dimensions (3 x 2^6 iterations, k their position in order): x_k = 2 x_{k'} + x_{k-1} + 1 where k'
 * is the same inner indices one outer index before (0 outside) */
static void seven(int r)
{
    PRAGMA(omp single) want_outer(SEVEN, 64);
    PRAGMA(omp for ordered(7) schedule(static, 1))
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 2; c++)
                for (int d = 0; d < 2; d++)
                    for (int e = 0; e < 2; e++)
                        for (int f = 0; f < 2; f++)
                            for (int g = 0; g < 2; g++) {
                                const int k = a * 64 + b * 32 + c * 16 + d * 8 + e * 4 + f * 2 + g;
                                busy(k + r);
                                PRAGMA(omp ordered depend(sink : a - 1, b, c, d, e, f, g))
                                if (a)
                                    sink_done(k, k - 64, r, "ordered(7) doacross loop");
                                post_at(k, 2 * (a ? v[k - 64] : 0) + (k & 63 ? v[k - 1] : 0) + 1, r);
                                PRAGMA(omp ordered depend(source))
                            }
    PRAGMA(omp single) compare(SEVEN, "ordered(7) doacross loop", r);
}

/* nine dimensions of 2 (k their position): x_k = 2 x_{k-256} + x_{k-1} + 1 within the same outer index; a
 * loop past the shim's AG_DX_MAX_DIMS, so libgomp's under it too: its waits passed on with all nine */
#define FOR2(x) for (int x = 0; x < 2; x++)
static void nine(int r)
{
    PRAGMA(omp single) want_outer(NINE, 256);
    PRAGMA(omp for ordered(9) schedule(static, 1))
    FOR2(a) FOR2(b) FOR2(c) FOR2(d) FOR2(e) FOR2(f) FOR2(g) FOR2(h) FOR2(l) {
        const int k = (((((((a * 2 + b) * 2 + c) * 2 + d) * 2 + e) * 2 + f) * 2 + g) * 2 + h) * 2 + l;
        busy(k + r);
        PRAGMA(omp ordered depend(sink : a - 1, b, c, d, e, f, g, h, l))
        if (a)
            sink_done(k, k - 256, r, "ordered(9) doacross loop");
        post_at(k, 2 * (a ? v[k - 256] : 0) + (k & 255 ? v[k - 1] : 0) + 1, r);
        PRAGMA(omp ordered depend(source))
    }
    PRAGMA(omp single) compare(NINE, "ordered(9) doacross loop", r);
}

/* A team that libgomp enters without the shim (a task reduction: GOMP_parallel_reductions), of two,
 * started inside an iteration of a team of one's doacross loop (whose waits the shim skips: every sink
 * has run), by the thread that runs both: its loop, begun through either of gcc's entries (the specific
 * one, or the generic one a task reduction on the loop takes), must wait for real. x[i] = 3 x[i-1] + i + r
 * (mod P), iteration i checking that i-1 has posted. */
static atomic_int in_posted[N1];
static long in_v[N1], in_red, in_sum; /* the reductions' variables (only their entry points matter) */

#define INNER_LOOP(r, what, ...)                                                                           \
    do {                                                                                                   \
        PRAGMA(omp for ordered(1) schedule(static, 1) __VA_ARGS__)                                         \
        for (int i = 0; i < N1; i++) {                                                                     \
            busy(i * 3 + (r));                                                                             \
            PRAGMA(omp ordered depend(sink : i - 1))                                                       \
            if (i && LD(in_posted[i - 1]) != (r))                                                          \
                fail("%s, round %d: iteration %d passed its sink %d, which had not posted", what, r, i,    \
                     i - 1);                                                                               \
            in_v[i] = ((i ? 3 * in_v[i - 1] : 7) + i + (r)) % P;                                           \
            atomic_store(&in_posted[i], r);                                                                \
            PRAGMA(omp ordered depend(source))                                                             \
        }                                                                                                  \
    } while (0)

/* the team of two inside `outer`'s loop, its one loop begun through the specific entry or (task) the
 * generic one */
static void inner_team(int r, int task, const char *outer)
{
    char team[120], loop[160], tloop[180];
    snprintf(team, sizeof team, "team of two inside %s doacross loop", outer);
    snprintf(loop, sizeof loop, "doacross loop in a team of two inside %s", outer);
    snprintf(tloop, sizeof tloop, "task-reduction doacross loop in a team of two inside %s", outer);
    for (int k = 0; k < N1; k++)
        atomic_store(&in_posted[k], -1);
    PRAGMA(omp parallel num_threads(2) reduction(task, + : in_red))
    {
        team_size(2, team);
        if (task)
            INNER_LOOP(r, tloop, reduction(task, + : in_sum));
        else
            INNER_LOOP(r, loop);
    }
    long x = 0;
    for (int i = 0; i < N1; i++)
        if (in_v[i] != (x = ((i ? 3 * x : 7) + i + r) % P))
            fail("nested doacross loop, round %d: item %d is %ld, not %ld as run in order", r, i, in_v[i],
                 x);
}

/* `outer`'s own loop (a team of one's, or a team's the shim serves: its posts the shim's), whose iteration
 * N1 / 2 starts that team (only one: in a team of one a second one in the same loop would find the shim's
 * mark cleared by the first). In the served team the nested loop's posts and waits are libgomp's, found
 * by their level once its start has marked the outer loop (AG_DX_NESTED): without that they would read
 * the outer loop's posts. */
static void host(int r, int task, const char *outer)
{
    PRAGMA(omp single)
    {
        begin(N1);
        want_1d(r);
    }
    PRAGMA(omp for ordered(1) schedule(dynamic, 2))
    for (int i = 0; i < N1; i++) {
        PRAGMA(omp ordered depend(sink : i - 1))
        if (i)
            sink_done(i, i - 1, r, outer);
        if (i == N1 / 2)
            inner_team(2 * r + task, task, outer);
        post_at(i, (i ? 3 * v[i - 1] : 7) + i + r, r);
        PRAGMA(omp ordered depend(source))
    }
    PRAGMA(omp single)
    compare(N1, outer, r);
}

static void rounds(void)
{
    for (int r = 0; r < DXR; r++) {
        PRAGMA(omp single) want_1d(r);
        loops_1d(r);
        PRAGMA(omp single) want_2d(r);
        wavefront(r, "static,1 wavefront", 0);
        wavefront(r, "dynamic wavefront", 1);
        PRAGMA(omp single) want_3d(r);
        cube(r);
        seven(r);
        nine(r);
    }
}

int case_doacross(void)
{
    omp_set_schedule(omp_sched_dynamic, 2);
    PRAGMA(omp parallel)
    rounds();
    PRAGMA(omp parallel num_threads(1)) /* the same loops in a team of one, then the nested team */
    {
        rounds();
        for (int r = 0; r < DXR; r++)
            host(r, 0, "a team of one's"), host(r, 1, "a team of one's");
    }
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2); /* the nested team of two inside a team of the default size */
    PRAGMA(omp parallel)
    for (int r = 0; r < DXR; r++)
        host(r, 0, "a served team's"), host(r, 1, "a served team's");
    omp_set_max_active_levels(levels);
    return report("doacross", "rounds %d loops 13 in teams of the default size and of one, 4 with a team of"
                  " two inside (in a team of one, in one of the default size), iterations %d..%d each once,"
                  " in dependence order", DXR, N1, NINE);
}
