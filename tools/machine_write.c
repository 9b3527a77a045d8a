/* machine_write.c — the andgate-machine/1 writer (sim/machines/README.md) for a measured host; the
 * reader is sim/machine_load.c (tests/test_machine_write.c: the round trip). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "andgate.h"
#include "host_model.h"
#include "json.h"

/* ns, with about four significant digits and no exponent */
static void num(FILE *f, double v)
{
    double a = fabs(v);
    int dec = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4;
    fprintf(f, "%.*f", dec, v);
}

void machine_runs_text(char *buf, size_t len, const double *v, unsigned n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && o + 16 < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%.2f", i ? " " : "", v[i]);
}

/* {"value": v, "unit": u, "source": s[, "note": note]} */
static void qty(FILE *f, double v, const char *unit, const char *src, const char *note)
{
    fprintf(f, "{\"value\": ");
    if (!strcmp(unit, "count") || !strcmp(unit, "bytes"))
        fprintf(f, "%.0f", v);
    else
        num(f, v);
    fprintf(f, ", \"unit\": \"%s\", \"source\": ", unit);
    json_str(f, src);
    if (note && *note) {
        fprintf(f, ", \"note\": ");
        json_str(f, note);
    }
    fputc('}', f);
}

/* name, title, description, references */
static void write_head(FILE *f, const struct host *h, const struct facts *x)
{
    char note[768];
    fprintf(f, "{\n  \"format\": \"andgate-machine/1\",\n  \"name\": ");
    json_str(f, x->name);
    snprintf(note, sizeof note, "This machine: %s, %u usable hardware threads (measured)", x->model, h->n);
    fprintf(f, ",\n  \"title\": ");
    json_str(f, note);
    snprintf(note, sizeof note,
             "Written by andgate %s info --measure on %s from the %u CPUs of its affinity mask (%s topology). "
             "Latencies are medians of repeated runs on this machine%s; re-run after a hardware or VM change.",
             ANDGATE_VERSION_STRING, x->date, h->n, h->topo_source,
             x->hypervisor ? " under a hypervisor (vCPUs, their placement on physical cores unknown)" : "");
    fprintf(f, ",\n  \"description\": ");
    json_str(f, note);
    fprintf(f, ",\n  \"references\": {\n    \"002\": \"Gao, Fang, Huang, Xu, Wang: Optimizing Barrier Synchronization "
               "on ARMv8 Many-Core Architectures, CLUSTER 2021, doi:10.1109/Cluster48925.2021.00044 (seed "
               "002_22d269b377cdac79)\"\n  },\n");
}

/* the clock, the line size, the caches */
static void write_caches(FILE *f, const struct host *h, const struct facts *x)
{
    (void)h;
    fprintf(f, "  \"clock\": {\n    \"core\": ");
    qty(f, x->ghz, "GHz", x->clock_src, "latencies below are in ns; the clock only converts values in cycles");
    fprintf(f, "\n  },\n  \"cache_line\": ");
    qty(f, x->line, "bytes", x->line_src, NULL);
    fprintf(f, ",\n  \"caches\": [");
    for (unsigned i = 0; i < x->ncaches; i++) {
        const struct cache *c = &x->caches[i];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"size\": ", i ? "," : "", c->name);
        qty(f, c->size, c->unit, c->source, NULL);
        fprintf(f, ", \"shared_by\": \"%s\"}", c->shared_by);
    }
    fprintf(f, "%s],\n", x->ncaches ? "\n  " : "");
}

/* the levels counted over the usable CPUs, and which OS CPU each model thread is */
static void write_topology(FILE *f, const struct host *h, const struct facts *x)
{
    char src[768], note[768];
    (void)x;
    fprintf(f, "  \"topology\": {\n    \"levels\": [");
    snprintf(src, sizeof src, "derived: counted by andgate info --measure over the %u usable CPUs (%s topology)", h->n,
             h->topo_source);
    for (unsigned k = 0; k < h->nlv; k++) {
        fprintf(f, "%s\n      {\"name\": \"%s\", \"count\": ", k ? "," : "", h->lv[k].name);
        qty(f, h->lv[k].count, "count", src, NULL);
        fprintf(f, ", \"description\": ");
        json_str(f, h->lv[k].desc);
        fputc('}', f);
    }
    fprintf(f, "\n    ],\n    \"hardware_threads\": ");
    qty(f, h->n, "count", src, NULL);
    size_t o = (size_t)snprintf(note, sizeof note, "model thread -> OS CPU:");
    for (unsigned t = 0; t < h->n && o + 24 < sizeof note; t++)
        o += (size_t)snprintf(note + o, sizeof note - o, " %u:%d", t, h->thread_cpu[t]);
    if (o + 24 >= sizeof note)
        snprintf(note + o, sizeof note - o, " ...");
    fprintf(f, ",\n    \"note\": ");
    json_str(f, note);
    fprintf(f, "\n  },\n");
}

