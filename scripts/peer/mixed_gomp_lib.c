/* mixed_gomp_lib.c — the gcc-built library of mixed_barrier.c: one libgomp region, which leaves libgomp's
 * worker thread bound to the second CPU. */
#include <omp.h>

int mixed_gomp_side(void)
{
    int s = 0;
#pragma omp parallel reduction(+ : s)
    s += omp_get_thread_num();
    return s;
}
