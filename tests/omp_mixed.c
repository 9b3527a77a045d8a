/* omp_mixed.c — a process with both OpenMP runtimes in the global scope, libgomp's first: a clang/libomp
 * program linked with -lgomp ahead of libomp (as a program using a gcc-built OpenMP library is, e.g.
 * Debian's libfftw3_omp), and such a library's libgomp team (built with -DMIXED_LIB). Both runtimes
 * define the same omp_* routines; the program's calls bind to libgomp's, each runtime reads its own. The
 * shim must ask each runtime's own (scope.h, ag_scope_runtime_sym): when its __kmpc side read libgomp's
 * omp_get_schedule, libomp's schedule(runtime) loops were split by the schedule the program had set in
 * libgomp, where libomp alone splits them by its own (static). Prints what must not change under the
 * shim: the libomp team's sum, how often a schedule(runtime) loop's owner
 * changes between consecutive iterations (a static split: threads - 1), and the libgomp team's sum
 * (whose team of the same size and level shares the libomp team's barrier: team.h). Threads are told apart by
 * gettid(): this program's omp_get_thread_num() is libgomp's, 0 in libomp's threads. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#ifdef MIXED_LIB
long omp_mixed_gomp(int rounds)
{
    long s = 0;
#pragma omp parallel reduction(+ : s)
    for (int i = 0; i < rounds; i++) {
        s += (i % 5) + 1;
#pragma omp barrier
    }
    return s;
}
#else
long omp_mixed_gomp(int rounds);

enum { N = 96 };

int main(void)
{
    omp_set_schedule(omp_sched_dynamic, 1); /* libgomp's: the program's omp_* calls bind there */
    pid_t owner[N], first = gettid();
    long s = 0;
#pragma omp parallel reduction(+ : s)
    {
        pid_t me = gettid();
        for (int i = 0; i < 2000; i++) {
            s += (i % 3) + 1;
#pragma omp barrier
        }
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++) {
            owner[i] = me;
            if (i % 8 == 0)
                usleep(me == first ? 100 : 300); /* a dynamic split would hand out chunks unevenly */
        }
    }
    int changes = 0;
    for (int i = 1; i < N; i++)
        changes += owner[i] != owner[i - 1];
    printf("libomp team: %ld\nschedule(runtime) owner changes: %d\n", s, changes);
    printf("libgomp team: %ld\n", omp_mixed_gomp(2000));
    return 0;
}
#endif
