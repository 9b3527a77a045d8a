/* host.c — see host.h. */
#include "host.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

void ag_cpu_model(char *buf, size_t len, int *hypervisor)
{
    struct utsname u;
    snprintf(buf, len, "%s", uname(&u) == 0 ? u.machine : "unknown CPU");
    if (hypervisor)
        *hypervisor = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[4096];
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        if (!got && (!strncmp(line, "model name", 10) || !strncmp(line, "Model\t", 6))) {
            char *v = colon + 1;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = '\0';
            snprintf(buf, len, "%s", v);
            got = 1;
        }
        if (hypervisor && !strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
            *hypervisor = 1;
    }
    fclose(f);
}
