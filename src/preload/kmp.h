/* kmp.h — what kmp.c (the OMPT tool) tells the other libomp interpositions. */
#ifndef AG_PRELOAD_KMP_H
#define AG_PRELOAD_KMP_H

#include "scope.h"
#include "team.h"

/* an entry point's first statement (scope.h): a call of another runtime's goes on to it */
#define AG_KMP_FORWARD(name, ...) AG_SCOPE_FORWARD(AG_SIDE_KMP, name, __VA_ARGS__)
#define AG_KMP_FORWARD_VOID(name, ...) AG_SCOPE_FORWARD_VOID(AG_SIDE_KMP, name, __VA_ARGS__)

/* The calling thread's innermost implicit task as the OMPT callbacks delivered it (team size, index,
 * and the team's andgate barrier if served, looked up at the first call in a region), or NULL outside
 * any region, deeper than kmp.c tracks, or when the shim is not libomp's tool. Its `loop` member
 * belongs to kmp_dispatch.c. */
struct ag_team_ctx *ag_kmp_team(void);
/* The same context without that lookup: only its team size and index are meant to be read (a static
 * loop's bounds need nothing else, so a `parallel for` region looks up nothing). */
const struct ag_team_ctx *ag_kmp_place(void);

#endif
