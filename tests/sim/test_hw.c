/* test_hw.c — the sim/hw devices against their cost formulas (docs/sim-hw.md), computed here by hand
 * from the machine files' numbers: exact virtual times, no wall clock. Also: refusals, arrival
 * serialization (HARP's 8-way path queues the 9th; the HBS and Subutai FSM serve one message at a time),
 * back-to-back episodes, and that every device releases nobody before the last registration.
 * Here: the device list and 000's devices (HARP, barwait, photonic); 001's Reflex and 004's Subutai are in
 * test_hw_noc.c, the shared helpers (episodes, machine variants, checks) in hw_check.c.
 *
 * Usage: test_hw [MACHINES_DIR]   (default: the source tree's sim/machines) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw.h"
#include "hw_check.h"
#include "machine.h"

static void test_list(void)
{
    unsigned k = 0;
    for (const struct sim_hw *const *d = sim_hw_devices; *d; d++, k++) {
        checks++;
        if (!(*d)->name || !(*d)->summary || !(*d)->setup || !(*d)->arrive || !(*d)->release || !(*d)->teardown)
            fail("device %u is incomplete", k);
        else if (sim_hw_find((*d)->name) != *d)
            fail("sim_hw_find(%s) does not find it", (*d)->name);
    }
    checks++;
    if (k != 6 || sim_hw_find("hw-nothing") || sim_hw_find(NULL))
        fail("device list: %u devices, or sim_hw_find found a device that does not exist", k);
}

/* HARP, 000 §3: L = 38 cycles at 2.4 GHz (assumed, 000 §3.3's projection), a = 1 AFU cycle at 400 MHz,
 * P = 8; departures one AFU cycle each (6 CPU cycles / 2.4 GHz). */
static void test_harp(void)
{
    struct sim_machine m, v;
    struct dev x;
    unsigned hw[MAXN];
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN];
    const double L = 38 / 2.4, a = 1 / 0.4, ad = 6 / 2.4;
    load("harp-broadwell", &m);

    /* one thread: write, count, one departure read */
    iota(hw, 1, 1);
    must_open(&x, "hw-harp", &m, 1, hw);
    t[0] = 10;
    double ta = episode(&x, t, reg, rel);
    near("harp n=1 registration", reg[0], 10 + L + a);
    near("harp n=1 release", rel[0], ta + ad + L);
    /* the same again later: a new episode starts from idle hardware */
    t[0] = 100;
    ta = episode(&x, t, reg, rel);
    near("harp n=1 second episode", rel[0], 100 + L + a + ad + L);
    close_dev(&x);

    /* nine simultaneous arrivals: the counter serializes (one AFU cycle each) */
    iota(hw, 9, 1);
    memset(t, 0, sizeof t);
    must_open(&x, "hw-harp", &m, 9, hw);
    ta = episode(&x, t, reg, rel);
    for (unsigned k = 0; k < 8; k++)
        near("harp 9@0 registration k<8", reg[k], L + (k + 1) * a);
    near("harp 9@0 9th registration", reg[8], fmax(2 * L, L + 8 * a) + a);
    for (unsigned j = 0; j < 9; j++) /* the 9th answer finds slot 0 free again: z_0 + L < z_8 */
        near("harp 9@0 release", rel[j], ta + (j + 1) * ad + L);
    close_dev(&x);

    /* a slower path (100 cycles): the 9th arrival waits for one of the 8 slots */
    const char *slow[] = { "set devices.afu.cpu_afu_latency 100 cycles" };
    variant("harp-broadwell", &v, 1, slow);
    const double Ls = 100 / 2.4;
    must_open(&x, "hw-harp", &v, 9, hw);
    ta = episode(&x, t, reg, rel);
    for (unsigned k = 0; k < 8; k++)
        near("harp slow registration k<8", reg[k], Ls + (k + 1) * a);
    near("harp slow: the 9th queues for a slot", reg[8], 2 * Ls + a);
    for (unsigned j = 0; j < 8; j++)
        near("harp slow release j<8", rel[j], ta + (j + 1) * ad + Ls);
    near("harp slow: the 9th answer queues for a slot", rel[8], ta + ad + 2 * Ls);
    close_dev(&x);
    /* eight fit: no queueing */
    must_open(&x, "hw-harp", &v, 8, hw);
    episode(&x, t, reg, rel);
    near("harp slow, 8 arrivals: no slot wait", reg[7], Ls + 8 * a);
    close_dev(&x);
    sim_machine_free(&v);

    /* 000 §3.3's best case: ideal path (L = 0, full parallelism), 28 threads: 2 x 28 AFU cycles = 336 CPU cycles */
    const char *ideal[] = { "set devices.afu.cpu_afu_latency 0 ns",
                            "set devices.afu.interconnect_parallelism 28 count" };
    variant("harp-broadwell", &v, 2, ideal);
    iota(hw, 28, 1);
    must_open(&x, "hw-harp", &v, 28, hw);
    ta = episode(&x, t, reg, rel);
    double last = 0;
    for (unsigned j = 0; j < 28; j++)
        last = fmax(last, rel[j]);
    near("harp ideal 28 threads: 336 CPU cycles (000 §3.3)", last * 2.4, 336);
    close_dev(&x);
    sim_machine_free(&v);
    sim_machine_free(&m);
}

