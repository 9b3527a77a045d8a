/* sim_flags.h — the simulator backend of the primitive layer (flags.h with AG_SIM defined).
 *
 * The same algorithm files compile against these functions: every flag operation is carried out by
 * the simulator engine (sim/engine.c) on the participant now running, costs virtual time according to
 * the engine's coherence model, and returns to the scheduler, which then resumes some participant
 * (the one with the smallest clock, or a random one in the interleaving-exploring mode). flag_wait
 * blocks the simulated participant until a store to that flag.
 */
#ifndef AG_SIM_FLAGS_H
#define AG_SIM_FLAGS_H

#include <stdint.h>

struct sim;

typedef struct ag_flags {
    struct sim *sim;
    uint32_t broken;
    uint32_t nslots;
} ag_flags_t;

uint64_t sim_load(const ag_flags_t *f, uint32_t i);
void sim_store(const ag_flags_t *f, uint32_t i, uint64_t v);
uint64_t sim_fetch_add(const ag_flags_t *f, uint32_t i, uint64_t d);
int sim_cas(const ag_flags_t *f, uint32_t i, uint64_t *expected, uint64_t desired);
int sim_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline);
int sim_wait_lead(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline);
void ag_flags_break(const ag_flags_t *f);
uint64_t sim_now(const ag_flags_t *f);

static inline uint64_t flag_load(const ag_flags_t *f, uint32_t i) { return sim_load(f, i); }
static inline void flag_store(const ag_flags_t *f, uint32_t i, uint64_t v) { sim_store(f, i, v); }
static inline void flag_put(const ag_flags_t *f, uint32_t i, uint64_t v) { sim_store(f, i, v); }
static inline uint64_t flag_fetch_add(const ag_flags_t *f, uint32_t i, uint64_t d) { return sim_fetch_add(f, i, d); }
static inline int flag_cas(const ag_flags_t *f, uint32_t i, uint64_t *e, uint64_t d) { return sim_cas(f, i, e, d); }
static inline uint64_t flag_now(const ag_flags_t *f) { return sim_now(f); }
static inline int flag_broken(const ag_flags_t *f) { return sim_load(f, f->broken) != 0; }
static inline int flag_wait(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    return sim_wait(f, i, cond, v, deadline);
}
/* a group leader (hybrid): the policy's lead_ns of spin on its hardware thread first (sim/flag_backend.c) */
static inline int flag_wait_lead(const ag_flags_t *f, uint32_t i, int cond, uint64_t v, uint64_t deadline)
{
    return sim_wait_lead(f, i, cond, v, deadline);
}

#endif
