/* spec.c — the one spec-string parser: name[:key=value[,key=value]...] (DESIGN.md, "Spec strings"). */
#include "spec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *msg, size_t len, const char *fmt, ...)
{
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return EINVAL;
}

/* Appends to msg without overflowing it. */
static void append(char *msg, size_t len, const char *s)
{
    if (!msg || !len)
        return;
    size_t have = strlen(msg);
    if (have + 1 < len)
        snprintf(msg + have, len - have, "%s", s);
}

const struct ag_key *ag_spec_key(const struct ag_table *t, const struct ag_kind *kind, unsigned j)
{
    unsigned nk = 0;
    while (kind->keys && kind->keys[nk].name)
        nk++;
    if (j < nk)
        return &kind->keys[j];
    j -= nk;
    for (unsigned c = 0; t->common && t->common[c].name; c++)
        if (c == j)
            return &t->common[c];
    return NULL;
}

/* "an integer in 1..64", "one of line|packed", "one of core|cache|numa or an integer in 1..4096" */
static void describe_expected(const struct ag_key *k, char *buf, size_t len)
{
    buf[0] = '\0';
    if (k->words) {
        append(buf, len, "one of ");
        for (unsigned w = 0; k->words[w]; w++) {
            if (w)
                append(buf, len, "|");
            append(buf, len, k->words[w]);
        }
    }
    if (k->min <= k->max) {
        char r[96];
        snprintf(r, sizeof r, "%san integer in %ld..%ld", k->words ? " or " : "", k->min, k->max);
        append(buf, len, r);
    }
}

/* Parses one value [v, v+vl) of key k. */
static int parse_value(const struct ag_key *k, const char *v, size_t vl, long *out)
{
    if (k->words)
        for (unsigned w = 0; k->words[w]; w++)
            if (strlen(k->words[w]) == vl && strncmp(k->words[w], v, vl) == 0) {
                *out = ag_word_value(w);
                return 0;
            }
    if (k->min > k->max || vl == 0 || vl > 20)
        return EINVAL;
    char tmp[24];
    memcpy(tmp, v, vl);
    tmp[vl] = '\0';
    for (size_t i = 0; i < vl; i++)
        if (tmp[i] < '0' || tmp[i] > '9')
            return EINVAL;
    errno = 0;
    long x = strtol(tmp, NULL, 10);
    if (errno || x < k->min || x > k->max)
        return EINVAL;
    *out = x;
    return 0;
}

int ag_key_format(const struct ag_key *k, long v, char *buf, size_t len)
{
    if (ag_is_word(v) && k->words)
        return snprintf(buf, len, "%s", k->words[ag_word(v)]);
    return snprintf(buf, len, "%ld", v);
}

static void list_kinds(const struct ag_table *t, char *msg, size_t len)
{
    for (unsigned i = 0; i < t->n; i++) {
        append(msg, len, i ? ", " : "");
        append(msg, len, t->get(i)->name);
    }
}

static void list_keys(const struct ag_table *t, const struct ag_kind *kind, char *msg, size_t len)
{
    const struct ag_key *k;
    for (unsigned j = 0; (k = ag_spec_key(t, kind, j)); j++) {
        append(msg, len, j ? ", " : "");
        append(msg, len, k->name);
    }
    if (!ag_spec_key(t, kind, 0))
        append(msg, len, "none");
}

