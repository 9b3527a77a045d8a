/* algos.c — the catalogue: one table of algorithms, in documentation order. */
#include <string.h>

#include "algo.h"
#include "spec.h"

extern const struct ag_algo ag_algo_central, ag_algo_counting, ag_algo_ticket, ag_algo_linear,
    ag_algo_combining, ag_algo_mcs, ag_algo_tournament, ag_algo_stour, ag_algo_dtour,
    ag_algo_dissemination, ag_algo_hybrid, ag_algo_tune, ag_algo_gate;

const struct ag_algo *const ag_algos[] = {
    &ag_algo_central, &ag_algo_counting,   &ag_algo_ticket, &ag_algo_linear,
    &ag_algo_combining, &ag_algo_mcs,      &ag_algo_tournament, &ag_algo_stour,
    &ag_algo_dtour,   &ag_algo_dissemination, &ag_algo_hybrid, &ag_algo_tune, &ag_algo_gate,
};
const unsigned ag_nalgos = sizeof ag_algos / sizeof ag_algos[0];

/* tune picks among the others and gate decides its order as it runs: neither is one of them */
int ag_algo_fixed(unsigned i)
{
    return i < ag_nalgos && ag_algos[i] != &ag_algo_tune && ag_algos[i] != &ag_algo_gate;
}

static const struct ag_kind *algo_get(unsigned i) { return &ag_algos[i]->k; }

static const char *const line_words[] = { "64", "128", NULL };
static const struct ag_key common_keys[] = {
    AG_KEY_WORD("line", line_words, "64",
                "flag stride in bytes: one cache line (64) or an adjacent-line pair (128)"),
    { 0 } };

const struct ag_table ag_algo_table = { "algorithm", sizeof ag_algos / sizeof ag_algos[0], algo_get,
                                        common_keys };

const struct ag_algo *ag_algo_find(const char *name, size_t len)
{
    for (unsigned i = 0; i < ag_nalgos; i++)
        if (strlen(ag_algos[i]->k.name) == len && strncmp(ag_algos[i]->k.name, name, len) == 0)
            return ag_algos[i];
    return NULL;
}