/* hw-harp's refusals: a machine without an AFU, no participants, more than the hardware threads, an
 * AFU without its latency */
static void test_harp_refused(void)
{
    struct sim_machine m, v, tile;
    unsigned hw[MAXN];
    iota(hw, 28, 1);
    load("harp-broadwell", &m);
    load("tile64", &tile);
    refused("hw-harp", &tile, 4, hw, "hw-harp needs devices.afu (a HARP machine, e.g. harp-broadwell)");
    sim_machine_free(&tile);
    refused("hw-harp", &m, 0, hw, "no participants");
    iota(hw, 29, 1);
    refused("hw-harp", &m, 29, hw, "29 participants on harp-broadwell, which has 28 hardware threads");
    const char *noL[] = { "del devices.afu.cpu_afu_latency" };
    variant("harp-broadwell", &v, 1, noL);
    refused("hw-harp", &v, 2, hw, "cpu_afu_latency: missing");
    sim_machine_free(&v);
    sim_machine_free(&m);
}

/* hw-harp-prototype: hw-harp's model with devices.afu.prototype_latency (a PCIe transfer, 450 ns) as L —
 * the same registrations and releases as hw-harp on a machine whose cpu_afu_latency is that value */
static void test_harp_prototype(void)
{
    struct sim_machine m, v;
    struct dev x, y;
    unsigned hw[MAXN];
    double t[MAXN], reg[MAXN], rel[MAXN], reg2[MAXN], rel2[MAXN];
    const double Lp = 450, a = 1 / 0.4, ad = 6 / 2.4;
    load("harp-broadwell", &m);
    iota(hw, 1, 1);
    must_open(&x, "hw-harp-prototype", &m, 1, hw);
    t[0] = 10;
    double ta = episode(&x, t, reg, rel);
    near("harp prototype n=1 registration", reg[0], 10 + Lp + a);
    near("harp prototype n=1 release", rel[0], ta + ad + Lp);
    close_dev(&x);

    const char *as_projected[] = { "set devices.afu.cpu_afu_latency 450 ns" };
    variant("harp-broadwell", &v, 1, as_projected);
    iota(hw, 28, 1);
    for (unsigned q = 0; q < 28; q++)
        t[q] = (q * 7919u % 97u) * 11.3; /* staggered over about 1 us: some arrivals queue for a slot */
    must_open(&x, "hw-harp-prototype", &m, 28, hw);
    must_open(&y, "hw-harp", &v, 28, hw);
    episode(&x, t, reg, rel);
    episode(&y, t, reg2, rel2);
    for (unsigned q = 0; q < 28; q++) {
        near("harp prototype = hw-harp at L = 450 ns: registration", reg[q], reg2[q]);
        near("harp prototype = hw-harp at L = 450 ns: release", rel[q], rel2[q]);
    }
    close_dev(&x);
    close_dev(&y);
    sim_machine_free(&v);

    const char *noP[] = { "del devices.afu.prototype_latency" };
    variant("harp-broadwell", &v, 1, noP);
    refused("hw-harp-prototype", &v, 2, hw, "hw-harp-prototype needs devices.afu (a HARP machine");
    refused("hw-harp-prototype", &v, 2, hw, "prototype_latency: missing");
    sim_machine_free(&v);
    sim_machine_free(&m);
}

