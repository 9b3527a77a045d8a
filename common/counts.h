/* counts.h — the participant-count lists of `andgate bench --threads` and `andgate sim --threads`. */
#ifndef AG_TOOLS_COUNTS_H
#define AG_TOOLS_COUNTS_H

#include <stddef.h>

/* "1,2,8", "1-8" or a mix ("1-4,8"): each count from 1 to hi, at most max of them. Returns how many,
 * or 0 with what is wrong in err (an empty list, a bad number or range, a count out of range, a
 * trailing comma, too many counts). */
unsigned ag_parse_counts(const char *s, unsigned hi, unsigned *out, unsigned max, char *err, size_t errlen);

#endif
