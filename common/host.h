/* host.h — facts about the machine that several tools record (bench, bench --preload, info --measure). */
#ifndef AG_COMMON_HOST_H
#define AG_COMMON_HOST_H

#include <stddef.h>

/* The CPU model: /proc/cpuinfo's "model name" (x86) or "Model" (Arm), else the uname machine. *hypervisor
 * (when not NULL) is 1 when the CPU flags say the kernel runs under a hypervisor. */
void ag_cpu_model(char *buf, size_t len, int *hypervisor);

#endif
