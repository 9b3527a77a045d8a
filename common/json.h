/* json.h — a JSON string writer, shared by the CLI (tools/) and the benchmark workers (bench/), which
 * both write the result JSON. */
#ifndef AG_JSON_H
#define AG_JSON_H

#include <stdio.h>

static inline void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

#endif
