/* barrier_profile.c — libandgate-profile.so: where an OpenMP program's barrier time goes.
 *
 * Preloaded in front of the program's runtime (libgomp or libomp), alone or before
 * libandgate-preload.so, it wraps the two entry points through which compiled code enters an explicit
 * or implicit barrier — GOMP_barrier (gcc) and __kmpc_barrier (clang) — stamps every call on entry and
 * on return, and at exit prints one line per runtime entry point it saw:
 *
 *   andgate-profile: GOMP_barrier, 2 threads, 512004 episodes over 1.639 s: arrival spread 630 ns,
 *   hand-off 185 ns (last departure 227 ns) per episode (means; medians 220 / 151 / 180); hand-off on
 *   the critical path 0.116 s = 7.1% of the span
 *
 * Arrival spread: last arrival minus first, the threads' imbalance: the program's own, plus the skew
 * the previous episode's departures left (a barrier whose last arriver leaves late, after a wake-up
 * system call say, shows here in the next episode). Hand-off: a thread's return minus the last arrival,
 * what the barrier itself costs; the last departure is the slowest thread's. Summed over the episodes,
 * the last departures are the hand-off's share of the span: what a barrier that handed off in no time
 * would have saved, besides the departure skew it would also take out of the next arrivals.
 * This is the measurement behind docs/results.md's per-episode decomposition (docs/bench.md).
 *
 * Scope, stated so a reader knows what is not counted: only the threads of teams at nesting level 1,
 * only while the team size stays the first one seen, only the first ANDGATE_PROFILE_EPISODES episodes
 * (default 2^20; ANDGATE_PROFILE_DUMP=FILE writes them out, dump below); barriers the runtime runs
 * internally (a clang reduction's, a region's join, a dynamic loop's end under gcc) do not pass through
 * these two entry points. Episode k of thread t is
 * thread t's k-th call: every thread of a team calls every barrier of its region, so the k-th calls of
 * all tids are the same episode, whichever pthread held the tid in which region (a region's fork and
 * join order the counter's owners). The clock is CLOCK_MONOTONIC (vDSO, ~20 ns a read), the same for
 * every runtime measured.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "now.h"   /* ag_now_ns: the library's CLOCK_MONOTONIC reader, header-only */

enum { MAX_THREADS = 256, DEFAULT_EPISODES = 1 << 20, MAX_EPISODES = 1 << 26 };

struct stamp { uint64_t in, out; };

/* One wrapped entry point. stamps[t * episodes + k] is thread t's k-th call; count[t] its calls. */
struct site {
    const char *name;
    void *next;                      /* the runtime's (or the shim's) entry point, RTLD_NEXT */
    _Atomic int team;                /* the team size recorded: 0 none yet, CLAIMING, STOPPED (below) */
    struct stamp *stamps;
    struct { _Alignas(64) long n; } count[MAX_THREADS];   /* a line each: no traffic of its own */
};

static struct site gomp_site = { .name = "GOMP_barrier" }, kmp_site = { .name = "__kmpc_barrier" };
static long episodes_max = DEFAULT_EPISODES;
static int (*thread_num)(void), (*num_threads)(void), (*level)(void);

/* thread t's k-th recorded call */
static struct stamp *at(const struct site *s, int t, long k) {
    return &s->stamps[(size_t)t * (size_t)episodes_max + (size_t)k];
}

__attribute__((constructor)) static void setup(void) {
    /* every library is loaded before the first constructor runs: the runtime's (or the shim's) entry
     * points are there now if the program has a runtime at all, and only then are ours ever called.
     * A process without one (timeout, a shell in front of the program) stays silent. */
    gomp_site.next = dlsym(RTLD_NEXT, "GOMP_barrier");
    kmp_site.next = dlsym(RTLD_NEXT, "__kmpc_barrier");
    thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
    num_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads");
    level = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_level");
    const char *e = getenv("ANDGATE_PROFILE_EPISODES");
    if (!e || !*e || (!gomp_site.next && !kmp_site.next)) return;
    char *end;
    errno = 0;
    long v = strtol(e, &end, 10);
    if (errno || *end || v < 1 || v > MAX_EPISODES)
        fprintf(stderr, "andgate-profile: ANDGATE_PROFILE_EPISODES wants 1..%d, not '%s'; using %d\n", MAX_EPISODES,
                e, DEFAULT_EPISODES);
    else
        episodes_max = v;
}

/* The first call of a site at level 1 claims its stamp array for that team size (0 -> CLAIMING ->
 * n); a later team of another size stops the recording (its episodes could not be paired with the
 * first team's). The array is reserved, not committed: only the pages of recorded episodes are
 * touched. The release that stores n publishes s->stamps to the acquire in every other thread. */
enum { CLAIMING = -2, STOPPED = -1 };

static int recording(struct site *s, int n) {
    int team = atomic_load_explicit(&s->team, memory_order_acquire);
    if (team == 0 && n >= 2 && n <= MAX_THREADS &&
        atomic_compare_exchange_strong_explicit(&s->team, &team, CLAIMING, memory_order_acquire,
                                                memory_order_acquire)) {
        size_t bytes = (size_t)n * (size_t)episodes_max * sizeof(struct stamp);
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        s->stamps = p == MAP_FAILED ? NULL : p;
        team = p == MAP_FAILED ? STOPPED : n;
        atomic_store_explicit(&s->team, team, memory_order_release);
    }
    while (team == CLAIMING) team = atomic_load_explicit(&s->team, memory_order_acquire);
    if (team > 0 && team != n) atomic_store_explicit(&s->team, team = STOPPED, memory_order_relaxed);
    return team == n;
}

