/* blas_single.c — a team whose `single` calls a threaded BLAS while the rest of the team waits in the
 * barrier after it, then a worksharing loop: the shape of a solver that does its dense algebra in one
 * thread of an OpenMP region (CP2K's Debian build, OpenMP plus OpenBLAS's pthread build, is another;
 * docs/results.md, thirtieth part). OpenBLAS's own worker thread wants a CPU whenever the `single` runs,
 * and the CPUs are held by the team: by the executing thread and by a waiter that spins. What happens
 * then is the waiter's policy: it keeps its CPU until the scheduler's slice ends, or gives it away.
 *   gcc -O2 -fopenmp scripts/peer/blas_single.c -o blas-single -lopenblas
 *   OMP_NUM_THREADS=2 [OMP_PROC_BIND=true] ./blas-single [ROUNDS=1500 [N=160]]
 * prints a checksum (the same for any thread count) on stdout and the time on stderr. */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN (1 << 16)

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1500, n = argc > 2 ? atoi(argv[2]) : 160;
    if (rounds < 1 || n < 1) {
        fprintf(stderr, "usage: blas-single [ROUNDS >= 1 [N >= 1]]\n");
        return 2;
    }
    double *a = malloc(sizeof *a * n * n), *b = malloc(sizeof *b * n * n), *c = calloc((size_t)n * n, sizeof *c);
    double *v = calloc(LEN, sizeof *v);
    if (!a || !b || !c || !v)
        return 1;
    for (int i = 0; i < n * n; i++)
        a[i] = (i % 7) * 0.1, b[i] = (i % 5) * 0.2;
    double t0 = omp_get_wtime(), sum = 0;
#pragma omp parallel
    for (int r = 0; r < rounds; r++) {
#pragma omp single
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
#pragma omp for
        for (int i = 0; i < LEN; i++)
            v[i] = v[i] * 0.5 + c[i % (n * n)];
#pragma omp single nowait
        sum += v[r % LEN]; /* the same element whoever runs it: the loop above ended in a barrier */
    }
    printf("checksum %.9e\n", sum);
    fprintf(stderr, "time %.3f s\n", omp_get_wtime() - t0);
    free(a), free(b), free(c), free(v);
    return 0;
}
