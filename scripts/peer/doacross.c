/* doacross.c — gcc's doacross loops (OpenMP 5.0 §2.17.9) of every schedule, an unsigned long long one, one
 * with a reduction, and a two-sink wavefront, 50 rounds; prints a checksum that does not depend on the
 * thread count or the shim (docs/results.md, thirty-third part: gcc -O2 -fopenmp doacross.c). */
#include <stdio.h>
static double c[1000]; static unsigned long long N2;
static void f(int n)
{
#pragma omp parallel for ordered(1) schedule(dynamic, 4)
 for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink: i - 1)
  c[i] = c[i - 1] * 1.000001 + 1;
#pragma omp ordered depend(source)
 }
#pragma omp parallel for ordered(1) schedule(guided)
 for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink: i - 1)
  c[i] = c[i - 1] * 1.000001 + 1;
#pragma omp ordered depend(source)
 }
#pragma omp parallel for ordered(1) schedule(runtime)
 for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink: i - 1)
  c[i] = c[i - 1] * 1.000001 + 1;
#pragma omp ordered depend(source)
 }
#pragma omp parallel for ordered(1) schedule(static)
 for (unsigned long long i = 1; i < N2; i++) {
#pragma omp ordered depend(sink: i - 1)
  c[i%1000] = c[(i - 1)%1000] * 1.000001 + 1;
#pragma omp ordered depend(source)
 }
 long s = 0;
#pragma omp parallel for ordered(1) reduction(+:s)
 for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink: i - 1)
  s += i;
#pragma omp ordered depend(source)
 }
 c[0] = s;
#pragma omp parallel for ordered(2) collapse(1) schedule(static,2)
 for (int i = 1; i < n; i++) for (int j = 1; j < n; j++){
#pragma omp ordered depend(sink: i - 1, j+1) depend(sink: i, j - 1)
  c[i] += j;
#pragma omp ordered depend(source)
 }
}
int main(void)
{
    N2 = 700;
    double h = 0;
    for (int r = 0; r < 50; r++) {
        f(600);
        for (int i = 0; i < 1000; i++)
            h += c[i] * (i + 1);
    }
    printf("%.10e\n", h);
    return 0;
}
