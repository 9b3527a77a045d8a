/* owner.h — which process is inside a process-shared barrier, and whether it still exists (owner.c).
 * Not installed. */
#ifndef AG_OWNER_H
#define AG_OWNER_H

#include <stdint.h>
#include <sys/types.h>

#include "andgate.h"

/* A process, as a participant slot of a process-shared barrier records it: its pid, its start time
 * (/proc/<pid>/stat field 22, clock ticks since boot; with the pid it names one process, so a reused
 * pid is never taken for the owner) and a key of the pid and time namespaces both were read in (pids
 * and start times mean something only there). pid 0: unknown (no /proc, or not our /proc). */
struct ag_owner {
    uint64_t pid, start, ns;
};

enum ag_owner_state { AG_OWNER_UNKNOWN = 0, AG_OWNER_ALIVE = 1, AG_OWNER_DEAD = 2 };

/* This process. Read from /proc once and kept (the one piece of per-process state besides the
 * topology); a pthread_atfork child handler forgets it, so a forked child reads its own. */
void ag_owner_self(struct ag_owner *o);

/* The process with this pid now, read as ag_owner_self reads this one (tests). pid 0 when unreadable. */
void ag_owner_of(pid_t pid, struct ag_owner *o);

/* Whether the recorded owner still exists. DEAD only when that is certain: no process has the pid
 * (kill says ESRCH), or the pid belongs to a process with another start time (the owner's was reused),
 * or it is a zombie whose every thread has exited (it can never write again). UNKNOWN for pid 0,
 * another namespace, or a process /proc will not show us; reset treats UNKNOWN as alive. */
enum ag_owner_state ag_owner_state(const struct ag_owner *o);

/* Participant tid's slot of a process-shared barrier now belongs to this process: its owner words in
 * the participant's line say so (written only when they change). Called before the inside marker is
 * set, so the marker's release store publishes them (owner.c). */
void ag_owner_stamp(ag_barrier_t *b, unsigned tid);

/* How many participants are inside a wait and not known dead: what ag_barrier_reset counts. For a
 * barrier that is not process-shared, ag_inside_count. */
unsigned ag_inside_live(const ag_barrier_t *b);

/* How many participants of a process-shared barrier are inside (a wait, or between arrive and depart)
 * for this process: their slots' stamps are this process's. Destroying an attached handle waits for
 * them (they run on it); where this process cannot be identified (no /proc) every one inside counts. */
unsigned ag_inside_here(const ag_barrier_t *b);

#endif