/* barwait, 000 §4 */
/* hw-barwait on KNL: the mesh to the HBS tile, SMT siblings, one tile's cores, 000 §4.2's d = 0 estimate */
static void test_barwait_knl(void)
{
    struct sim_machine m, v;
    struct dev x;
    unsigned hw[MAXN];
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN], ta;

    /* KNL: HBS at tile 12 = (2,2) (eccentricity 5 with the corners disabled); hop = (3 + 1) / 1.3 ns,
     * d = 1 mesh cycle. hw = (tile x 2 + core) x 4 + smt. */
    load("knl7210", &m);
    const double h = 4 / 1.3, d = 1 / 1.3;
    unsigned three[] = { 0, 96, 248 }; /* tile 0 (1,0): 3 hops; tile 12: 0; tile 31 (4,5): 5 */
    must_open(&x, "hw-barwait", &m, 3, three);
    ta = episode(&x, t, reg, rel);
    near("barwait knl reg tile 0", reg[0], 3 * h + d);
    near("barwait knl reg tile 12 (fills the idle port first)", reg[1], d);
    near("barwait knl reg tile 31", reg[2], 5 * h + d);
    near("barwait knl t_all", ta, 5 * h + d);
    near("barwait knl rel tile 12 (first registered core)", rel[1], ta);
    near("barwait knl rel tile 0 (second core)", rel[0], ta + d + 3 * h);
    near("barwait knl rel tile 31 (third core)", rel[2], ta + 2 * d + 5 * h);
    close_dev(&x);

    unsigned smt[] = { 0, 1 }; /* SMT siblings: two messages in, one barrier-complete out */
    must_open(&x, "hw-barwait", &m, 2, smt);
    ta = episode(&x, t, reg, rel);
    near("barwait knl smt reg 0", reg[0], 3 * h + d);
    near("barwait knl smt reg 1 (port busy)", reg[1], 3 * h + 2 * d);
    near("barwait knl smt rel 0", rel[0], ta + 3 * h);
    near("barwait knl smt rel 1 (same core, same message)", rel[1], ta + 3 * h);
    close_dev(&x);

    unsigned cores[] = { 96, 100 }; /* two cores of the HBS's own tile: serialized in, serialized out */
    must_open(&x, "hw-barwait", &m, 2, cores);
    ta = episode(&x, t, reg, rel);
    near("barwait knl same tile reg", reg[1], 2 * d);
    near("barwait knl same tile rel 0", rel[0], ta);
    near("barwait knl same tile rel 1", rel[1], ta + d);
    close_dev(&x);

    /* d = 0: 000 §4.2's hop-only estimate, 2 x hops x (1 + 3) cycles; all 256 threads at once */
    const char *nod[] = { "set devices.hbs.message_interval 0 ns" };
    variant("knl7210", &v, 1, nod);
    iota(hw, 256, 1);
    must_open(&x, "hw-barwait", &v, 256, hw);
    ta = episode(&x, t, reg, rel);
    near("barwait knl d=0 t_all: farthest tile 5 hops", ta, 5 * h);
    near("barwait knl d=0 tile 31 leaves", rel[255], 10 * h);
    near("barwait knl d=0: 40 cycles (000 §4.2 estimates 48 for about 6 hops)", rel[255] * 1.3, 40);
    near("barwait knl d=0 tile 12 leaves", rel[96], ta);
    close_dev(&x);
    sim_machine_free(&v);
    sim_machine_free(&m);
}

