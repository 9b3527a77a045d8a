/* tsan_handoff.c — built with -fsanitize=thread against a libandgate built WITHOUT it: data handed
 * over through the barrier must not be reported (libandgate annotates its edges for TSan), and a real
 * race in the same program must still be. Usage: tsan_handoff clean|race */
#include <andgate.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { N = 3, EPISODES = 200 };
static ag_barrier_t *bar;
static long data[2][N]; /* plain, double-buffered by episode parity */
static long shared;     /* "race" mode: written by two threads with no barrier in between */
static int racy;

static void *run(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    long sum = 0;
    for (int k = 0; k < EPISODES; k++) {
        data[k & 1][tid] = k * N + tid;
        if (racy && tid < 2)
            shared++; /* both threads 0 and 1, in the same episode: a real race */
        ag_barrier_wait(bar, tid);
        for (int j = 0; j < N; j++)
            sum += data[k & 1][j];
    }
    return (void *)sum;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && !strcmp(argv[1], "race");
    ag_config_t cfg = { .nthreads = N, .algo = "dissemination", .wait = "auto" };
    if (ag_barrier_init(&bar, &cfg))
        return 2;
    pthread_t th[N];
    for (size_t t = 0; t < N; t++)
        pthread_create(&th[t], NULL, run, (void *)t);
    for (size_t t = 0; t < N; t++)
        pthread_join(th[t], NULL);
    ag_barrier_destroy(bar);
    printf("%s mode done\n", racy ? "race" : "clean");
    return 0;
}
