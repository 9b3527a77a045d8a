/* omp_scope_mod.c — an OpenMP module for omp_scope.c, built as a shared object against one runtime
 * (libgomp, libomp, or gcc's code linked with libomp) and opened by a program that has none: its calls
 * reach the shim first and must go on to this module's runtime (src/preload/scope.h). With -DNO_RUNTIME
 * and no -fopenmp: a module that calls an entry point with no runtime to bind it to. */
#ifdef ANON_CALLER
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#endif
#ifndef NO_RUNTIME
#include <omp.h>

#define N 1000
#define MAXT 64

#if defined(ANON_CALLER) && defined(__x86_64__)
/* -DANON_CALLER: the phase barriers call GOMP_barrier from code in an anonymous mapping, in no loaded
 * object, as JIT code does, or a uretprobe's return trampoline (src/preload/scope.c, look_up) */
#include <string.h>
#include <sys/mman.h>
void GOMP_barrier(void);
static void (*anon_barrier)(void);

static void anon_make(void)
{
    if (anon_barrier)
        return;
    /* sub $8,%rsp; movabs $GOMP_barrier,%rax; call *%rax; add $8,%rsp; ret (the stack stays aligned) */
    unsigned char code[] = { 0x48, 0x83, 0xec, 0x08, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
                             0xff, 0xd0, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
    void (*target)(void) = GOMP_barrier;
    memcpy(code + 6, &target, sizeof target);
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return; /* anon_barrier stays NULL: the barriers are the compiler's */
    memcpy(page, code, sizeof code);
    if (mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0)
        *(void **)&anon_barrier = page;
}
#define PHASE_BARRIER()                                                                            \
    do {                                                                                           \
        if (anon_barrier)                                                                          \
            anon_barrier();                                                                        \
        else                                                                                       \
            GOMP_barrier();                                                                        \
    } while (0)
#else
static void anon_make(void)
{
}
#define PHASE_BARRIER() _Pragma("omp barrier")
#endif

/* reps regions, each with a static loop, a dynamic loop, a single, sections, a task and barriers whose
 * phases every thread checks; the sum is 1,498,504 per region whatever the team (bad phases add 1e9) */
long scope_run(int reps)
{
    long total = 0;
    anon_make();
    for (int r = 0; r < reps; r++) {
        long sum = 0, bad = 0;
        int phase[MAXT] = { 0 }, single = 0, sections = 0, task = 0;
#pragma omp parallel reduction(+ : sum, bad)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                sum += i;
#pragma omp for schedule(dynamic, 7)
            for (int i = 0; i < N; i++)
                sum += 2 * i;
#pragma omp single
            single++;
#pragma omp sections
            {
#pragma omp section
                {
#pragma omp atomic
                    sections++;
                }
#pragma omp section
                {
#pragma omp atomic
                    sections++;
                }
            }
            for (int k = 0; k < 20 && n <= MAXT; k++) { /* no thread leaves a phase before all reached it */
#pragma omp atomic
                phase[t]++;
                PHASE_BARRIER();
                for (int u = 0; u < n; u++) {
                    int p;
#pragma omp atomic read
                    p = phase[u];
                    bad += p < k + 1;
                }
                PHASE_BARRIER();
            }
#pragma omp single
            {
#pragma omp task
                task++;
            }
        }
        total += sum + single + sections + task + bad * 1000000000L;
    }
    return total;
}

#else
/* built without -fopenmp and linked with no runtime: a call the dynamic linker cannot bind */
void GOMP_barrier(void);
long scope_run(int reps)
{
    for (int r = 0; r < reps; r++)
        GOMP_barrier();
    return 0;
}
#endif
