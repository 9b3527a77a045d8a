/* hello.c — the README example: four threads, one andgate barrier, 1000 episodes. */
#include <andgate.h>
#include <pthread.h>
#include <stdio.h>

enum { N = 4, EPISODES = 1000 };
static ag_barrier_t *bar;
static long sum[N];

static void *work(void *arg)
{
    unsigned tid = (unsigned)(size_t)arg;
    for (int k = 0; k < EPISODES; k++) {
        sum[tid] += k;                              /* this thread's part of the step */
        if (ag_barrier_wait(bar, tid) == AG_SERIAL) /* exactly one thread per episode */
            if (k == EPISODES - 1)
                printf("last step done: %ld\n", sum[0] + sum[1] + sum[2] + sum[3]);
    }
    return NULL;
}

int main(void)
{
    ag_config_t cfg = { .nthreads = N, .algo = "auto", .wait = "auto" };
    int err = ag_barrier_init(&bar, &cfg);
    if (err) return fprintf(stderr, "andgate: %s\n", ag_strerror(err)), 1;
    printf("using %s\n", ag_barrier_describe(bar));
    pthread_t th[N];
    for (unsigned t = 0; t < N; t++) pthread_create(&th[t], NULL, work, (void *)(size_t)t);
    for (unsigned t = 0; t < N; t++) pthread_join(th[t], NULL);
    return ag_barrier_destroy(bar);
}
