/* opts.h — the option tables of the andgate commands: one row per option (name, kind, where the value
 * goes, the range or the words it accepts, help), one parser, one usage printer, one error style.
 *
 * Every value is checked before anything runs: a number must be a whole number (or a finite decimal
 * for AG_OPT_NUM) inside the row's range, a word one of the row's words. A bad command line gets one
 * line on stderr — "andgate bench: --episodes: expected an integer in 1..100000000, got '-5'" — and
 * exit status 2 (ag_usage_error). */
#ifndef AG_COMMON_OPTS_H
#define AG_COMMON_OPTS_H

#include <stddef.h>
#include <stdio.h>

enum ag_opt_kind {
    AG_OPT_FLAG, /* no value: the int at off becomes 1 */
    AG_OPT_STR,  /* any text (checked by its user): const char * at off */
    AG_OPT_WORD, /* one of `words` ("latency|epcc|jitter|all"): const char * at off */
    AG_OPT_UINT, /* an integer in [lo, hi]: unsigned at off */
    AG_OPT_U64,  /* an integer in [lo, hi] (hi up to 2^53): unsigned long long at off */
    AG_OPT_NUM,  /* a finite decimal in [lo, hi]: double at off */
};

struct ag_opt {
    const char *name; /* "--episodes" */
    enum ag_opt_kind kind;
    size_t off;        /* offsetof(the command's options struct, field) */
    double lo, hi;     /* AG_OPT_UINT, AG_OPT_U64, AG_OPT_NUM */
    const char *words; /* AG_OPT_WORD */
    const char *arg;   /* the value's name in the usage text: "N", "FILE" */
    const char *help;
};

/* Parses argv[first..argc-1] into dst by table (terminated by a row with name NULL). Returns 0, 1 when
 * -h/--help was given (nothing else parsed), or exits with status 2 and one line for a bad command line
 * (an unknown option, an option given twice, a missing, empty or bad value, a value that is an option:
 * "--json --quiet"). `prog` names the command in messages ("andgate bench"). */
int ag_opts_parse(const char *prog, const struct ag_opt *table, void *dst, int argc, char **argv, int first);

/* One line per option: "  --episodes N        episodes per measurement (1..100000000)". */
void ag_opts_usage(FILE *f, const struct ag_opt *table);

/* "PROG: <message>" on stderr, exit status 2: the one way a command refuses its command line. */
void ag_usage_error(const char *prog, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

#endif
