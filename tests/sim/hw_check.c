/* hw_check.c — test_hw's shared helpers (hw_check.h): failure counting, machine files and their variants,
 * the devices opened and run episode by episode the way sim/engine.c does. */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_check.h"

#ifndef AG_TEST_MACHINES
#define AG_TEST_MACHINES "sim/machines"
#endif

const char *dir = AG_TEST_MACHINES;
int failures, checks;

void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

void near(const char *what, double got, double want)
{
    checks++;
    if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
        fail("%s: got %.12g ns, want %.12g ns", what, got, want);
}

void load(const char *name, struct sim_machine *m)
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

void variant(const char *name, struct sim_machine *m, int nops, const char *const *ops)
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

int open_dev(struct dev *x, const char *name, const struct sim_machine *m, unsigned n, const unsigned *hw,
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

void must_open(struct dev *x, const char *name, const struct sim_machine *m, unsigned n, const unsigned *hw)
{
    char err[600];
    if (open_dev(x, name, m, n, hw, err, sizeof err)) {
        fprintf(stderr, "%s on %s with %u: refused: %s\n", name, m->name, n, err);
        exit(2);
    }
}

void close_dev(struct dev *x)
{
    x->d->teardown(&x->c);
}

double episode(struct dev *x, const double *t, double *reg, double *rel)
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

void refused(const char *dev, const struct sim_machine *m, unsigned n, const unsigned *hw, const char *needle)
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

void iota(unsigned *hw, unsigned n, unsigned stride)
{
    for (unsigned i = 0; i < n; i++)
        hw[i] = i * stride;
}