/* hw-barwait on the HARP processor (HBS at the L3), and a machine without an HBS refused */
static void test_barwait_harp(void)
{
    struct sim_machine m;
    struct dev x;
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN], ta;
    /* HARP processor, HBS at the L3: leg = 38 / 2 cycles at 2.4 GHz, d = 1 core cycle */
    load("harp-broadwell", &m);
    const double leg = 19 / 2.4, dc = 1 / 2.4;
    unsigned two[] = { 0, 2 };
    t[0] = 0, t[1] = 1;
    must_open(&x, "hw-barwait", &m, 2, two);
    ta = episode(&x, t, reg, rel);
    near("barwait harp reg 0", reg[0], leg + dc);
    near("barwait harp reg 1", reg[1], 1 + leg + dc);
    near("barwait harp rel 0", rel[0], ta + leg);
    near("barwait harp rel 1", rel[1], ta + dc + leg);
    close_dev(&x);
    sim_machine_free(&m);

    struct sim_machine k;
    load("kunpeng920", &k);
    refused("hw-barwait", &k, 2, two, "hw-barwait needs devices.hbs");
    sim_machine_free(&k);
}

/* hw-barwait on the 4-socket Opteron: sockets on the ring, 000 §4.2's 390 cycles, a missing link refused */
static void test_barwait_opteron(void)
{
    struct sim_machine m, v;
    struct dev x;
    unsigned hw[MAXN];
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN], ta;
    const char *nod[] = { "set devices.hbs.message_interval 0 ns" };
    /* 4-socket Opteron: leg = 10 cycles at 2.1 GHz, socket-arrive 44 ns per socket on the ring */
    load("opteron6272x4", &m);
    const double lo = 10 / 2.1, dO = 1 / 2.1;
    unsigned socks[] = { 0, 16 };
    t[0] = t[1] = 0;
    must_open(&x, "hw-barwait", &m, 2, socks);
    ta = episode(&x, t, reg, rel);
    near("barwait opteron reg (own socket's HBS)", reg[1], lo + dO);
    near("barwait opteron rel 2 sockets", rel[0], ta + 2 * 44 + lo);
    near("barwait opteron rel 2 sockets (other)", rel[1], ta + 2 * 44 + lo);
    close_dev(&x);
    unsigned one[] = { 0, 2 };
    must_open(&x, "hw-barwait", &m, 2, one);
    ta = episode(&x, t, reg, rel);
    near("barwait opteron one socket: no socket exchange", rel[0], ta + lo);
    close_dev(&x);
    /* 000 §4.2: 20 + 4 x 44 ns x 2.1 = about 390 cycles across the four sockets (d = 0) */
    variant("opteron6272x4", &v, 1, nod);
    iota(hw, 64, 1);
    memset(t, 0, sizeof t);
    must_open(&x, "hw-barwait", &v, 64, hw);
    ta = episode(&x, t, reg, rel);
    near("barwait opteron 64 threads, d=0: 20 cycles + 4 x 44 ns (000 §4.2)", rel[63] * 2.1, 20 + 4 * 44 * 2.1);
    close_dev(&x);
    sim_machine_free(&v);
    const char *nolink[] = { "del interconnect.socket_links" };
    variant("opteron6272x4", &v, 1, nolink);
    refused("hw-barwait", &v, 2, socks, "hw-barwait needs interconnect.socket_links.hop_latency");
    sim_machine_free(&v);
    sim_machine_free(&m);
}

static void test_barwait(void)
{
    test_barwait_knl();
    test_barwait_harp();
    test_barwait_opteron();
}

/* photonic, 000 §5, on KNL: serpentine over the 32 tiles; tile 0 (1,0) first, tile 28 (1,5) last,
 * 33 hops of waveguide; w per hop, modulator and detector 0.1 ns. */
