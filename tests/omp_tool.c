/* omp_tool.c — a program with an OMPT tool of its own, under the shim (itself an OMPT tool; docs/preload.md).
 * Built twice: with -DTOOL as a shared library holding the program's tool, and as the program (clang,
 * libomp). The tool's ompt_start_tool prints "tool: asked", and starts the tool ("tool: started", from
 * its initializer, with a parallel-begin callback counting teams) unless OMP_TEST_TOOL=off. The program
 * runs regions with barriers and prints omp_control_tool's answer, then (with the tool started) how many
 * teams the tool saw. omp_tool.sh runs it alone and under the shim, the tool linked or preloaded after it. */
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TOOL
static int teams;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)codeptr;
    __atomic_fetch_add(&teams, 1, __ATOMIC_RELAXED);
}

static int init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    printf("tool: started\n");
    return 1;
}

static void fini(ompt_data_t *data)
{
    (void)data;
    printf("tool: %d teams\n", teams);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t tool = { init, fini, { 0 } };
    const char *off = getenv("OMP_TEST_TOOL");
    printf("tool: asked\n");
    return off && !strcmp(off, "off") ? NULL : &tool;
}
#else
#include <omp.h>

int main(void)
{
    int sum = 0;
    for (int r = 0; r < 10; r++) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        {
#pragma omp barrier
            sum += omp_get_thread_num() + 1;
#pragma omp barrier
        }
    }
    printf("sum %d\n", sum);
    printf("omp_control_tool %d\n", omp_control_tool(omp_control_tool_start, 0, NULL));
    return 0;
}
#endif
