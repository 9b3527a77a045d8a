/* test_hw.c — the sim/hw devices against their cost formulas (docs/sim-hw.md), computed here by hand
 * from the machine files' numbers: exact virtual times, no wall clock. Also: refusals, arrival
 * serialization (HARP's 8-way path queues the 9th; the HBS and Subutai FSM serve one message at a time),
 * back-to-back episodes, and that every device releases nobody before the last registration.
 *
 * Usage: test_hw [MACHINES_DIR]   (default: the source tree's sim/machines) */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw.h"
#include "machine.h"
#include "subutai_fsm.h"

#ifndef AG_TEST_MACHINES
#define AG_TEST_MACHINES "sim/machines"
#endif

#define MAXN 512

static const char *dir = AG_TEST_MACHINES;
static int failures, checks;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static void near(const char *what, double got, double want)
{
    checks++;
    if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
        fail("%s: got %.12g ns, want %.12g ns", what, got, want);
}

static void load(const char *name, struct sim_machine *m)
{
    char path[1024], err[600];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    if (sim_machine_load(path, m, err, sizeof err)) {
        fprintf(stderr, "cannot load %s: %s\n", path, err);
        exit(2);
    }
}

/* ---- machine variants: a copy of a file with one quantity set or one member removed ---- */

static json_t *walk(json_t *root, const char *path, char *last, size_t lastlen)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *dot = strrchr(buf, '.');
    snprintf(last, lastlen, "%s", dot ? dot + 1 : buf);
    if (!dot)
        return root;
    *dot = 0;
    json_t *v = root;
    for (char *save, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        v = json_object_get(v, k);
    return v;
}

/* ops: "set PATH VALUE UNIT" or "del PATH", applied to NAME's file; loads the result into m. */
static void variant(const char *name, struct sim_machine *m, int nops, const char *const *ops)
{
    char path[1024], tmp[] = "/tmp/test_hw_XXXXXX.json", err[600];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        fprintf(stderr, "%s: %s\n", path, je.text);
        exit(2);
    }
    for (int i = 0; i < nops; i++) {
        char op[8], p[200], unit[16], last[256];
        double v = 0;
        int k = sscanf(ops[i], "%7s %199s %lf %15s", op, p, &v, unit);
        json_t *parent = walk(root, p, last, sizeof last);
        if (!parent) {
            fprintf(stderr, "variant %s: no parent for %s\n", name, p);
            exit(2);
        }
        if (!strcmp(op, "del"))
            json_object_del(parent, last);
        else if (k == 4)
            json_object_set_new(parent, last,
                                json_pack("{s:f, s:s, s:s}", "value", v, "unit", unit, "source", "assumed: test"));
    }
    int fd = mkstemps(tmp, 5);
    if (fd < 0 || json_dumpfd(root, fd, 0)) {
        fprintf(stderr, "cannot write %s\n", tmp);
        exit(2);
    }
    close(fd);
    json_decref(root);
    if (sim_machine_load(tmp, m, err, sizeof err)) {
        fprintf(stderr, "variant of %s: %s\n", name, err);
        exit(2);
    }
    unlink(tmp);
}

/* ---- running episodes the way sim/engine.c does ---- */

struct dev {
    const struct sim_hw *d;
    struct sim_hw_ctx c;
    unsigned hw[MAXN];
};

static int open_dev(struct dev *x, const char *name, const struct sim_machine *m, unsigned n, const unsigned *hw,
                    char *err, size_t errlen)
{
    x->d = sim_hw_find(name);
    if (!x->d) {
        snprintf(err, errlen, "no device %s", name);
        return -1;
    }
    memcpy(x->hw, hw, n * sizeof *hw);
    x->c = (struct sim_hw_ctx){ .m = m, .n = n, .hw = x->hw };
    return x->d->setup(&x->c, err, errlen);
}

static void must_open(struct dev *x, const char *name, const struct sim_machine *m, unsigned n, const unsigned *hw)
{
    char err[600];
    if (open_dev(x, name, m, n, hw, err, sizeof err)) {
        fprintf(stderr, "%s on %s with %u: refused: %s\n", name, m->name, n, err);
        exit(2);
    }
}

static void close_dev(struct dev *x)
{
    x->d->teardown(&x->c);
}

/* Arrivals in nondecreasing t (ties: tid order), then every release with t_all = the largest registration. */
static double episode(struct dev *x, const double *t, double *reg, double *rel)
{
    unsigned n = x->c.n, ord[MAXN];
    for (unsigned i = 0; i < n; i++) {
        unsigned j = i;
        while (j > 0 && t[ord[j - 1]] > t[i]) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    double t_all = -INFINITY;
    for (unsigned k = 0; k < n; k++) {
        unsigned q = ord[k];
        reg[q] = x->d->arrive(&x->c, q, t[q]);
        if (reg[q] < t[q])
            fail("%s: tid %u registered at %g before it arrived at %g", x->d->name, q, reg[q], t[q]);
        t_all = fmax(t_all, reg[q]);
    }
    for (unsigned q = 0; q < n; q++) {
        rel[q] = x->d->release(&x->c, q, t_all);
        if (rel[q] < t_all)
            fail("%s: tid %u leaves at %g before the last registration %g", x->d->name, q, rel[q], t_all);
    }
    return t_all;
}

static void refused(const char *dev, const struct sim_machine *m, unsigned n, const unsigned *hw, const char *needle)
{
    struct dev x;
    char err[600] = "";
    checks++;
    if (!open_dev(&x, dev, m, n, hw, err, sizeof err)) {
        fail("%s on %s with %u participants: accepted, expected a refusal naming '%s'", dev, m->name, n, needle);
        close_dev(&x);
    } else if (!strstr(err, needle)) {
        fail("%s on %s: refusal '%s' does not name '%s'", dev, m->name, err, needle);
    }
}

static void iota(unsigned *hw, unsigned n, unsigned stride)
{
    for (unsigned i = 0; i < n; i++)
        hw[i] = i * stride;
}

/* ---------------------------------------------------------------------------------------------- */

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

    /* refusals */
    struct sim_machine tile;
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

/* Reflex, 001, on TILE64: h = 1 STN cycle at 700 MHz; fence = o_s = o_r = 1 cycle; B = 4 flits. */
static void test_reflex(void)
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
static void test_subutai(void)
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
static void test_subutai_fsm_count(void)
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
