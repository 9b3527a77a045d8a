/* test_machine_write.c — the machine-file writer of `andgate info --measure` (tools/machine_write.c)
 * against the simulator's reader (sim/machine_load.c): a host with fixed, made-up measurements (no live run)
 * is written, loaded back, and every value the simulator uses comes back as written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "host_model.h"
#include "machine.h"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-3 * fabs(b) + 1e-6;
}

/* What the host "measured": per layer (same core, same l3, same socket) latency and alpha; the os block. */
static const double layer_ns[3] = { 12.5, 41.0, 96.25 }, layer_alpha[3] = { 0.25, 0.5, 0.75 };
static const double os_ns[OS_N] = { 450.5, 340.25, -1, 2500.75, 615.5 };

/* The innermost layer's cold transfer did not resolve, so the writer leaves it out (it loads back as 0). */
static double cold_ns(unsigned l)
{
    return l ? layer_ns[l] / 2 : 0;
}

/* 1 socket x 2 cache groups x 2 cores x 2 SMT = 8 hardware threads, one probed pair per layer */
static void make_host(struct host *h)
{
    static int cpu[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, key_s[8], key_g[8] = { 0, 0, 0, 0, 1, 1, 1, 1 },
                     key_c[8] = { 0, 0, 1, 1, 2, 2, 3, 3 }, key_t[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    *h = (struct host){ .n = 8, .cpu = cpu, .thread_cpu = cpu, .nlv = 4, .nlayers = 3, .topo_source = "test" };
    h->lv[0] = (struct level){ "socket", "the package", key_s, 1 };
    h->lv[1] = (struct level){ "l3", "cores sharing an L3", key_g, 2 };
    h->lv[2] = (struct level){ "core", "a core", key_c, 2 };
    h->lv[3] = (struct level){ "smt", "a hardware thread", key_t, 2 };
    static const char *const shared[3] = { "core", "l3", "socket" };
    for (unsigned l = 0; l < 3; l++) {
        struct layer *ly = &h->layer[l];
        const double ns = layer_ns[l], alpha = layer_alpha[l];
        snprintf(ly->id, sizeof ly->id, "same_%s", shared[l]);
        snprintf(ly->shared, sizeof ly->shared, "%s", shared[l]);
        snprintf(ly->desc, sizeof ly->desc, "pairs whose innermost shared unit is the %s", shared[l]);
        ly->npairs = 1, ly->pa[0] = 0, ly->pb[0] = l == 0 ? 1 : l == 1 ? 2 : 4;
        ly->ns = ns, ly->alpha = alpha, ly->oneway = ns * (1 + alpha), ly->diff_ns = ns * alpha;
        for (unsigned r = 0; r < RUNS; r++)
            ly->runs[r] = ly->oneway, ly->cold_runs[r] = cold_ns(l);
        ly->cold_ns = cold_ns(l);
    }
}

static void make_facts(struct facts *x)
{
    *x = (struct facts){ .ghz = 2.5, .line = 64, .hit_ns = 1.5, .extra_ns = 7.25, .atomic_kind = "x86-lock" };
    snprintf(x->model, sizeof x->model, "Test CPU");
    snprintf(x->clock_src, sizeof x->clock_src, "derived: a fixed test value");
    snprintf(x->line_src, sizeof x->line_src, "derived: a fixed test value");
    snprintf(x->name, sizeof x->name, "roundtrip");
    snprintf(x->date, sizeof x->date, "2026-01-01T00:00:00Z");
    x->ncaches = 1;
    x->caches[0] = (struct cache){ .size = 16, .unit = "MiB", .shared_by = "l3" };
    snprintf(x->caches[0].name, sizeof x->caches[0].name, "L3");
    snprintf(x->caches[0].source, sizeof x->caches[0].source, "derived: a fixed test value");
    for (unsigned r = 0; r < RUNS; r++)
        x->hit[r] = 1.5, x->extra[r] = 7.25;
    /* the os block: every entry but the wake-up (as on a one-CPU host, which has no pair to measure) */
    for (unsigned k = 0; k < OS_N; k++) {
        x->os_ns[k] = os_ns[k];
        snprintf(x->os_src[k], sizeof x->os_src[k], "a fixed test value");
        for (unsigned r = 0; r < RUNS; r++)
            x->os_runs[k][r] = os_ns[k];
    }
}

/* Everything but the layers: name, topology, clock, line, self layer, atomics, caches, os block. */
static void check_machine_facts(const struct sim_machine *m, const struct host *h)
{
    CHECK(!strcmp(m->name, "roundtrip"), "name %s", m->name);
    CHECK(m->threads == 8 && m->nlevels == 4, "threads %u levels %u", m->threads, m->nlevels);
    for (unsigned k = 0; k < 4; k++)
        CHECK(!strcmp(m->level[k], h->lv[k].name) && m->count[k] == h->lv[k].count, "level %u: %s x %u", k,
              m->level[k], m->count[k]);
    CHECK(near(m->ghz, 2.5) && m->line_bytes == 64, "clock %g GHz, line %u", m->ghz, m->line_bytes);
    CHECK(near(m->layer[m->self_layer].ns, 1.5), "self layer %g ns", m->layer[m->self_layer].ns);
    CHECK(near(m->atomic_extra_ns, 7.25), "atomic extra %g ns", m->atomic_extra_ns);
    CHECK(m->cache_level == 1, "cache groups at level %u, want 1 (l3)", m->cache_level);
    for (unsigned k = 0; k < OS_N; k++)
        CHECK(near(m->os_ns[k], os_ns[k]), "os %s: %g ns, want %g", sim_os_names[k], m->os_ns[k], os_ns[k]);
}

/* Every written layer comes back with its latency, alpha and cold transfer, and the pairs map to the layers
 * written for their innermost shared level. */
static void check_layers(const struct sim_machine *m, const struct host *h)
{
    for (unsigned l = 0; l < 3; l++) {
        int found = 0;
        for (unsigned k = 0; k < m->nlayers; k++)
            if (!strcmp(m->layer[k].id, h->layer[l].id)) {
                found = 1;
                CHECK(near(m->layer[k].ns, layer_ns[l]) && near(m->layer[k].alpha, layer_alpha[l]),
                      "%s: %g ns alpha %g", m->layer[k].id, m->layer[k].ns, m->layer[k].alpha);
                CHECK(near(m->layer[k].cold_ns, cold_ns(l)), "%s: cold transfer %g ns", m->layer[k].id,
                      m->layer[k].cold_ns);
            }
        CHECK(found, "layer %s missing", h->layer[l].id);
    }
    static const struct { unsigned b; const char *id; } want[] = {
        { 1, "same_core" }, { 2, "same_l3" }, { 4, "same_socket" } };
    for (unsigned k = 0; k < 3; k++) {
        const char *id = m->layer[sim_machine_layer_of(m, 0, want[k].b)].id;
        CHECK(!strcmp(id, want[k].id), "0-%u: %s", want[k].b, id);
    }
}

int main(void)
{
    struct host h;
    struct facts x;
    make_host(&h);
    make_facts(&x);

    char path[] = "/tmp/andgate-machine-XXXXXX.json";
    int fd = mkstemps(path, 5);
    CHECK(fd >= 0, "mkstemps");
    FILE *f = fdopen(fd, "w");
    machine_write(f, &h, &x);
    fclose(f);
    struct sim_machine m;
    char err[600];
    int rc = sim_machine_load(path, &m, err, sizeof err);
    CHECK(rc == 0, "the written file does not load: %s", err);
    if (rc == 0) {
        check_machine_facts(&m, &h);
        check_layers(&m, &h);
        sim_machine_free(&m);
    }
    unlink(path);
    return check_done();
}
