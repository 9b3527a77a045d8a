/* seidel_doacross.c — a 2-D Gauss-Seidel sweep (the 9-point stencil of PolyBench's seidel-2d, written here
 * from its definition) parallelized the way OpenMP 4.5's doacross loops are taught: rows workshared, each
 * point waiting for its upper-left, upper and upper-right neighbours of the same sweep, which the rows
 * above update first. N x N grid, T sweeps; prints a checksum that does not depend on the thread count or
 * the shim (docs/results.md, thirty-fourth part: gcc -O2 -fopenmp seidel_doacross.c; ./a.out [N T]). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 1000, steps = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 3 || steps < 1)
        return fprintf(stderr, "usage: seidel_doacross [N >= 3] [T >= 1]\n"), 2;
    double (*a)[n] = malloc(sizeof(double[n][n]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = ((double)i * (j + 2) + 2) / n;
    for (int t = 0; t < steps; t++) {
#pragma omp parallel for ordered(2) schedule(static, 1)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
#pragma omp ordered depend(sink : i - 1, j - 1) depend(sink : i - 1, j) depend(sink : i - 1, j + 1)
                a[i][j] = (a[i - 1][j - 1] + a[i - 1][j] + a[i - 1][j + 1] + a[i][j - 1] + a[i][j] + a[i][j + 1] +
                           a[i + 1][j - 1] + a[i + 1][j] + a[i + 1][j + 1]) / 9.0;
#pragma omp ordered depend(source)
            }
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += a[i][j];
    printf("%.10e\n", s);
    free(a);
    return 0;
}
