/* test_wake.c — unit test of the wake-up trees of src/algo/lib/wake.c (002_22d269b377cdac79.txt §V-C).
 *
 * For the binary tree (4) and the NUMA-aware tree (5), over uniform groups of N_c = 1, 2, 4, 8 (and 3, 5)
 * with P = 1..70 and over non-uniform group sizes, checks behaviour only (no timing):
 *   - a spanning tree rooted at position 0: every other position has exactly one parent, all reachable;
 *   - masters (first position of a group) have at most 4 children, slaves at most 2;
 *   - the binary tree is exactly node n -> 2n+1 (n < ceil((P-1)/2)), 2n+2 (n < ceil((P-2)/2)), with
 *     ceil(log2(P+1)) levels, as 002 states for (4);
 *   - for uniform groups the children are formula (5) as written: master n (N_c | n) -> 2n+N_c
 *     (n < ceil((P-N_c)/2)) and 2n+2N_c (n < ceil((P-2N_c)/2)), and every node with local index l
 *     (master: l = 0, "two other master nodes and two slave nodes") -> local 2l+1, 2l+2 inside its group;
 *   - depth. 002 says the NUMA-aware tree keeps "the number of levels of the tree unchanged". With
 *     contiguous groups, group g's master is at level floor(log2(g+1))+1 and its group adds
 *     ceil(log2(size+1))-1 levels; asserted exactly. For uniform groups this never exceeds the binary
 *     tree's ceil(log2(P+1)) (a full group g implies P >= (g+1)·N_c; the partial last group likewise), so
 *     the bound asserted is excess 0; it is equality when N_c is a power of 2 (the paper's claim, exact),
 *     and for other N_c the tree is sometimes shallower (printed as a note). For non-uniform groups the
 *     bound is ceil(log2(G+1)) + ceil(log2(S_max+1)) - 1 (G groups, largest S_max), which can exceed the
 *     binary tree (many singleton groups before a big one; printed as a note): (5) assumes equal groups.
 *   - ag_wake_setup maps positions to tids through order[] and picks the NUMA level when there are
 *     several NUMA groups, else the cache level; the tree kind ignores groups.
 * Prints "N passed, N failed"; exit 1 on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/lib/wake.h"
#include "check.h"

#define ROW (1 + AG_WAKE_MAXCHILD)
#define MAXP 256

static unsigned ceil_log2(unsigned long x) /* smallest k with 2^k >= x */
{
    unsigned k = 0;
    while ((1ul << k) < x)
        k++;
    return k;
}

static unsigned floor_log2(unsigned long x) /* x >= 1 */
{
    unsigned k = 0;
    while (x >>= 1)
        k++;
    return k;
}

/* ceil(a / 2) for a possibly negative a, as in the bounds of (4) and (5) */
static long ceil_half(long a)
{
    return a >= 0 ? (a + 1) / 2 : -((-a) / 2);
}

