/* quickloop.c — a quick back-to-back loop, not the benchmark: two (or N) pinned threads run E episodes
 * of each algorithm's default spec with one wait policy, and of pthread_barrier_wait, and print the mean
 * time per episode. The proper measurement (per-episode latency, EPCC overhead, jitter, baselines, the
 * core-to-core limit) is `andgate bench`.
 *
 * usage: quickloop [nthreads=2] [episodes=200000] [wait=pause]
 */
#define _GNU_SOURCE
#include <andgate.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned n, episodes;
static ag_barrier_t *bar;
static pthread_barrier_t pbar;
static int use_pthread;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *loop(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(tid % (unsigned)sysconf(_SC_NPROCESSORS_ONLN), &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    for (unsigned k = 0; k < episodes; k++)
        if (use_pthread)
            pthread_barrier_wait(&pbar);
        else
            ag_barrier_wait(bar, tid);
    return NULL;
}

static double run(void)
{
    pthread_t th[256];
    double t0 = now();
    for (unsigned t = 0; t < n; t++)
        pthread_create(&th[t], NULL, loop, (void *)(size_t)t);
    for (unsigned t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    return (now() - t0) / episodes * 1e9;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    episodes = argc > 2 ? (unsigned)atoi(argv[2]) : 200000;
    const char *wait = argc > 3 ? argv[3] : "pause";
    if (n < 1 || n > 256)
        return fprintf(stderr, "nthreads must be 1..256\n"), 2;
    static const char *const algos[] = { "central", "counting", "ticket", "linear", "combining", "mcs",
                                         "tournament", "stour", "dtour", "dissemination", "hybrid" };
    printf("%u threads, %u episodes, wait=%s (mean ns per episode, including thread start-up)\n", n,
           episodes, wait);
    pthread_barrier_init(&pbar, NULL, n);
    use_pthread = 1;
    double base = run();
    printf("  %-44s %8.0f ns\n", "pthread_barrier_wait (glibc)", base);
    use_pthread = 0;
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        ag_config_t cfg = { .nthreads = n, .algo = algos[i], .wait = wait };
        int err = ag_barrier_init(&bar, &cfg);
        if (err) {
            printf("  %-44s %s\n", algos[i], ag_strerror(err));
            continue;
        }
        double ns = run();
        printf("  %-44s %8.0f ns  (%.1fx faster than pthread)\n", ag_barrier_describe(bar), ns, base / ns);
        ag_barrier_destroy(bar);
    }
    pthread_barrier_destroy(&pbar);
    return 0;
}
