/* test_hw_noc.c — test_hw's network-on-chip devices against their cost formulas (docs/sim-hw.md): 001's
 * Reflex on TILE64 (001 §III-A) and 004's Subutai on noc64 (004 §V, Tables III/IV), the latter also against
 * an FSM of our own (sim/hw/subutai_fsm.c) fed the same requests. Called from main in test_hw.c; the
 * helpers are hw_check.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw_check.h"
#include "subutai_fsm.h"

/* Reflex, 001, on TILE64: h = 1 STN cycle at 700 MHz; fence = o_s = o_r = 1 cycle; B = 4 flits. */
void test_reflex(void)
{
    struct sim_machine m, n64;
    struct dev x;
    unsigned hw[MAXN];
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN], ta;
    load("tile64", &m);
    const double h = 1 / 0.7;
    /* tiles 0 (0,0), 1 (1,0), 9 (1,1): ring 0 -> 1 -> 9 -> 0 of 1 + 1 + 2 hops */
    unsigned three[] = { 0, 1, 9 };
    must_open(&x, "hw-reflex", &m, 3, three);
    ta = episode(&x, t, reg, rel);
    near("reflex root registration (fence + send)", reg[0], 2 * h);
    near("reflex other registration (fence + drain 4)", reg[1], 5 * h);
    near("reflex t_all", ta, 5 * h);
    /* F: 2h, max(3h, 5h) = 5h, max(6h, 5h) = 6h, back 8h; done = max(6h, 8h) + h; R = 10h */
    near("reflex rel tile 1", rel[1], 12 * h);
    near("reflex rel tile 9", rel[2], 13 * h);
    near("reflex rel root (its release back around the ring)", rel[0], 15 * h);
    /* back to back: each leaves and arrives again at once; the blocking flits must be in first */
    memcpy(t, rel, 3 * sizeof *t);
    ta = episode(&x, t, reg, rel);
    near("reflex ep2 root", reg[0], 17 * h);
    near("reflex ep2 tile 1 (waits for the blocking flits at 15h)", reg[1], 19 * h);
    near("reflex ep2 tile 9 (blocking flits at 16h)", reg[2], 20 * h);
    near("reflex ep2 rel tile 1", rel[1], 26 * h);
    near("reflex ep2 rel tile 9", rel[2], 27 * h);
    near("reflex ep2 rel root", rel[0], 29 * h);
    close_dev(&x);

    /* all 64 tiles: the ring is a Hamiltonian cycle of 64 hops (one hop per extra participant, 001 §III-A) */
    iota(hw, 64, 1);
    memset(t, 0, sizeof t);
    must_open(&x, "hw-reflex", &m, 64, hw);
    ta = episode(&x, t, reg, rel);
    /* F_1 = 5h, then + h per switch: F_63 = 67h, back 68h; done 69h; R = 70h; root back at 134h, + o_r */
    near("reflex 64 root", rel[0], 135 * h);
    near("reflex 64 ring position 1 (tile 1)", rel[1], 72 * h);
    near("reflex 64 tile 8 = (0,1): the last on the cycle", rel[8], 70 * h + 63 * h + h);
    close_dev(&x);

    unsigned dup[] = { 5, 5 };
    refused("hw-reflex", &m, 2, dup, "share a switch");
    load("noc64", &n64);
    refused("hw-reflex", &n64, 2, three, "hw-reflex needs interconnect.networks.stn");
    sim_machine_free(&n64);
    sim_machine_free(&m);
}

/* Subutai, 004 §V, on noc64: c = 1, m = 2, FSMentry = 4, FSMexit = 1 ns; hop = 3 + 1 cycles at 1 GHz;
 * 3-flit packets (tail 2 ns); the barrier at NI_0. The FSM's counts (docs/sim-hw.md, "hw-subutai: the FSM"):
 * a barrier's first queued arrival 10m, later ones 12m (an entry with a free neighbour: alloc 4, enqueue 4 or
 * 6, count 2); the last arrival m + c to answer itself, then 11m + 3c per released thread but the last,
 * 9m + 3c for the last (no next entry to fix). */
