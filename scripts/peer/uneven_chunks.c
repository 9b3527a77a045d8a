/* uneven_chunks.c — a `schedule(dynamic, 1)` loop of six chunks of very uneven cost (60, 12, 25, 1, 2
 * and 6 units), the shape of CP2K's grid loops over atom-pair blocks (docs/results.md, thirtieth part):
 * three chunks a thread at 2 threads, where the first runs of a stealing split decide most of it. The
 * best split is the costliest chunk against the rest, 60 units; a region takes about 0.2 ms on the
 * development VM at that split.
 *   gcc -O2 -fopenmp scripts/peer/uneven_chunks.c -o uneven-gcc
 *   clang -O2 -fopenmp=libomp scripts/peer/uneven_chunks.c -o uneven-clang
 *   OMP_NUM_THREADS=2 ./uneven-gcc [REGIONS=2000]     prints ms a region and a checksum */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int units)
{
    double x = 1;
    for (int i = 0; i < units * 2000; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    static const int cost[] = { 60, 12, 25, 1, 2, 6 };
    const int nb = (int)(sizeof cost / sizeof *cost), regions = argc > 1 ? atoi(argv[1]) : 2000;
    if (regions < 1) {
        fprintf(stderr, "usage: uneven [REGIONS >= 1]\n");
        return 2;
    }
    double t0 = omp_get_wtime(), sum = 0;
    for (int r = 0; r < regions; r++) {
#pragma omp parallel reduction(+ : sum)
        {
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < nb; b++)
                sum += work(cost[b]);
        }
    }
    printf("%.3f ms a region, checksum %.6e\n", (omp_get_wtime() - t0) * 1e3 / regions, sum / regions);
    return 0;
}