/* Sorted copy of position q's children, for set comparison. */
static unsigned kids(const uint32_t *child, unsigned q, unsigned *out)
{
    unsigned c = child[(size_t)q * ROW];
    for (unsigned i = 0; i < c && i < AG_WAKE_MAXCHILD; i++)
        out[i] = child[(size_t)q * ROW + 1 + i];
    for (unsigned i = 1; i < c && i < AG_WAKE_MAXCHILD; i++)
        for (unsigned j = i; j > 0 && out[j - 1] > out[j]; j--) {
            unsigned t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return c;
}

static int same_kids(const uint32_t *child, unsigned q, const unsigned *want, unsigned nwant)
{
    unsigned got[AG_WAKE_MAXCHILD];
    unsigned c = kids(child, q, got);
    if (c != nwant)
        return 0;
    unsigned w[AG_WAKE_MAXCHILD];
    memcpy(w, want, nwant * sizeof *w);
    for (unsigned i = 1; i < nwant; i++)
        for (unsigned j = i; j > 0 && w[j - 1] > w[j]; j--) {
            unsigned t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    return memcmp(got, w, nwant * sizeof *w) == 0;
}

/* The same children per position, in any order. */
static int same_tree(const uint32_t *a, const uint32_t *b, unsigned n)
{
    for (unsigned q = 0; q < n; q++) {
        unsigned kb[AG_WAKE_MAXCHILD];
        unsigned cb = kids(b, q, kb);
        if (!same_kids(a, q, kb, cb))
            return 0;
    }
    return 1;
}

/* Structural checks shared by every layout; returns the number of levels (root alone: 1), 0 if the
 * table is not a spanning tree. max_master / max_slave: the child limits to assert. */
static unsigned check_tree(const char *what, unsigned n, const unsigned *gpos, const uint32_t *child,
                           unsigned max_master, unsigned max_slave)
{
    unsigned parents[MAXP] = { 0 }, level[MAXP] = { 0 }, queue[MAXP];
    int ok = 1;
    for (unsigned q = 0; q < n; q++) {
        unsigned c = child[(size_t)q * ROW];
        int master = q == 0 || gpos[q] != gpos[q - 1];
        if (c > (master ? max_master : max_slave)) {
            CHECK(0, "%s: position %u (%s) has %u children", what, q, master ? "master" : "slave", c);
            ok = 0;
            continue;
        }
        for (unsigned i = 0; i < c; i++) {
            uint32_t k = child[(size_t)q * ROW + 1 + i];
            if (k >= n || k == 0) {
                CHECK(0, "%s: position %u has child %u (P = %u)", what, q, (unsigned)k, n);
                ok = 0;
            } else {
                parents[k]++;
            }
        }
    }
    CHECK(ok, "%s: child counts and indices", what);
    CHECK(parents[0] == 0, "%s: the root has a parent", what);
    int one = 1;
    for (unsigned q = 1; q < n; q++)
        if (parents[q] != 1) {
            if (one)
                CHECK(0, "%s: position %u has %u parents", what, q, parents[q]);
            one = 0;
        }
    CHECK(one, "%s: exactly one parent per non-root position", what);
    if (!ok || !one || parents[0])
        return 0;
    /* breadth-first from 0: everyone reached, and the number of levels */
    unsigned head = 0, tail = 0, levels = 0;
    queue[tail++] = 0;
    level[0] = 1;
    while (head < tail) {
        unsigned q = queue[head++];
        if (level[q] > levels)
            levels = level[q];
        for (unsigned i = 0; i < child[(size_t)q * ROW]; i++) {
            unsigned k = child[(size_t)q * ROW + 1 + i];
            level[k] = level[q] + 1;
            queue[tail++] = k;
        }
    }
    CHECK(tail == n, "%s: %u of %u positions reachable from 0", what, tail, n);
    return tail == n ? levels : 0;
}

/* Exact levels of the numa tree for contiguous groups: group g's master sits at level floor(log2(g+1))+1
 * of the binary tree over groups, and its group is a binary tree of ceil(log2(size+1)) levels. */
static unsigned numa_levels(unsigned n, const unsigned *gpos)
{
    unsigned levels = 0;
    for (unsigned q = 0; q < n;) {
        unsigned g = gpos[q], s = 0;
        while (q < n && gpos[q] == g)
            q++, s++;
        unsigned l = floor_log2(g + 1) + ceil_log2(s + 1);
        if (l > levels)
            levels = l;
    }
    return levels;
}

static void test_binary(void)
{
    unsigned gpos[MAXP] = { 0 };
    uint32_t child[MAXP * ROW];
    char what[64];
    for (unsigned P = 1; P <= 200; P++) {
        snprintf(what, sizeof what, "binary P=%u", P);
        ag_wake_numa_children(P, gpos, child);
        unsigned levels = check_tree(what, P, gpos, child, 2, 2);
        CHECK(levels == ceil_log2(P + 1), "%s: %u levels, 002 (4) says ceil(log2(P+1)) = %u", what, levels,
              ceil_log2(P + 1));
        int exact = 1;
        for (unsigned n = 0; n < P; n++) {
            unsigned want[2], c = 0;
            if ((long)n < ceil_half((long)P - 1))
                want[c++] = 2 * n + 1;
            if ((long)n < ceil_half((long)P - 2))
                want[c++] = 2 * n + 2;
            if (!same_kids(child, n, want, c))
                exact = 0;
        }
        CHECK(exact, "%s: children differ from 2n+1, 2n+2 of 002 §V-C", what);
    }
}

/* Uniform groups of N_c: formula (5) exactly. Returns how many P in 1..70 get fewer levels than the
 * binary tree, and lists them in note. */
static unsigned test_uniform(unsigned Nc, char *note, size_t notelen)
{
    unsigned gpos[MAXP] = { 0 };
    uint32_t child[MAXP * ROW], bin[MAXP * ROW];
    unsigned zero[MAXP] = { 0 };
    char what[64];
    unsigned shallower = 0;
    size_t used = 0;
    note[0] = 0;
    for (unsigned P = 1; P <= 70; P++) {
        snprintf(what, sizeof what, "numa N_c=%u P=%u", Nc, P);
        for (unsigned q = 0; q < P; q++)
            gpos[q] = q / Nc;
        ag_wake_numa_children(P, gpos, child);
        unsigned levels = check_tree(what, P, gpos, child, 4, 2);

        /* formula (5) as written, with the master's two slave children (local 1, 2) of the text */
        int exact = 1;
        for (unsigned n = 0; n < P; n++) {
            unsigned want[4], c = 0;
            unsigned l = n % Nc, start = n - l, size = P - start < Nc ? P - start : Nc;
            if (l == 0) { /* "n | N_c": a master */
                if ((long)n < ceil_half((long)P - (long)Nc))
                    want[c++] = 2 * n + Nc;
                if ((long)n < ceil_half((long)P - 2 * (long)Nc))
                    want[c++] = 2 * n + 2 * Nc;
            }
            if (2 * l + 1 < size)
                want[c++] = start + 2 * l + 1;
            if (2 * l + 2 < size)
                want[c++] = start + 2 * l + 2;
            if (!same_kids(child, n, want, c))
                exact = 0;
            /* 002 bounds both slave children by l < ceil((N_c-1)/2): right for 2l+1 in a full group;
             * 2l+2 needs l < ceil((N_c-2)/2) (as (4) does with P-1 and P-2), else it names the next
             * group's master */
            if (size == Nc && l > 0) {
                CHECK((2 * l + 1 < Nc) == ((long)l < ceil_half((long)Nc - 1)), "%s: bound of 2l+1, l=%u", what,
                      l);
                CHECK((2 * l + 2 < Nc) == ((long)l < ceil_half((long)Nc - 2)), "%s: bound of 2l+2, l=%u", what,
                      l);
            }
        }
        CHECK(exact, "%s: children differ from formula (5)", what);

        /* depth */
        unsigned G = (P + Nc - 1) / Nc, bl = ceil_log2(P + 1);
        CHECK(levels == numa_levels(P, gpos), "%s: %u levels, expected %u", what, levels, numa_levels(P, gpos));
        CHECK(levels <= ceil_log2(G + 1) + ceil_log2(Nc + 1) - 1, "%s: %u levels > log bound", what, levels);
        CHECK(levels <= bl, "%s: %u levels, binary tree %u", what, levels, bl);
        if ((Nc & (Nc - 1)) == 0)
            CHECK(levels == bl, "%s: N_c = 2^k, yet %u levels vs binary %u", what, levels, bl);
        if (P <= Nc)
            CHECK(levels == bl, "%s: one group must be the binary tree", what);
        if (levels < bl) {
            shallower++;
            int w = snprintf(note + used, notelen - used, "%s%u", used ? "," : "", P);
            if (w > 0 && (size_t)w < notelen - used)
                used += (size_t)w;
        }

        /* N_c = 1: every node is a master; (5) degenerates to the binary tree */
        if (Nc == 1) {
            ag_wake_numa_children(P, zero, bin);
            CHECK(same_tree(child, bin, P), "%s: N_c = 1 is not the binary tree", what);
        }
    }
    return shallower;
}

/* Non-uniform groups, sizes in position order; the largest excess over the binary tree seen so far. */
static unsigned max_excess;
static char max_excess_what[96];

static void test_sizes(const unsigned *sizes, unsigned ng)
{
    unsigned gpos[MAXP] = { 0 };
    uint32_t child[MAXP * ROW];
    char what[96];
    unsigned P = 0, smax = 0;
    for (unsigned g = 0; g < ng; g++) {
        for (unsigned i = 0; i < sizes[g] && P < MAXP; i++)
            gpos[P++] = g;
        if (sizes[g] > smax)
            smax = sizes[g];
    }
    int w = snprintf(what, sizeof what, "numa sizes");
    for (unsigned g = 0; g < ng && w > 0 && (size_t)w < sizeof what - 8; g++)
        w += snprintf(what + w, sizeof what - (size_t)w, "%s%u", g ? "," : "=", sizes[g]);
    ag_wake_numa_children(P, gpos, child);
    unsigned levels = check_tree(what, P, gpos, child, 4, 2);
    CHECK(levels == numa_levels(P, gpos), "%s: %u levels, expected %u", what, levels, numa_levels(P, gpos));
    CHECK(levels <= ceil_log2(ng + 1) + ceil_log2(smax + 1) - 1, "%s: %u levels > log bound", what, levels);
    if (levels > ceil_log2(P + 1) && levels - ceil_log2(P + 1) > max_excess) {
        max_excess = levels - ceil_log2(P + 1);
        snprintf(max_excess_what, sizeof max_excess_what, "%s", what);
    }
    /* the group structure: master of g -> masters of 2g+1, 2g+2; local l -> 2l+1, 2l+2 */
    unsigned start[MAXP], q = 0;
    for (unsigned g = 0; g < ng; g++)
        start[g] = q, q += sizes[g];
    int exact = 1;
    for (unsigned g = 0; g < ng; g++)
        for (unsigned l = 0; l < sizes[g]; l++) {
            unsigned want[4], c = 0;
            if (l == 0)
                for (unsigned cg = 2 * g + 1; cg <= 2 * g + 2 && cg < ng; cg++)
                    want[c++] = start[cg];
            for (unsigned k = 2 * l + 1; k <= 2 * l + 2 && k < sizes[g]; k++)
                want[c++] = start[g] + k;
            if (!same_kids(child, start[g] + l, want, c))
                exact = 0;
        }
    CHECK(exact, "%s: children differ from the group construction", what);
}

/* ag_wake_setup: positions -> tids, group level choice, global kind has no table. */
static void test_setup(void)
{
    enum { N = 23 };
    unsigned order[N], rank[N], gcore[N], gcache[N], gnuma[N];
    for (unsigned q = 0; q < N; q++)
        order[q] = (q * 7 + 3) % N; /* 7 is invertible mod 23: a permutation */
    for (unsigned q = 0; q < N; q++) {
        rank[order[q]] = q;
        gcore[order[q]] = q;
        gcache[order[q]] = q / 3;     /* 8 cache groups of 3 (the last 2) */
        gnuma[order[q]] = q / 12;     /* 2 NUMA nodes */
    }
    long params[1] = { 0 };
    struct ag_setup s = { .n = N, .p = params, .line = 64, .rank = rank, .order = order,
                          .group = { gcore, gcache, gnuma }, .ngroups = { N, 8, 2 } };
    CHECK(ag_wake_table_bytes(N, AG_WAKE_GLOBAL) == 0, "global kind needs no table");

    for (int pass = 0; pass < 3; pass++) {
        uint32_t kind = pass == 0 ? AG_WAKE_TREE : AG_WAKE_NUMA;
        if (pass == 2)
            s.ngroups[AG_LVL_NUMA] = 1; /* one NUMA node: group by cache */
        unsigned gpos[N];
        for (unsigned q = 0; q < N; q++)
            gpos[q] = kind == AG_WAKE_TREE ? 0 : pass == 1 ? q / 12 : q / 3;
        uint32_t bypos[N * ROW];
        ag_wake_numa_children(N, gpos, bypos);

        struct ag_layout L = { .line_slots = 8 };
        size_t bytes = ag_wake_table_bytes(N, kind);
        CHECK(bytes == (size_t)N * ROW * sizeof(uint32_t), "table size %zu", bytes);
        void *state = ag_layout_state(&L, 16 + bytes);
        struct ag_wake w;
        ag_wake_setup(&w, kind, &s, &L, state, 16);
        CHECK(!L.oom && w.kind == kind && w.table == 16, "setup pass %d", pass);
        CHECK(L.nslots >= N * L.line_slots && w.local.stride == L.line_slots, "one padded flag per tid");
        const uint32_t *tab = (const uint32_t *)((const char *)state + 16);
        int ok = 1;
        for (unsigned q = 0; q < N; q++) {
            const uint32_t *src = &bypos[q * ROW], *dst = &tab[order[q] * ROW];
            if (dst[0] != src[0])
                ok = 0;
            for (unsigned c = 0; c < src[0] && ok; c++)
                if (dst[1 + c] != order[src[1 + c]])
                    ok = 0;
        }
        CHECK(ok, "pass %d: the tid table is the position tree mapped through order[]", pass);
        free(L.state);
    }
}

int main(void)
{
    test_binary();

    char note[512];
    const unsigned ncs[] = { 1, 2, 4, 8, 3, 5 };
    for (unsigned i = 0; i < sizeof ncs / sizeof ncs[0]; i++) {
        unsigned d = test_uniform(ncs[i], note, sizeof note);
        if (d)
            printf("note: N_c=%u: the NUMA-aware tree has fewer levels than the binary tree for P=%s\n",
                   ncs[i], note);
    }

    static const unsigned l1[] = { 3, 5, 1, 7, 2 }, l2[] = { 1, 1, 1, 1, 1, 1, 1 }, l3[] = { 10, 1 },
                          l4[] = { 1, 10 }, l5[] = { 2, 3, 4, 5, 6, 7, 8, 9 }, l6[] = { 32, 32, 6 },
                          l7[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 40 }, l8[] = { 70 };
    test_sizes(l1, 5), test_sizes(l2, 7), test_sizes(l3, 2), test_sizes(l4, 2), test_sizes(l5, 8);
    test_sizes(l6, 3), test_sizes(l7, 16), test_sizes(l8, 1);
    unsigned seed = 12345;
    for (int k = 0; k < 200; k++) {
        unsigned sizes[64], ng = 0, P = 0;
        seed = seed * 1103515245u + 12345u;
        unsigned target = 1 + (seed >> 16) % 70;
        while (P < target) {
            seed = seed * 1103515245u + 12345u;
            unsigned s = 1 + (seed >> 16) % 9;
            if (s > target - P)
                s = target - P;
            sizes[ng++] = s, P += s;
        }
        test_sizes(sizes, ng);
    }

    if (max_excess)
        printf("note: non-uniform groups can make the NUMA-aware tree deeper than the binary tree: "
               "%u more levels for %s\n", max_excess, max_excess_what);

    test_setup();

    return check_done();
}