void test_subutai(void)
{
    struct sim_machine m, v;
    struct dev x;
    unsigned hw[MAXN];
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN], ta;
    load("noc64", &m);
    const double hop = 4, fix = 4 + 1, q1 = fix + 10 * 2, qn = fix + 12 * 2, first = 4 + 2 + 1, per = 11 * 2 + 3,
                 per_last = 9 * 2 + 3, tail = 2;

    iota(hw, 1, 1);
    must_open(&x, "hw-subutai", &m, 1, hw);
    ta = episode(&x, t, reg, rel);
    near("subutai n=1 (host core, no NoC)", rel[0], first);
    close_dev(&x);

    unsigned three[] = { 0, 1, 9 }; /* 0, 1, 2 hops from NI_0 */
    must_open(&x, "hw-subutai", &m, 3, three);
    ta = episode(&x, t, reg, rel);
    near("subutai reg core 0 (queued first: 10m)", reg[0], q1);
    near("subutai reg core 1 (FSM busy, queued second: 12m)", reg[1], q1 + qn);
    near("subutai last reg = t_all", ta, q1 + qn + first);
    near("subutai caller answered first", rel[2], ta + 2 * hop + tail);
    near("subutai queue head (host core)", rel[0], ta + per);
    near("subutai queue next (the last: 9m + 3c)", rel[1], ta + per + per_last + hop + tail);
    /* the FSM is still answering when core 0 comes back: it waits until the release loop's FSMexit */
    double t2[3] = { rel[0], 1e6, 1e6 };
    reg[0] = x.d->arrive(&x.c, 0, t2[0]);
    near("subutai next episode waits for the FSM", reg[0], ta + per + per_last + 1 + q1);
    close_dev(&x);

    /* 004 Table IV: rho = 63, packets at 7, 32, 57, ... ns after the last request reaches the FSM; the FSM's
     * last one 4 ns short of Table III's (docs/sim-hw.md) */
    iota(hw, 64, 1);
    must_open(&x, "hw-subutai", &m, 64, hw);
    ta = episode(&x, t, reg, rel);
    double s_last = ta - first;
    near("subutai 64: 62 queued arrivals of 12m after one of 10m", s_last, q1 + 62 * qn);
    near("subutai 64: the caller's packet at 7 ns (Table IV)", rel[63] - (14 * hop + tail) - s_last, 7);
    near("subutai 64: first queued packet at 32 ns", rel[0] - s_last, 32);
    near("subutai 64: second at 57 ns", rel[1] - (hop + tail) - s_last, 57);
    near("subutai 64: last of rho = 63 at 1578 ns", rel[62] - (13 * hop + tail) - s_last, 1578);
    reg[0] = x.d->arrive(&x.c, 0, rel[0]);
    near("subutai 64: the FSM is busy for 1579 ns (Table IV: 1583)", reg[0] - q1 - s_last, 1579);
    close_dev(&x);

    struct sim_machine tile;
    load("tile64", &tile);
    refused("hw-subutai", &tile, 2, three,
            "hw-subutai needs devices.subutai_ni (a Subutai NoC machine, e.g. noc64)");
    sim_machine_free(&tile);
    const char *small[] = { "set devices.subutai_ni.spm_queue_entries 2 count" };
    variant("noc64", &v, 1, small);
    iota(hw, 4, 1);
    refused("hw-subutai", &v, 2, hw, "the SPM model holds 4 control structures and 122 entries");
    sim_machine_free(&v);
    const char *nom[] = { "del devices.subutai_ni.m" };
    variant("noc64", &v, 1, nom);
    refused("hw-subutai", &v, 2, hw, "hw-subutai needs devices.subutai_ni");
    sim_machine_free(&v);
    sim_machine_free(&m);
}

/* The device's figures are the FSM's counts plus the NoC path: 2 threads on cores 0 (NI_0) and 63 (14 hops),
 * three episodes with different arrivals, against an FSM of our own fed the same requests. Fails if the
 * device charges anything but what the FSM counted (e.g. a flat 7m per queued arrival: 19 ns, not 25). */
void test_subutai_fsm_count(void)
{
    struct sim_machine m;
    struct dev x;
    struct suf f;
    struct suf_params p;
    struct suf_res r;
    char err[600];
    unsigned cores[] = { 0, 63 };
    double to[] = { 0, 14 * 4 }, back[] = { 0, 14 * 4 + 2 }, busy = -INFINITY;
    load("noc64", &m);
    if (suf_params_load(&m, &p, err, sizeof err)) {
        fail("suf_params_load(noc64): %s", err);
        return;
    }
    suf_init(&f, &p, SUF_NENT);
    suf_request(&f, &(struct suf_req){ .op = SUF_ALLOC, .kind = SUF_BARRIER, .max = 2 }, &r);
    unsigned bar = r.id;
    must_open(&x, "hw-subutai", &m, 2, cores);
    static const double arr[3][2] = { { 0, 0 }, { 100, 0 }, { 0, 500 } };
    double base = 0;
    for (int e = 0; e < 3; e++) {
        double t[2], reg[2], rel[2], want_reg[2], want_rel[2];
        unsigned ord[2] = { arr[e][0] <= arr[e][1] ? 0u : 1u, arr[e][0] <= arr[e][1] ? 1u : 0u };
        for (unsigned k = 0; k < 2; k++) {
            unsigned q = ord[k];
            t[q] = base + arr[e][q];
            double s = fmax(t[q] + to[q], busy);
            suf_request(&f, &(struct suf_req){ .op = SUF_BARRIER_WAIT, .id = bar, .thread = q }, &r);
            busy = s + r.t;
            want_reg[q] = k == 0 ? busy : s + r.pkt[0].at;
            for (unsigned j = 0; k == 1 && j < r.npkt; j++)
                want_rel[r.pkt[j].thread] = s + r.pkt[j].at + back[r.pkt[j].thread];
        }
        episode(&x, t, reg, rel);
        char what[120];
        for (unsigned q = 0; q < 2; q++) {
            snprintf(what, sizeof what, "subutai = FSM + NoC, episode %d, tid %u registered", e, q);
            near(what, reg[q], want_reg[q]);
            snprintf(what, sizeof what, "subutai = FSM + NoC, episode %d, tid %u leaves", e, q);
            near(what, rel[q], want_rel[q]);
        }
        if (e == 0) /* the figure by hand: core 0 queued (10m + 5 = 25 ns) before core 63's request reaches NI_0
                     * at 56; the caller answered at 56 + 7 + back, core 0 at 56 + 7 + (9m + 3c) */
            near("subutai 2 threads: last departure", fmax(rel[0], rel[1]), 56 + 7 + 58);
        base = fmax(rel[0], rel[1]) + 1000;
    }
    close_dev(&x);
    sim_machine_free(&m);
}