/* the measured layers (self and one per sharing level), the layer map, the interconnect (not identified) */
static void write_layers(FILE *f, const struct host *h, const struct facts *x)
{
    char src[768], note[768], runs[512];
    fprintf(f, "  \"latency_layers\": [\n    {\"id\": \"self\", \"kind\": \"fixed\", \"description\": \"a hit in the "
               "thread's own L1\", \"latency\": ");
    snprintf(src, sizeof src, SRC_MEASURED "chain of dependent loads over 64 L1-resident lines on CPU %d, median of %d "
             "runs of %d loads", h->cpu[0], RUNS, HIT_LOADS);
    machine_runs_text(runs, sizeof runs, x->hit, RUNS);
    snprintf(note, sizeof note, "runs (ns): %s", runs);
    qty(f, x->hit_ns, "ns", src, note);
    fputc('}', f);
    for (unsigned l = 0; l < h->nlayers; l++) {
        const struct layer *ly = &h->layer[l];
        char pairs[128];
        size_t o = 0;
        for (unsigned p = 0; p < ly->npairs; p++)
            o += (size_t)snprintf(pairs + o, sizeof pairs - o, "%s%d-%d", p ? ", " : "", ly->pa[p], ly->pb[p]);
        snprintf(src, sizeof src, SRC_MEASURED "core-to-core ping-pong one-way P (common/c2c.c: round trip / 2, the "
                 "median of %d round trips per run) on CPUs %s, median of %u, minus the measured invalidation "
                 "alpha x L (a hand-off is L + alpha x L in the model, 002 §III-B)", C2C_ROUNDS, pairs,
                 ly->npairs * RUNS);
        machine_runs_text(runs, sizeof runs, ly->runs, ly->npairs * RUNS);
        snprintf(note, sizeof note, "P = %.2f ns, alpha x L = %.2f ns; P runs (ns): %s", ly->oneway, ly->diff_ns, runs);
        fprintf(f, ",\n    {\"id\": \"%s\", \"kind\": \"fixed\", \"description\": ", ly->id);
        json_str(f, ly->desc);
        fprintf(f, ", \"latency\": ");
        qty(f, ly->ns, "ns", src, note);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"layer_map\": {\n    \"self\": \"self\",\n    \"by_shared_level\": {");
    for (unsigned l = 0; l < h->nlayers; l++)
        fprintf(f, "%s\n      \"%s\": \"%s\"", l ? "," : "", h->layer[l].shared, h->layer[l].id);
    fprintf(f, "%s}\n  },\n", h->nlayers ? "\n    " : "");

    fprintf(f, "  \"interconnect\": {\n    \"kind\": \"point-to-point\",\n    \"description\": \"not identified by "
               "andgate info --measure: the measured layers include whatever connects the cores; no hop-by-hop "
               "model\"\n  },\n");
}

/* One per-layer transfer object of $.coherence (sim/machines/README.md, "Cold transfers", "Paused
 * hand-offs"): key, then each layer's value with its source and note; a layer whose measurement did not
 * resolve (<= 0) is left out and keeps its latency. */
enum { SRC_LEN = 512, NOTE_LEN = 640 }; /* the source and note a transfer's value function writes */
static void write_transfers(FILE *f, const struct host *h, const char *key,
                            double (*value)(const struct layer *ly, char *src, char *note))
{
    char src[SRC_LEN], note[NOTE_LEN];
    unsigned n = 0;
    fprintf(f, "    \"%s\": {", key);
    for (unsigned l = 0; l < h->nlayers; l++) {
        const struct layer *ly = &h->layer[l];
        double v = value(ly, src, note);
        if (v <= 0)
            continue;
        fprintf(f, "%s\n      \"%s\": ", n++ ? "," : "", ly->id);
        qty(f, v, "ns", src, note);
    }
    fprintf(f, "%s},\n", n ? "\n    " : "");
}

/* the cold transfer: a load of a line the other CPU modified while nobody polled it */
static double cold_value(const struct layer *ly, char *src, char *note)
{
    char runs[512];
    snprintf(src, SRC_LEN, SRC_MEASURED "a load by CPU %d of a line CPU %d has just modified with nobody polling it, minus a "
             "load of a line CPU %d owns, each line on its own page (tools/measure_transfer.c), median of %d runs of %d "
             "trials", ly->pa[0], ly->pb[0], ly->pa[0], RUNS, UPG_TRIALS);
    machine_runs_text(runs, sizeof runs, ly->cold_runs, RUNS);
    snprintf(note, NOTE_LEN, "any transfer to a thread that was not polling the line, e.g. a fetch-and-add on a counter the "
             "other CPU incremented; the layer latency (%.2f ns) is a spinning waiter's re-read in a hand-off; runs "
             "(ns): %s", ly->ns, runs);
    return ly->cold_ns;
}

