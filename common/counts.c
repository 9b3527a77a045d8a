/* counts.c — see counts.h. */
#include "counts.h"

#include <stdio.h>
#include <stdlib.h>

unsigned ag_parse_counts(const char *s, unsigned hi, unsigned *out, unsigned max, char *err, size_t errlen)
{
    unsigned n = 0;
    const char *p = s;
    for (;;) {
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p || *p == '-' || *p == '+') {
            snprintf(err, errlen, "expected a list like 1,2,4 or a range like 1-8, got '%s'", s);
            return 0;
        }
        if (*end == '-') {
            p = end + 1;
            b = strtoul(p, &end, 10);
            if (end == p || b < a) {
                snprintf(err, errlen, "bad range in '%s'", s);
                return 0;
            }
        }
        if (a < 1 || b > hi) {
            snprintf(err, errlen, "counts must be in 1..%u, got '%s'", hi, s);
            return 0;
        }
        if (*end && *end != ',') {
            snprintf(err, errlen, "unexpected '%c' in '%s'", *end, s);
            return 0;
        }
        if (b - a >= max - n) {
            snprintf(err, errlen, "more than %u counts in '%s'", max, s);
            return 0;
        }
        for (unsigned long t = a; t <= b; t++)
            out[n++] = (unsigned)t;
        if (!*end)
            return n;
        p = end + 1;
        if (!*p) {
            snprintf(err, errlen, "a trailing comma in '%s'", s);
            return 0;
        }
    }
}
