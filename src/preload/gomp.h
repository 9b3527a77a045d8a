/* gomp.h — what gomp.c (libgomp's regions and barriers) tells gomp_loop.c. */
#ifndef AG_PRELOAD_GOMP_H
#define AG_PRELOAD_GOMP_H

#include "team.h"

/* The calling thread's context in the libgomp team it is in now, resolved, when andgate serves that
 * team (a region gomp.c wrapped, at the current nesting level, with a barrier); else NULL. Its `loop`
 * member belongs to gomp_loop.c. */
struct ag_team_ctx *ag_gomp_team(void);

#endif