/* the paused re-read: the paused ping-pong's one-way less the invalidation the model charges (alpha x L) */
static double paused_value(const struct layer *ly, char *src, char *note)
{
    char runs[512];
    snprintf(src, SRC_LEN, SRC_MEASURED "one-way time of a ping-pong between CPUs %d and %d whose spin loops pause "
             "(tools/measure_transfer.c), median of %d runs, minus alpha x L (%.2f ns) as for the layer latency",
             ly->pa[0], ly->pb[0], RUNS, ly->alpha * ly->ns);
    machine_runs_text(runs, sizeof runs, ly->pp_runs, RUNS);
    snprintf(note, NOTE_LEN, "a hand-off's re-read by a waiter that polled with pause (pause, hybrid's spin phase); the "
             "layer latency (%.2f ns) is an unpaused spinner's; paused one-way runs (ns): %s", ly->ns, runs);
    return ly->paused_ns;
}

/* the measured invalidation weight per layer, the cold and paused transfers and the atomic's extra cost */
static void write_coherence(FILE *f, const struct host *h, const struct facts *x)
{
    char src[768], note[768], runs[512];
    fprintf(f, "  \"coherence\": {\n    \"protocol\": \"measured host (protocol not identified)\",\n"
               "    \"invalidation\": {\n      \"model\": \"alpha\",\n      \"alpha\": {");
    for (unsigned l = 0; l < h->nlayers; l++) {
        const struct layer *ly = &h->layer[l];
        snprintf(src, sizeof src, SRC_MEASURED "(store + fence to a line CPU %d also holds - store + fence to an owned "
                 "line) / L(%s) on CPUs %d-%d, clamped to [0, 1], median of %d runs of %d trials (%s)", ly->pb[0],
                 ly->id, ly->pa[0], ly->pb[0], RUNS, UPG_TRIALS, ALPHA_RULE);
        snprintf(note, sizeof note, "store to the shared line %.2f ns, to an owned line %.2f ns: alpha x L = %.2f ns, "
                 "L = %.2f ns%s", ly->up_ns, ly->own_ns, ly->diff_ns, ly->ns,
                 ly->diff_ns <= 0 || ly->diff_ns > ly->ns ? " (clamped: alpha to [0, 1], L to P / 2 where alpha x L "
                 "exceeded it)" : "");
        fprintf(f, "%s\n        \"%s\": ", l ? "," : "", ly->id);
        qty(f, ly->alpha, "ratio", src, note);
    }
    fprintf(f, "%s},\n      \"note\": \"002 §III-B's per-layer RFO weight: a store to a line one other thread "
               "holds costs alpha x L more than a store to an owned line; measured with one sharer\"\n    },\n",
            h->nlayers ? "\n      " : "");
    write_transfers(f, h, "cold_transfer", cold_value);
    write_transfers(f, h, "paused_transfer", paused_value);
    fprintf(f, "    \"atomic\": {\n      \"kind\": \"%s\",\n      \"extra\": ", x->atomic_kind);
    snprintf(src, sizeof src, SRC_MEASURED "atomic fetch-and-add (seq_cst, each on the previous one's result) minus a "
             "plain store, per operation over %d back-to-back operations on an owned line on CPU %d, median of %d",
             ATOMIC_OPS, h->cpu[0], RUNS);
    machine_runs_text(runs, sizeof runs, x->extra, RUNS);
    snprintf(note, sizeof note, "fetch-and-add %.2f ns, store %.2f ns; runs (ns): %s%s", x->rmw_ns, x->store_ns, runs,
             x->extra_ns <= 0 ? " (clamped to 0)" : "");
    qty(f, x->extra_ns > 0 ? x->extra_ns : 0, "ns", src, note);
    fprintf(f, "\n    }\n  },\n  \"notes\": [\n    ");
    snprintf(note, sizeof note, "andgate %s info --measure, %s", ANDGATE_VERSION_STRING, x->date);
    json_str(f, note);
    fprintf(f, ",\n    \"Only the CPUs of the affinity mask were measured; layers exist for the sharing levels their "
               "pairs have. Re-run on all CPUs (or a larger regular subset) to describe more of the machine.\"\n"
               "  ]\n}\n");
}

const char *const host_os_names[OS_N] = { "futex_wait", "futex_wake", "wakeup", "context_switch", "yield" };

/* the os block: what a sleeping waiter pays (issue 12 item 2); an entry not measured is left out */
static void write_os(FILE *f, const struct facts *x)
{
    char src[400], note[768], runs[512];
    fprintf(f, "  \"os\": {");
    for (unsigned k = 0, n = 0; k < OS_N; k++) {
        if (x->os_ns[k] < 0)
            continue;
        snprintf(src, sizeof src, SRC_MEASURED "%s, median of %d runs", x->os_src[k], RUNS);
        machine_runs_text(runs, sizeof runs, x->os_runs[k], RUNS);
        snprintf(note, sizeof note, "runs (ns): %s", runs);
        fprintf(f, "%s\n    \"%s\": ", n++ ? "," : "", host_os_names[k]);
        qty(f, x->os_ns[k], "ns", src, note);
    }
    fprintf(f, "\n  },\n");
}

void machine_write(FILE *f, const struct host *h, const struct facts *x)
{
    write_head(f, h, x);
    write_caches(f, h, x);
    write_topology(f, h, x);
    write_layers(f, h, x);
    write_os(f, x);
    write_coherence(f, h, x);
}
