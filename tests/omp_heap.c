/* omp_heap.c — what the program's heap holds when main starts, and where its first small blocks land:
 * omp_heap.sh compares it with and without libandgate-preload.so. The shim reads the topology and the
 * process's CPUs when it is loaded (src/preload/common.c); those reads must leave the heap as the
 * program would find it alone, or the program's data lands elsewhere and a program sensitive to where
 * its arrays fall runs at another speed (docs/results.md, "sixth part": Rodinia's srad_v2, 3-4 %). */
#define _GNU_SOURCE
#include <malloc.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    struct mallinfo2 m = mallinfo2();
    printf("arena %zu in-use %zu free %zu chunks %zu\n", m.arena, m.uordblks, m.fordblks, m.ordblks);
    for (int i = 0; i < 4; i++) { /* within-page offsets: brk's start is randomized a page at a time */
        void *p = malloc(8192);
        printf("block %d at page offset 0x%03lx\n", i, (unsigned long)((uintptr_t)p & 0xfff));
    }
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    printf("team of %d\n", n);
    return 0;
}
