/* fftw_omp.c — FFTW's OpenMP threads (Debian's libfftw3_omp, built against libgomp), a peer program for
 * libandgate-preload.so (docs/results.md, twenty-second part): a 3-D complex DFT forward and back,
 * repeated, with a dynamic loop, a reduction and an explicit barrier of its own. Needs libfftw3-dev.
 *   gcc -O2 -fopenmp scripts/peer/fftw_omp.c -lfftw3_omp -lfftw3 -lm -o fftw-gcc
 *   clang -O2 -fopenmp=libomp scripts/peer/fftw_omp.c -lfftw3_omp -lfftw3 -lm -o fftw-clang
 *   clang -O2 -fopenmp=libomp scripts/peer/fftw_omp.c -Wl,--no-as-needed -lgomp -lfftw3_omp -lfftw3 -lm \
 *     -o fftw-both          (both runtimes run: FFTW's regions libgomp's, the program's libomp's)
 *   ./fftw-gcc [N=64 [ITERS=200 [MEASURE=0]]]   prints checksums that do not depend on the thread count */
#include <fftw3.h>
#include <omp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64, iters = argc > 2 ? atoi(argv[2]) : 200;
  int measure = argc > 3 ? atoi(argv[3]) : 0;
  long N = (long)n * n * n;
  if (!fftw_init_threads()) { fprintf(stderr, "fftw_init_threads failed\n"); return 2; }
  int nt = omp_get_max_threads();
  fftw_plan_with_nthreads(nt);
  fftw_complex *x = fftw_alloc_complex(N), *X = fftw_alloc_complex(N), *x0 = fftw_alloc_complex(N);
  unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  fftw_plan fwd = fftw_plan_dft_3d(n, n, n, x, X, FFTW_FORWARD, flags);
  fftw_plan bwd = fftw_plan_dft_3d(n, n, n, X, x, FFTW_BACKWARD, flags);
  if (!fwd || !bwd) { fprintf(stderr, "plan failed\n"); return 2; }
  /* deterministic input (after planning: MEASURE overwrites the arrays) */
  #pragma omp parallel for schedule(static)
  for (long i = 0; i < N; i++) {
    unsigned long h = (unsigned long)i * 6364136223846793005UL + 1442695040888963407UL;
    h ^= h >> 29; h *= 0xbf58476d1ce4e5b9UL; h ^= h >> 32;
    x[i][0] = (double)(h & 0xffff) / 65536.0 - 0.5;
    x[i][1] = (double)((h >> 16) & 0xffff) / 65536.0 - 0.5;
    x0[i][0] = x[i][0]; x0[i][1] = x[i][1];
  }
  double specsum = 0;
  double inv = 1.0 / (double)N;
  for (int it = 0; it < iters; it++) {
    fftw_execute(fwd);
    if (it == 0) {
      #pragma omp parallel for reduction(+:specsum)
      for (long i = 0; i < N; i++) specsum += hypot(X[i][0], X[i][1]);
    }
    fftw_execute(bwd);
    #pragma omp parallel for schedule(dynamic, 4096)
    for (long i = 0; i < N; i++) { x[i][0] *= inv; x[i][1] *= inv; }
  }
  double maxerr = 0, abssum = 0;
  #pragma omp parallel
  {
    double me = 0, as = 0;
    #pragma omp for nowait
    for (long i = 0; i < N; i++) {
      double e = hypot(x[i][0] - x0[i][0], x[i][1] - x0[i][1]);
      if (e > me) me = e;
      as += hypot(x[i][0], x[i][1]);
    }
    #pragma omp critical
    { if (me > maxerr) maxerr = me; abssum += as; }
    #pragma omp barrier
  }
  printf("fftw n=%d iters=%d %s maxerr_ok=%s mean|x|=%.6f mean|X0|/sqrtN=%.6f\n", n, iters,
         measure ? "MEASURE" : "ESTIMATE", maxerr < 1e-9 ? "yes" : "NO", abssum / N, specsum / N / sqrt((double)N));
  fprintf(stderr, "threads=%d maxerr=%.3e\n", nt, maxerr);
  fftw_destroy_plan(fwd); fftw_destroy_plan(bwd);
  fftw_free(x); fftw_free(X); fftw_free(x0);
  fftw_cleanup_threads();
  return maxerr < 1e-9 ? 0 : 1;
}
