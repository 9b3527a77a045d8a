/* mixed_barrier.c — a clang/libomp program whose barriers run beside a gcc-built library's libgomp team
 * (mixed_gomp_lib.c), both runtimes bound: libgomp pins the initial thread in its constructor, libomp then
 * sees one CPU and puts its whole team there, while libgomp's worker holds the other (docs/results.md,
 * twenty-second part: the shim's libomp team spun, 59 us a barrier, before place_cpus).
 *   gcc -O2 -fopenmp -fPIC -shared scripts/peer/mixed_gomp_lib.c -o libmixedgomp.so
 *   clang -O2 -fopenmp=libomp scripts/peer/mixed_barrier.c -Wl,--no-as-needed -lgomp -L. -lmixedgomp \
 *     -Wl,-rpath,"$PWD" -o mixed_barrier
 *   OMP_NUM_THREADS=2 OMP_PROC_BIND=true ./mixed_barrier [BARRIERS=20000]
 *   (also without the libgomp parts and OMP_PLACES={0}: libomp's team on one place of two CPUs) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int mixed_gomp_side(void);

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000, s = 0;
    printf("libgomp side %d\n", mixed_gomp_side());
    double t = omp_get_wtime();
#pragma omp parallel reduction(+ : s)
    for (long i = 0; i < n; i++) {
        s += i & 3;
#pragma omp barrier
    }
    t = omp_get_wtime() - t;
    printf("%ld barriers %.3f s (%.2f us each) s=%ld\n", n, t, t / n * 1e6, s);
    return 0;
}
