/* preload_omp.c — an OpenMP program with explicit barriers (built with gcc: GOMP_barrier) or with
 * worksharing loops and their implicit barriers (built with clang: __kmpc_barrier). Its output is a
 * deterministic function of the input; it must be identical with and without libandgate-preload.so.
 * A wrong barrier shows up as a different checksum: each step reads what the previous step wrote on
 * other threads. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, STEPS = 3000 };
static double a[N], b[N];

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (double)(i % 97) / 97.0;
#ifdef EXPLICIT
#pragma omp parallel
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int s = 0; s < STEPS; s++) {
            for (int i = t; i < N; i += n) /* each thread its own stripe, reading neighbours' */
                b[i] = 0.25 * a[(i + N - 1) % N] + 0.5 * a[i] + 0.25 * a[(i + 1) % N];
#pragma omp barrier
            for (int i = t; i < N; i += n)
                a[i] = b[(i + 7) % N];
#pragma omp barrier
        }
    }
#else
    for (int s = 0; s < STEPS / 10; s++) {
#pragma omp parallel
        for (int r = 0; r < 10; r++) {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                b[i] = 0.25 * a[(i + N - 1) % N] + 0.5 * a[i] + 0.25 * a[(i + 1) % N];
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                a[i] = b[(i + 7) % N];
        }
    }
#endif
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += a[i] * (double)(i + 1);
    printf("checksum %.17g\n", sum);
    return 0;
}
