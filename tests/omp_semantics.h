/* omp_semantics.h — the checking framework of the OpenMP semantics test, shared by its five files of
 * cases: omp_semantics.c (the framework, worksharing, nesting and concurrent teams, main),
 * omp_semantics_tasks.c (tasks, cancellation, team sizes, orphaned constructs, regions, pauses, teams of one,
 * host teams), omp_semantics_target.c (host target constructs), omp_semantics_doacross.c (doacross
 * loops) and omp_semantics_scan.c (scans, copyin, conditional lastprivate).
 * omp_semantics.c's head comment says what is checked and how. */
#ifndef OMP_SEMANTICS_H
#define OMP_SEMANTICS_H

#include <omp.h>
#include <stdatomic.h>

#define PRAGMA(x) _Pragma(#x)
#define EXPECT(c, ...) do { if (!(c)) fail(__VA_ARGS__); } while (0)
#define LD(x) atomic_load(&(x))
enum { MAXT = 64, PH = 100, NI = 64, RR = 32 };

/* the first failure's text and the number of failed checks, per case; report() prints the case's line
 * and returns 1 if it failed */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int report(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a[i] == base + i for i < n: what the construct's threads or tasks wrote, read after the barrier */
void expect_seq(atomic_int *a, int n, int base, const char *what, int r);
/* c[i] == want for i < n: each body ran exactly once per round */
void expect_count(atomic_int *c, int n, int want, const char *what);

/* the barrier board of one team */
struct board {
    const char *what;
    atomic_int slot[2][MAXT];
};
void board_reset(struct board *b, const char *what);
static inline void stamp(struct board *b, int t, int p) { atomic_store(&b->slot[p & 1][t], p); }
void check(struct board *b, int t, int n, int p);
/* stamp, barrier, check, with the barrier lexically in the caller's region */
#define PHASE(b, t, n, p) do { stamp(b, t, p); PRAGMA(omp barrier) check(b, t, n, p); } while (0)

int team_size(int want, const char *what);
void phases(struct board *b, int np);
/* a region of n threads (the num_threads clause) doing np barriers */
void team(struct board *b, const char *what, int n, int np);
static inline void busy(int k) { for (volatile int i = 0; i < 200 * (k % 7 + 1); i++) { } }

/* worksharing loops: every iteration once (hit), its value readable by all after the loop's barrier */
extern atomic_int hit[NI], val[2][NI];
void loop_body(int s, int i);
#define LOOP_CHECK(s, what) do { expect_seq(val[(s) & 1], NI, (s) * NI, what, s); (s)++; } while (0)
#define WS_LOOP(s, what, ...) do { PRAGMA(omp for __VA_ARGS__) for (int i = 0; i < NI; i++) loop_body(s, i); \
        LOOP_CHECK(s, what); } while (0)
#define WS_LOOP_NOWAIT(s, what, ...) do { PRAGMA(omp for nowait __VA_ARGS__) for (int i = 0; i < NI; i++) \
        loop_body(s, i); PRAGMA(omp barrier) LOOP_CHECK(s, what); } while (0)

/* the cases of omp_semantics_tasks.c, omp_semantics_target.c, omp_semantics_doacross.c and
 * omp_semantics_scan.c */
int case_tasks(void), case_taskhelp(void), case_undeferred(void), case_detach(void),
    case_taskmemory(void), case_cancel(void), case_target(void), case_numthreads(void),
    case_orphan(void), case_regions(void), case_pause(void), case_one(void), case_hostteams(void),
    case_doacross(void), case_scan(void);

#endif
