/* shape.c — the one builder of participant shape (see shape.h): ranks in topology order and dense group
 * ids at the core, cache and NUMA levels, from each participant's place. The library (shape_host.c, from
 * this host's CPUs) and the simulator (from a modeled placement) both build their shape here. */
#define _GNU_SOURCE
#include "shape.h"

#include <errno.h>
#include <stdlib.h>

static int cmp_place(const void *a, const void *b)
{
    const struct ag_place *x = a, *y = b;
    for (unsigned i = 0; i < AG_PLACE_KEYS; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid); /* equal places: participant order */
}

/* Dense ids in rank order: adjacent participants with an equal group key share a group (sorting by the
 * place keys, outermost first, makes a group's participants adjacent). */
static unsigned densify(const struct ag_place *pl, unsigned n, int level, unsigned *out)
{
    unsigned g = 0;
    for (unsigned r = 0; r < n; r++) {
        if (r && (pl[r].group[level][0] != pl[r - 1].group[level][0] ||
                  pl[r].group[level][1] != pl[r - 1].group[level][1]))
            g++;
        out[pl[r].tid] = g;
    }
    return n ? g + 1 : 0;
}

int ag_shape_from_places(struct ag_shape *sh, unsigned n, struct ag_place *pl)
{
    unsigned *mem = calloc((size_t)n * 5 + 1, sizeof *mem);
    if (!mem)
        return ENOMEM;
    qsort(pl, n, sizeof *pl, cmp_place);
    sh->n = n;
    sh->mem = mem;
    sh->rank = mem;
    sh->order = mem + n;
    for (unsigned r = 0; r < n; r++) { /* rank = position in topology order; order is its inverse */
        sh->order[r] = pl[r].tid;
        sh->rank[pl[r].tid] = r;
    }
    for (int lvl = 0; lvl < 3; lvl++) {
        sh->group[lvl] = mem + (size_t)(2 + lvl) * n;
        sh->ngroups[lvl] = densify(pl, n, lvl, sh->group[lvl]);
    }
    return 0;
}

void ag_shape_free(struct ag_shape *sh)
{
    free(sh->mem);
    sh->mem = NULL;
}
