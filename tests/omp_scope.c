/* omp_scope.c — a program with no OpenMP runtime of its own that opens OpenMP modules with
 * dlopen(RTLD_LOCAL), as Python opens extension modules that bring their own libgomp or libomp, and runs
 * them in turn: omp_scope [-lazy] MODULE.so... prints one line per module and round with its checksum;
 * exit 1 when one differs from the expected sum (src/preload/scope.h, tests/omp_scope.sh). Built with
 * -DDIRECT and linked with one module: that module's runtime is in the global scope. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define REPS 50
#define PER_REGION 1498504L

#ifdef DIRECT
/* linked with a module at build time: its runtime is in the global scope */
long scope_run(int reps);

int main(void)
{
    int bad = 0;
    for (int round = 0; round < 3; round++) {
        long got = scope_run(REPS);
        printf("round %d: %ld\n", round, got);
        bad |= got != REPS * PER_REGION;
    }
    return bad;
}
#else
int main(int argc, char **argv)
{
    int flags = RTLD_LOCAL | RTLD_NOW, first = 1, bad = 0;
    if (argc > 1 && !strcmp(argv[1], "-lazy"))
        flags = RTLD_LOCAL | RTLD_LAZY, first = 2;
    if (argc <= first) {
        fprintf(stderr, "usage: omp_scope [-lazy] MODULE.so...\n");
        return 2;
    }
    long (*run[16])(int);
    int n = 0;
    for (int i = first; i < argc && n < 16; i++, n++) {
        void *h = dlopen(argv[i], flags);
        if (!h || !(*(void **)&run[n] = dlsym(h, "scope_run"))) {
            fprintf(stderr, "omp_scope: %s: %s\n", argv[i], dlerror());
            return 2;
        }
    }
    for (int round = 0; round < 3; round++)
        for (int m = 0; m < n; m++) {
            long got = run[m](REPS);
            printf("module %d round %d: %ld\n", m, round, got);
            bad |= got != REPS * PER_REGION;
        }
    return bad;
}
#endif
