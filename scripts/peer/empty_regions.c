/* empty_regions.c — what a parallel region with nothing in it costs, with serial work between regions
 * (the shape of a program that launches one short region at a time, as Numba's OpenMP layer does;
 * docs/results.md, twenty-sixth part). Each thread stores to its own line; GAP iterations of a serial
 * floating-point loop follow each region in the master. bench/omp_constructs.c's `parallel` row (andgate
 * bench --preload) times back-to-back regions the EPCC way; this one is a standalone program to run under
 * other interposers beside the shim, with the serial gap a launcher such as Numba leaves.
 *   gcc -O2 -fopenmp scripts/peer/empty_regions.c -o empty-gcc
 *   clang -O2 -fopenmp=libomp scripts/peer/empty_regions.c -o empty-clang
 *   OMP_NUM_THREADS=2 ./empty-gcc [REGIONS=100000 [GAP=0]]   prints µs a region and a checksum */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static volatile double sink;

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000, gap = argc > 2 ? atoi(argv[2]) : 0;
    static double line[64][8]; /* a line a thread */
    double t = now();
    for (int k = 0; k < n; k++) {
#pragma omp parallel
        {
            int i = omp_get_thread_num();
            if (i < 64)
                line[i][0] += 1.0;
        }
        double s = 0;
        for (int j = 0; j < gap; j++)
            s += j * 0.5;
        sink = s;
    }
    double sum = 0;
    for (int i = 0; i < 64; i++)
        sum += line[i][0];
    printf("%.3f us/region checksum %.0f\n", (now() - t) / n * 1e6, sum);
    return 0;
}
