/* opts.c — see opts.h. */
#include "opts.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ag_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* word is one of the '|'-separated words */
static int is_word(const char *words, const char *word)
{
    size_t n = strlen(word);
    for (const char *w = words; *w;) {
        size_t k = strcspn(w, "|");
        if (k == n && !strncmp(w, word, n))
            return 1;
        w += k + (w[k] == '|');
    }
    return 0;
}

/* A whole number in [lo, hi], digits only (no sign, no spaces, no exponent). */
static int whole(const char *v, double lo, double hi, unsigned long long *out)
{
    char *end;
    if (!*v || !strchr("0123456789", *v))
        return -1;
    errno = 0;
    *out = strtoull(v, &end, 10);
    return *end || errno || (double)*out < lo || (double)*out > hi ? -1 : 0;
}

static void set_value(const char *prog, const struct ag_opt *o, void *dst, const char *v)
{
    char *field = (char *)dst + o->off, *end;
    unsigned long long u;
    double d;
    switch (o->kind) {
    case AG_OPT_STR:
        if (!*v) /* --preload '' would run an empty command, --json '' fail late */
            ag_usage_error(prog, "%s: expected %s, got an empty value", o->name, o->arg ? o->arg : "a value");
        *(const char **)field = v;
        return;
    case AG_OPT_WORD:
        if (!is_word(o->words, v))
            ag_usage_error(prog, "%s: expected one of %s, got '%s'", o->name, o->words, v);
        *(const char **)field = v;
        return;
    case AG_OPT_UINT:
    case AG_OPT_U64:
        if (whole(v, o->lo, o->hi, &u))
            ag_usage_error(prog, "%s: expected an integer in %.0f..%.0f, got '%s'", o->name, o->lo, o->hi, v);
        if (o->kind == AG_OPT_UINT)
            *(unsigned *)field = (unsigned)u;
        else
            *(unsigned long long *)field = u;
        return;
    case AG_OPT_NUM:
        errno = 0;
        d = strtod(v, &end); /* a decimal number only: strtod also takes blanks before it and hex (0x10) */
        if (!*v || *end || errno || !isfinite(d) || d < o->lo || d > o->hi || v[strspn(v, "0123456789.eE+-")])
            ag_usage_error(prog, "%s: expected a number in %g..%g, got '%s'", o->name, o->lo, o->hi, v);
        *(double *)field = d;
        return;
    case AG_OPT_FLAG:
        *(int *)field = 1;
        return;
    }
}

int ag_opts_parse(const char *prog, const struct ag_opt *table, void *dst, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    unsigned char seen[256] = { 0 };
    for (int i = first; i < argc; i++) {
        const struct ag_opt *o = table;
        while (o->name && strcmp(o->name, argv[i]))
            o++;
        if (!o->name)
            ag_usage_error(prog, "unknown %s '%s' (%s --help lists the options)",
                           argv[i][0] == '-' ? "option" : "argument", argv[i], prog);
        /* no option is a list by repetition: a second one would silently replace the first */
        size_t row = (size_t)(o - table);
        if (row < sizeof seen && seen[row]++)
            ag_usage_error(prog, "%s: given twice", o->name);
        if (o->kind == AG_OPT_FLAG) {
            set_value(prog, o, dst, NULL);
            continue;
        }
        const char *what = o->arg ? o->arg : o->words ? o->words : "a value";
        if (i + 1 >= argc)
            ag_usage_error(prog, "%s needs a value (%s)", o->name, what);
        /* "--json --quiet" forgot the value: taking the next option as a file name would write a file
         * named --quiet. No value starts with "--"; a lone "-" (stdout) is a value. */
        if (!strncmp(argv[i + 1], "--", 2))
            ag_usage_error(prog, "%s needs a value (%s), got the option '%s'", o->name, what, argv[i + 1]);
        set_value(prog, o, dst, argv[++i]);
    }
    return 0;
}

void ag_opts_usage(FILE *f, const struct ag_opt *table)
{
    for (const struct ag_opt *o = table; o->name; o++) {
        char head[64], range[96] = "";
        snprintf(head, sizeof head, "%s%s%s", o->name, o->kind == AG_OPT_FLAG ? "" : " ",
                 o->kind == AG_OPT_FLAG ? "" : o->kind == AG_OPT_WORD ? o->words : o->arg ? o->arg : "X");
        if (o->kind == AG_OPT_UINT || o->kind == AG_OPT_U64)
            snprintf(range, sizeof range, " (%.0f..%.0f)", o->lo, o->hi);
        else if (o->kind == AG_OPT_NUM)
            snprintf(range, sizeof range, " (%g..%g)", o->lo, o->hi);
        fprintf(f, "  %-32s %s%s\n", head, o->help, range);
    }
}
