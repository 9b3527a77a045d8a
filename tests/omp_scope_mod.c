/* omp_scope_mod.c — an OpenMP module for omp_scope.c, built as a shared object against one runtime
 * (libgomp, libomp, or gcc's code linked with libomp) and opened by a program that has none: its calls
 * reach the shim first and must go on to this module's runtime (src/preload/scope.h). With -DNO_RUNTIME
 * and no -fopenmp: a module that calls an entry point with no runtime to bind it to. */
#ifndef NO_RUNTIME
#include <omp.h>

#define N 1000
#define MAXT 64

/* reps regions, each with a static loop, a dynamic loop, a single, sections, a task and barriers whose
 * phases every thread checks; the sum is 1,498,504 per region whatever the team (bad phases add 1e9) */
long scope_run(int reps)
{
    long total = 0;
    for (int r = 0; r < reps; r++) {
        long sum = 0, bad = 0;
        int phase[MAXT] = { 0 }, single = 0, sections = 0, task = 0;
#pragma omp parallel reduction(+ : sum, bad)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                sum += i;
#pragma omp for schedule(dynamic, 7)
            for (int i = 0; i < N; i++)
                sum += 2 * i;
#pragma omp single
            single++;
#pragma omp sections
            {
#pragma omp section
                {
#pragma omp atomic
                    sections++;
                }
#pragma omp section
                {
#pragma omp atomic
                    sections++;
                }
            }
            for (int k = 0; k < 20 && n <= MAXT; k++) { /* no thread leaves a phase before all reached it */
#pragma omp atomic
                phase[t]++;
#pragma omp barrier
                for (int u = 0; u < n; u++) {
                    int p;
#pragma omp atomic read
                    p = phase[u];
                    bad += p < k + 1;
                }
#pragma omp barrier
            }
#pragma omp single
            {
#pragma omp task
                task++;
            }
        }
        total += sum + single + sections + task + bad * 1000000000L;
    }
    return total;
}

#else
/* built without -fopenmp and linked with no runtime: a call the dynamic linker cannot bind */
void GOMP_barrier(void);
long scope_run(int reps)
{
    for (int r = 0; r < reps; r++)
        GOMP_barrier();
    return 0;
}
#endif
