/* ticket — placeholder until the algorithm file lands (setup refuses with ENOTSUP). */
#include <errno.h>

#include "../algo.h"

static int setup(const struct ag_setup *s, struct ag_layout *L) { (void)s, (void)L; return ENOTSUP; }
static void reset(const struct ag_run *r) { (void)r; }
static int wait(const struct ag_run *r, unsigned tid, uint64_t e, uint64_t dl) { (void)r, (void)tid, (void)e, (void)dl; return ENOTSUP; }

const struct ag_algo ag_algo_ticket = { { "ticket", "placeholder", "-", NULL }, setup, reset, wait };