int ag_spec_parse(const struct ag_table *t, const char *s, struct ag_spec *out, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!s || !*s) {
        fail(msg, msglen, "empty %s spec; expected one of: ", t->what);
        list_kinds(t, msg, msglen);
        return EINVAL;
    }
    size_t nl = strcspn(s, ":");
    const struct ag_kind *kind = NULL;
    unsigned idx = 0;
    for (unsigned i = 0; i < t->n; i++) {
        const struct ag_kind *k = t->get(i);
        if (strlen(k->name) == nl && strncmp(k->name, s, nl) == 0) {
            kind = k;
            idx = i;
            break;
        }
    }
    if (!kind) {
        fail(msg, msglen, "unknown %s '%.*s'; expected one of: ", t->what, (int)(nl > 64 ? 64 : nl), s);
        list_kinds(t, msg, msglen);
        return EINVAL;
    }

    struct ag_spec sp = { .kind = kind, .index = idx };
    unsigned nkeys = 0;
    const struct ag_key *k;
    for (; (k = ag_spec_key(t, kind, nkeys)); nkeys++) {
        if (nkeys >= AG_MAXKEYS || parse_value(k, k->def, strlen(k->def), &sp.val[nkeys]))
            return fail(msg, msglen, "internal: bad default for %s:%s", kind->name, k->name);
    }
    while (kind->keys && kind->keys[sp.nkeys].name)
        sp.nkeys++;

    unsigned seen = 0;
    const char *p = s + nl;
    if (*p == ':' && p[1] == '\0')
        return fail(msg, msglen, "%s: empty key list after ':'; expected key=value", kind->name);
    while (*p) {
        p++; /* ':' or ',' */
        size_t il = strcspn(p, ",");
        size_t kl = strcspn(p, "=,");
        if (kl == il)
            return fail(msg, msglen, "%s: '%.*s' is not key=value; expected key=value", kind->name, (int)(il > 64 ? 64 : il), p);
        unsigned j;
        for (j = 0; (k = ag_spec_key(t, kind, j)); j++)
            if (strlen(k->name) == kl && strncmp(k->name, p, kl) == 0)
                break;
        if (!k) {
            fail(msg, msglen, "%s: unknown key '%.*s'; expected one of: ", kind->name,
                 (int)(kl > 64 ? 64 : kl), p);
            list_keys(t, kind, msg, msglen);
            return EINVAL;
        }
        if (seen & (1u << j))
            return fail(msg, msglen, "%s: key '%s' given twice", kind->name, k->name);
        seen |= 1u << j;
        const char *v = p + kl + 1;
        size_t vl = il - kl - 1;
        if (parse_value(k, v, vl, &sp.val[j])) {
            char exp[160];
            describe_expected(k, exp, sizeof exp);
            return fail(msg, msglen, "%s: bad value '%.*s' for %s; expected %s", kind->name,
                        (int)(vl > 64 ? 64 : vl), v, k->name, exp);
        }
        p += il;
    }
    *out = sp;
    return 0;
}

int ag_spec_format(const struct ag_table *t, const struct ag_spec *sp, char *buf, size_t len)
{
    return ag_kind_format(t, sp->kind, sp->val, buf, len);
}

int ag_kind_format(const struct ag_table *t, const struct ag_kind *kind, const long *val, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", kind->name);
    const struct ag_key *k;
    for (unsigned j = 0; (k = ag_spec_key(t, kind, j)); j++) {
        char v[32];
        ag_key_format(k, val[j], v, sizeof v);
        n += snprintf(buf + (n < (int)len ? n : (int)len), n < (int)len ? len - n : 0, "%s%s=%s",
                      j ? "," : ":", k->name, v);
    }
    return n;
}

int ag_spec_list_empty(const char *s, const char *seps)
{
    size_t n = strlen(s);
    if (!n || strchr(seps, s[0]) || strchr(seps, s[n - 1]))
        return 1;
    for (const char *p = s; p[1]; p++)
        if (strchr(seps, p[0]) && strchr(seps, p[1]))
            return 1;
    return 0;
}

unsigned ag_spec_split_list(char *s, char **out, unsigned max)
{
    if (ag_spec_list_empty(s, ",;"))
        return 0;
    unsigned n = 0;
    char *prev_end = NULL; /* the ',' that ended the previous piece of this ';' item, or NULL */
    for (char *p = s; p && *p;) {
        size_t k = strcspn(p, ",;");
        char sep = p[k], *next = sep ? p + k + 1 : NULL;
        p[k] = '\0';
        int glue = prev_end && strchr(p, '=') && !strchr(p, ':');
        if (glue)
            *prev_end = ','; /* the spec continues: put its comma back */
        else if (*p && n++ < max)
            out[n - 1] = p;
        prev_end = sep == ',' && (glue || *p) ? p + k : NULL;
        p = next;
    }
    return n > max ? max + 1 : n;
}