static void test_photonic(void)
{
    struct sim_machine m;
    struct dev x;
    double t[MAXN] = { 0 }, reg[MAXN], rel[MAXN], ta;
    load("knl7210", &m);
    const double w = 0.0507, tm = 0.1, td = 0.1, pend = 33 * w;
    unsigned ends[] = { 0, 224 }; /* tile 0 (p = 0) and tile 28 (p = p_end, at the fold) */
    must_open(&x, "hw-photonic", &m, 2, ends);
    ta = episode(&x, t, reg, rel);
    near("photonic reg", reg[0], tm);
    near("photonic rel tile 0 (far from the fold)", rel[0], tm + pend + pend + td);
    near("photonic rel tile 28 (at the fold)", rel[1], tm + pend + td);
    t[1] = 5; /* the ring at the fold opens last: the light is already there */
    ta = episode(&x, t, reg, rel);
    near("photonic late fold ring: t_all", ta, 5 + tm);
    near("photonic late fold ring: tile 28", rel[1], 5 + tm + td);
    near("photonic late fold ring: tile 0", rel[0], 5 + tm + pend + td);
    close_dev(&x);

    unsigned mid[] = { 40, 96 }; /* tile 5 (1,1): p = 9w; tile 12 (2,2): p = 13w */
    t[0] = 0, t[1] = 0;
    must_open(&x, "hw-photonic", &m, 2, mid);
    ta = episode(&x, t, reg, rel);
    near("photonic mid: tile 5", rel[0], tm + (pend - 9 * w) + (pend - 9 * w) + td);
    near("photonic mid: tile 12", rel[1], tm + (pend - 9 * w) + (pend - 13 * w) + td);
    close_dev(&x);

    unsigned smt[] = { 0, 1 }; /* one core: its ring opens when both threads arrived (the first tid last) */
    t[0] = 2, t[1] = 0;
    must_open(&x, "hw-photonic", &m, 2, smt);
    ta = episode(&x, t, reg, rel);
    near("photonic smt", rel[0], 2 + tm + 2 * pend + td);
    near("photonic smt (sibling)", rel[1], 2 + tm + 2 * pend + td);
    close_dev(&x);
    sim_machine_free(&m);

    struct sim_machine hp;
    load("harp-broadwell", &hp);
    refused("hw-photonic", &hp, 2, smt, "hw-photonic needs devices.photonic");
    sim_machine_free(&hp);
}

/* Every device on each of its machines, all threads, staggered arrivals, 3 episodes: registration no
 * earlier than arrival, release no earlier than t_all (checked in episode()), the same numbers twice. */
static void test_all(void)
{
    static const struct {
        const char *dev, *machine;
    } runs[] = {
        { "hw-harp", "harp-broadwell" },   { "hw-harp-prototype", "harp-broadwell" },
        { "hw-barwait", "knl7210" },       { "hw-barwait", "harp-broadwell" },
        { "hw-barwait", "xeon8160x8" },    { "hw-barwait", "opteron6272x4" }, { "hw-photonic", "knl7210" },
        { "hw-reflex", "tile64" },         { "hw-subutai", "noc64" },
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        struct sim_machine m;
        load(runs[r].machine, &m);
        unsigned n = m.threads < MAXN ? m.threads : MAXN, hw[MAXN];
        char err[600];
        if (sim_place(&m, n, "cores", hw, err, sizeof err)) {
            fail("%s: %s", runs[r].machine, err);
            continue;
        }
        double first[MAXN], rel[MAXN], reg[MAXN], t[MAXN];
        for (int pass = 0; pass < 2; pass++) {
            struct dev x;
            must_open(&x, runs[r].dev, &m, n, hw);
            for (unsigned q = 0; q < n; q++)
                t[q] = (q * 7919u % 97u) * 0.37;
            for (int e = 0; e < 3; e++) {
                episode(&x, t, reg, rel);
                for (unsigned q = 0; q < n; q++)
                    t[q] = rel[q] + (q % 5) * 1.5;
            }
            for (unsigned q = 0; q < n; q++) {
                if (pass == 0)
                    first[q] = rel[q];
                else if (first[q] != rel[q]) {
                    fail("%s on %s: not deterministic", runs[r].dev, runs[r].machine);
                    break;
                }
            }
            close_dev(&x);
        }
        checks++;
        sim_machine_free(&m);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    test_list();
    test_harp();
    test_harp_refused();
    test_harp_prototype();
    test_barwait();
    test_photonic();
    test_reflex();
    test_subutai();
    test_subutai_fsm_count();
    test_all();
    if (failures) {
        fprintf(stderr, "test_hw: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_hw: %d checks passed\n", checks);
    return 0;
}
