/* machine_path.c — where machine descriptions are found: the search path and the names on it. */
#define _GNU_SOURCE
#include "machine.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AG_MACHINES_DIR
#define AG_MACHINES_DIR ""
#endif
#ifndef AG_SOURCE_MACHINES_DIR
#define AG_SOURCE_MACHINES_DIR ""
#endif

/* The search path, in order: $ANDGATE_MACHINES (':'-separated), the XDG data directory, the installed
 * and the source sim/machines. Writes up to max directories into dirs (storage in buf). */
static unsigned search_path(char *buf, size_t len, const char **dirs, unsigned max)
{
    unsigned n = 0;
    size_t used = 0;
    const char *env = getenv("ANDGATE_MACHINES"), *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (env) {
        snprintf(buf, len, "%s", env);
        used = strlen(buf) + 1;
        for (char *save, *d = strtok_r(buf, ":", &save); d && n < max; d = strtok_r(NULL, ":", &save))
            dirs[n++] = d;
    }
    if (used < len && n < max) {
        if (x && *x)
            snprintf(buf + used, len - used, "%s/andgate/machines", x);
        else
            snprintf(buf + used, len - used, "%s/.local/share/andgate/machines", home ? home : "");
        dirs[n++] = buf + used;
    }
    static const char installed[] = AG_MACHINES_DIR, source[] = AG_SOURCE_MACHINES_DIR;
    if (n < max && installed[0])
        dirs[n++] = installed;
    if (n < max && source[0])
        dirs[n++] = source;
    return n;
}

int sim_machine_find(const char *name, char *out, size_t len)
{
    if (strchr(name, '/') || (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".json"))) {
        snprintf(out, len, "%s", name);
        return 1;
    }
    char buf[4096];
    const char *dirs[32];
    unsigned nd = search_path(buf, sizeof buf, dirs, 32);
    for (unsigned i = 0; i < nd; i++)
        if (strlen(dirs[i]) + strlen(name) + 7 <= len &&
            (snprintf(out, len, "%s/%s.json", dirs[i], name), access(out, R_OK) == 0))
            return 1;
    return 0;
}

unsigned sim_machine_names(char names[][64], unsigned max)
{
    char buf[4096];
    const char *dirs[32];
    unsigned nd = search_path(buf, sizeof buf, dirs, 32), n = 0;
    for (unsigned i = 0; i < nd; i++) {
        DIR *d = opendir(dirs[i]);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            size_t l = strlen(e->d_name);
            if (l <= 5 || l - 5 >= 64 || strcmp(e->d_name + l - 5, ".json") || !strcmp(e->d_name, "schema.json"))
                continue;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(l - 5), e->d_name);
            unsigned k = 0;
            while (k < n && strcmp(names[k], name))
                k++;
            if (k == n && n < max)
                snprintf(names[n++], 64, "%s", name);
        }
        if (d)
            closedir(d);
    }
    return n;
}