struct pending { int rec, t; uint64_t in; };

static struct pending enter(struct site *s) {
    if (!s->next || !thread_num || !num_threads || !level) {
        fprintf(stderr, "andgate-profile: %s called, but no OpenMP runtime's was found at load\n", s->name);
        abort();
    }
    struct pending p = { .t = thread_num() };
    p.rec = level() == 1 && p.t >= 0 && p.t < MAX_THREADS && recording(s, num_threads());
    p.in = ag_now_ns();
    return p;
}

static void leave(struct site *s, struct pending p) {
    uint64_t out = ag_now_ns();
    if (!p.rec) return;
    long k = s->count[p.t].n++;
    if (k < episodes_max) *at(s, p.t, k) = (struct stamp){ p.in, out };
}

void GOMP_barrier(void) {
    struct pending p = enter(&gomp_site);
    ((void (*)(void))gomp_site.next)();
    leave(&gomp_site, p);
}

void __kmpc_barrier(void *loc, int gtid) {
    struct pending p = enter(&kmp_site);
    ((void (*)(void *, int))kmp_site.next)(loc, gtid);
    leave(&kmp_site, p);
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median(uint64_t *v, long n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* ANDGATE_PROFILE_DUMP=FILE: every recorded episode as a line of the file, for a look at one barrier of
 * a program's cycle (scripts/profile_phases.py): the episode, then each thread's entry and return in ns
 * from the first entry, after a '#' line naming the entry point and the team. A second entry point seen
 * (a process with both runtimes) is appended. A file that cannot be written: one message, no dump. */
static void dump(const struct site *s, int n, long e, uint64_t t0) {
    static int opened;
    const char *path = getenv("ANDGATE_PROFILE_DUMP");
    if (!path || !*path) return;
    FILE *f = fopen(path, opened++ ? "a" : "w");
    if (!f) {
        fprintf(stderr, "andgate-profile: ANDGATE_PROFILE_DUMP: cannot write '%s'\n", path);
        return;
    }
    fprintf(f, "# %s, %d threads, %ld episodes: episode, then each thread's entry and return (ns)\n",
            s->name, n, e);
    for (long k = 0; k < e; k++) {
        fprintf(f, "%ld", k);
        for (int t = 0; t < n; t++)
            fprintf(f, " %llu %llu", (unsigned long long)(at(s, t, k)->in - t0),
                    (unsigned long long)(at(s, t, k)->out - t0));
        fputc('\n', f);
    }
    if (fclose(f))
        fprintf(stderr, "andgate-profile: ANDGATE_PROFILE_DUMP: cannot write '%s'\n", path);
}

/* the episodes every thread recorded, as three per-episode series: arrival spread, mean hand-off,
 * last departure (all after the last arrival) */
static void report(const struct site *s) {
    int n = atomic_load_explicit(&s->team, memory_order_acquire);
    if (n == STOPPED) fprintf(stderr, "andgate-profile: %s: the team size changed, recording stopped\n", s->name);
    if (n < 2 || !s->stamps) return;
    long e = episodes_max;
    for (int t = 0; t < n; t++) e = s->count[t].n < e ? s->count[t].n : e;
    if (e < 1) return;
    uint64_t *series = malloc(3 * (size_t)e * sizeof *series);
    if (!series) return;
    uint64_t *spread = series, *hand = series + e, *last_dep = series + 2 * e, span_end = 0;
    double sum[3] = { 0, 0, 0 };
    for (long k = 0; k < e; k++) {
        uint64_t first = UINT64_MAX, last = 0, out_sum = 0, out_max = 0;
        for (int t = 0; t < n; t++) {
            const struct stamp *st = at(s, t, k);
            first = st->in < first ? st->in : first;
            last = st->in > last ? st->in : last;
        }
        for (int t = 0; t < n; t++) {   /* a thread returns after the last arrival: that is a barrier */
            uint64_t out = at(s, t, k)->out;
            uint64_t d = out > last ? out - last : 0;
            out_sum += d;
            out_max = d > out_max ? d : out_max;
            span_end = out > span_end ? out : span_end;
        }
        spread[k] = last - first, hand[k] = out_sum / (uint64_t)n, last_dep[k] = out_max;
        sum[0] += (double)spread[k], sum[1] += (double)hand[k], sum[2] += (double)last_dep[k];
    }
    uint64_t span_start = UINT64_MAX;
    for (int t = 0; t < n; t++) {
        uint64_t in = at(s, t, 0)->in;
        span_start = in < span_start ? in : span_start;
    }
    double span = (double)(span_end - span_start);
    dump(s, n, e, span_start);
    fprintf(stderr,
            "andgate-profile: %s, %d threads, %ld episodes over %.3f s: arrival spread %.0f ns, hand-off %.0f ns "
            "(last departure %.0f ns) per episode (means; medians %.0f / %.0f / %.0f); hand-off on the critical "
            "path %.3f s = %.1f%% of the span\n",
            s->name, n, e, span / 1e9, sum[0] / (double)e, sum[1] / (double)e, sum[2] / (double)e,
            median(spread, e), median(hand, e), median(last_dep, e), sum[2] / 1e9, 100.0 * sum[2] / span);
    free(series);
}

__attribute__((destructor)) static void report_all(void) {
    report(&gomp_site);
    report(&kmp_site);
}
