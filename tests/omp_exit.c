/* omp_exit.c — a process that ends while its teams are in barriers, and regions run where a program's
 * start and end run code: a constructor (before main) and an atexit handler (after exit). Run by
 * omp_exit.sh with and without libandgate-preload.so; the output and the exit status must be the same.
 * EXIT_MODE picks how the process ends, in the middle of 2000 regions of barriers and a loop:
 *   0  main returns: the atexit handler's regions run after main
 *   1  a worker calls exit(3) between two barriers, its team waiting for it in the next one; the
 *      handler's regions run in that worker, inside the region (nested)
 *   2  the master calls exit(4) there, the workers waiting in the barrier
 *   3  a thread calls _exit(5) inside a worksharing loop (no handlers)
 *   4  the master sleeps 300 ms first, long enough for every waiting thread to have stopped spinning and
 *      gone to sleep in the barrier (either runtime's or the shim's budget), then calls exit(6)
 * Error paths of real programs end this way; a barrier whose waiters outlive its process's exit must not
 * turn exit(3) into a crash or a hang. */
#define _DEFAULT_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int mode;

static void at_exit_regions(void)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 1000; i++)
        s += i;
    int n = 0;
#pragma omp parallel reduction(+ : n)
    {
#pragma omp barrier
        n = 1;
    }
    printf("atexit: sum %.0f, a team ran %d\n", s, n > 0);
}

__attribute__((constructor)) static void before_main(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    {
        n = 1;
#pragma omp barrier
    }
    printf("constructor: a team ran %d\n", n > 0);
}

static void leave(int tid, int r)
{
    if (r != 1500)
        return;
    if (mode == 1 && tid == 1) {
        printf("worker exits 3\n");
        fflush(stdout);
        exit(3);
    }
    if (mode == 2 && tid == 0) {
        printf("master exits 4\n");
        fflush(stdout);
        exit(4);
    }
    if (mode == 4 && tid == 0) {
        usleep(300 * 1000);
        printf("master exits 6 after a sleep\n");
        fflush(stdout);
        exit(6);
    }
}

int main(void)
{
    const char *m = getenv("EXIT_MODE");
    mode = m ? atoi(m) : 0;
    atexit(at_exit_regions);
    long sum = 0;
    for (int r = 0; r < 2000; r++) {
#pragma omp parallel reduction(+ : sum)
        {
#pragma omp barrier
            leave(omp_get_thread_num(), r);
#pragma omp for
            for (int i = 0; i < 100; i++) {
                if (mode == 3 && r == 1000 && i == 99) {
                    printf("_exit 5 in a loop\n");
                    fflush(stdout);
                    _exit(5);
                }
                sum += i;
            }
#pragma omp barrier
        }
    }
    printf("main: sum %ld\n", sum);
    return 0;
}
