/* spec.h — the one parser for algorithm and wait-policy spec strings (DESIGN.md, "Spec strings").
 * The API, the environment (ANDGATE_ALGO, ANDGATE_WAIT) and the CLI all go through ag_spec_parse. */
#ifndef AG_SPEC_H
#define AG_SPEC_H

#include <stddef.h>

#include "algo.h"

/* A parsed spec: which kind (index into its table) and every key's value (kind keys first, then
 * the table's common keys), defaults filled in. */
struct ag_spec {
    const struct ag_kind *kind;
    unsigned index;
    long val[AG_MAXKEYS];
    unsigned nkeys;       /* keys of the kind */
};

/* A table of kinds: get(i) for i < n, plus keys every kind takes (may be NULL). what names the
 * table in messages ("algorithm", "wait policy"). */
struct ag_table {
    const char *what;
    unsigned n;
    const struct ag_kind *(*get)(unsigned i);
    const struct ag_key *common;
};

extern const struct ag_table ag_algo_table;
extern const struct ag_table ag_wait_table;

/* Parse s. Returns 0, or EINVAL with a message in msg saying what was wrong and what was expected. */
int ag_spec_parse(const struct ag_table *t, const char *s, struct ag_spec *out, char *msg, size_t msglen);

/* Canonical form "name:key=value,..." with every key (defaults included). Returns the length. */
int ag_spec_format(const struct ag_table *t, const struct ag_spec *sp, char *buf, size_t len);

/* The same from a kind and its parameter values (a planned barrier's, a candidate's). */
int ag_kind_format(const struct ag_table *t, const struct ag_kind *kind, const long *val, char *buf, size_t len);
/* One key's value as written in a spec ("4", "numa"). */
int ag_key_format(const struct ag_key *k, long v, char *buf, size_t len);

/* Split a list of specs in place, as every command line reads one (`andgate bench --algos`,
 * `andgate sim --algos`): items are separated by ';' or ','; a ','-separated piece that has '=' and no
 * ':' continues the spec before it, so "stour:fanin=4,pad=line,dissemination" is two specs. Returns how
 * many (at most max), max + 1 when there are more, or 0 when an item is empty (ag_spec_list_empty). */
unsigned ag_spec_split_list(char *s, char **out, unsigned max);

/* Nonzero when the list s, items separated by any of seps, has an empty item: s is empty, begins or ends
 * with a separator, or has two in a row ("central,", "spin;;block"). Every command-line list refuses one
 * (--algos, --wait, --baselines), as the API refuses "central,". */
int ag_spec_list_empty(const char *s, const char *seps);

/* Iterate a kind's keys followed by the table's common keys; NULL past the end. */
const struct ag_key *ag_spec_key(const struct ag_table *t, const struct ag_kind *kind, unsigned j);

#endif
