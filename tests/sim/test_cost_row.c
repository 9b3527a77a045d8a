/* test_cost_row.c — the cost rows of machine_cost.h, on which coherence.c's scan of a line's copies
 * relies to pass over copies that cannot deliver first:
 *   1. on a hand-made 3 x 3 mesh (a via-home layer, a fixed one), costs worked out by hand from the
 *      README's formula, and sim_cost_row_least attained by a thread on a shortest path to the home;
 *   2. on every machine file found, for sampled threads a and homes, and every thread b and kind of
 *      transfer: no transfer costs less than sim_cost_row_least (the self layer counted only where it
 *      is asked for, as when participants share hardware threads), the row's cost is sim_machine_cost,
 *      and sim_machine_pair_layers holds every layer two distinct threads use.
 * A bound above some cost would make the scan skip the copy that delivers first: the results would
 * change without any test of timings noticing. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "hand_machine.h"

static double xfer(const struct sim_machine *m, unsigned a, unsigned b, unsigned home, enum sim_xfer how)
{
    struct sim_cost_row r = sim_cost_row(m, a, home);
    const struct sim_layer *y = &m->layer[sim_cost_row_layer(&r, b)];
    return sim_cost_row_cost(&r, y, b) + sim_layer_xfer_delta(y, how);
}

/* one socket of 9 cores on a 3 x 3 mesh, core k at (k % 3, k / 3): a hit 1 ns; any other pair the 30 ns
 * base plus 2 ns a hop via the home; a cold transfer 10 ns above it */
static void hand_mesh(void)
{
    static const char *const lv[] = { "socket", "core" };
    static const unsigned cnt[] = { 1, 9 };
    static unsigned pos[9][2];
    struct sim_machine m = hand_machine(2, lv, cnt);
    m.nlayers = 2;
    m.layer[0] = (struct sim_layer){ "l1", SIM_PATH_FIXED, 1.0, 0, 0, 0 };
    m.layer[1] = (struct sim_layer){ "mesh", SIM_PATH_VIA_HOME, 30.0, 1, 40.0, 0 };
    m.by_diff[1] = 1;
    m.attach = 1, m.nattach = 9, m.hop_ns = 2;
    for (unsigned k = 0; k < 9; k++)
        pos[k][0] = k % 3, pos[k][1] = k / 3;
    m.pos = pos;
    CHECK(sim_machine_pair_layers(&m) == 2u, "pairs use the mesh layer only: %#x", sim_machine_pair_layers(&m));
    /* 0 at (0,0) from 4 at (1,1), home 8 at (2,2): 4 + 2 + 2 hops */
    CHECK(xfer(&m, 0, 4, 8, SIM_XFER_SPUN) == 30 + 8 * 2, "0 <- 4 via 8: %g", xfer(&m, 0, 4, 8, SIM_XFER_SPUN));
    CHECK(xfer(&m, 0, 4, 8, SIM_XFER_COLD) == 40 + 8 * 2, "cold: %g", xfer(&m, 0, 4, 8, SIM_XFER_COLD));
    /* 0 from 2 at (2,0), home 8: 4 + 2 + 2 hops, the same though not on a shortest path; 0 from 6 at
     * (0,2), home 2 at (2,0): 2 + 4 + 2 */
    CHECK(xfer(&m, 0, 2, 8, SIM_XFER_SPUN) == 46, "0 <- 2 via 8: %g", xfer(&m, 0, 2, 8, SIM_XFER_SPUN));
    CHECK(xfer(&m, 0, 6, 2, SIM_XFER_SPUN) == 46, "0 <- 6 via 2: %g", xfer(&m, 0, 6, 2, SIM_XFER_SPUN));
    CHECK(xfer(&m, 0, 0, 8, SIM_XFER_COLD) == 1, "a hit: %g", xfer(&m, 0, 0, 8, SIM_XFER_COLD));
    for (unsigned home = 0; home < 9; home++)
        for (unsigned a = 0; a < 9; a++) {
            struct sim_cost_row r = sim_cost_row(&m, a, home);
            double least = sim_cost_row_least(&r, sim_machine_pair_layers(&m), SIM_XFER_SPUN), low = HUGE_VAL;
            for (unsigned b = 0; b < 9; b++)
                if (b != a && xfer(&m, a, b, home, SIM_XFER_SPUN) < low)
                    low = xfer(&m, a, b, home, SIM_XFER_SPUN);
            /* a thread other than a on a shortest path a - home exists unless a is the home itself */
            if (a != home)
                CHECK(least == low, "a %u home %u: least %g, cheapest %g", a, home, least, low);
            else
                CHECK(least <= low && least == 30, "a %u at its home: least %g, cheapest %g", a, least, low);
            double self = sim_cost_row_least(&r, sim_machine_pair_layers(&m) | 1u, SIM_XFER_SPUN);
            CHECK(self == 1, "with the self layer the least is a hit: %g", self);
        }
    free(m.uid);
}

static unsigned stride(unsigned n, unsigned samples) { return n > samples ? n / samples : 1; }

static void machine_file(const char *name)
{
    struct sim_machine m;
    char err[512];
    if (sim_machine_load(name, &m, err, sizeof err)) {
        CHECK(0, "%s: %s", name, err);
        return;
    }
    uint32_t pairs = sim_machine_pair_layers(&m), seen = 0;
    unsigned homes = m.attach < 0 ? 1 : m.nattach, bad = 0, differ = 0;
    for (unsigned a = 0; a < m.threads; a += stride(m.threads, 48))
        for (unsigned home = 0; home < homes; home += stride(homes, 24))
            for (int how = SIM_XFER_COLD; how <= SIM_XFER_PAUSED; how++) {
                struct sim_cost_row r = sim_cost_row(&m, a, home);
                double least = sim_cost_row_least(&r, pairs, (enum sim_xfer)how);
                double self = sim_cost_row_least(&r, pairs | 1u << m.self_layer, (enum sim_xfer)how);
                for (unsigned b = 0; b < m.threads; b++) {
                    const struct sim_layer *y = &m.layer[sim_cost_row_layer(&r, b)];
                    double c = xfer(&m, a, b, home, (enum sim_xfer)how);
                    if (b != a)
                        seen |= 1u << sim_cost_row_layer(&r, b);
                    bad += c < (b == a ? self : least);
                    differ += sim_cost_row_cost(&r, y, b) != sim_machine_cost(&m, a, b, home);
                }
            }
    CHECK(!bad, "%s: %u transfers below the row's least", name, bad);
    CHECK(!differ, "%s: %u row costs differ from sim_machine_cost", name, differ);
    CHECK((seen & ~pairs) == 0, "%s: pairs use layers %#x, sim_machine_pair_layers says %#x", name, seen, pairs);
    sim_machine_free(&m);
}

int main(void)
{
    hand_mesh();
    char names[64][64];
    unsigned n = sim_machine_names(names, 64);
    CHECK(n >= 10, "machine files found: %u", n);
    for (unsigned k = 0; k < n; k++)
        machine_file(names[k]);
    return check_done();
}
