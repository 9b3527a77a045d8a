/* test_spec.c — the one spec parser: defaults, canonical form round trips, and rejection of every
 * malformed string with a message naming what was expected. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "auto.h"
#include "check.h"
#include "spec.h"
#include "wait.h"

static void roundtrip(const struct ag_table *t, const char *s)
{
    struct ag_spec a, b;
    char msg[256], canon[256], canon2[256];
    int rc = ag_spec_parse(t, s, &a, msg, sizeof msg);
    CHECK(rc == 0, "parse '%s': %s", s, msg);
    if (rc)
        return;
    ag_spec_format(t, &a, canon, sizeof canon);
    CHECK(ag_spec_parse(t, canon, &b, msg, sizeof msg) == 0, "reparse '%s': %s", canon, msg);
    ag_spec_format(t, &b, canon2, sizeof canon2);
    CHECK(strcmp(canon, canon2) == 0 && a.index == b.index && memcmp(a.val, b.val, sizeof a.val) == 0,
          "'%s' -> '%s' -> '%s'", s, canon, canon2);
}

static void bad(const struct ag_table *t, const char *s, const char *want)
{
    struct ag_spec a;
    char msg[256] = "untouched";
    int rc = ag_spec_parse(t, s, &a, msg, sizeof msg);
    CHECK(rc == EINVAL, "'%s' accepted", s);
    CHECK(strstr(msg, want) != NULL, "'%s': message '%s' lacks '%s'", s, msg, want);
}

/* every algorithm and wait policy parses by bare name, with all defaults, and round-trips */
static void test_roundtrips(void)
{
    CHECK(ag_algo_table.n == 13, "13 algorithms, have %u", ag_algo_table.n);
    unsigned fixed = 0;
    for (unsigned i = 0; i < ag_algo_table.n; i++)
        fixed += (unsigned)ag_algo_fixed(i);
    CHECK(fixed == 11 && !ag_algo_fixed(11) && !ag_algo_fixed(12) && !ag_algo_fixed(13),
          "tune and gate are the ones not fixed: %u fixed", fixed);
    for (unsigned i = 0; i < ag_algo_table.n; i++)
        roundtrip(&ag_algo_table, ag_algo_table.get(i)->name);
    for (unsigned i = 0; i < ag_wait_table.n; i++)
        roundtrip(&ag_wait_table, ag_wait_table.get(i)->name);
    roundtrip(&ag_algo_table, "stour:fanin=8,pad=packed,wake=global,line=128");
    roundtrip(&ag_algo_table, "dissemination:ways=3,pad=record,line=128");
    roundtrip(&ag_algo_table, "tournament:wake=global,pad=record");
    roundtrip(&ag_algo_table, "hybrid:group=7");
    roundtrip(&ag_algo_table, "hybrid:group=numa");
    roundtrip(&ag_algo_table, "tune:block=1,rounds=9,line=128");
    roundtrip(&ag_algo_table, "gate:order=master,line=128");
    roundtrip(&ag_wait_table, "hybrid:spin_ns=0");
    roundtrip(&ag_wait_table, "hybrid:spin_ns=500,yield_ns=40000");
    roundtrip(&ag_wait_table, "hybrid:spin_ns=0,yield_ns=5000,lead_ns=20000");
    roundtrip(&ag_wait_table, "hybrid:spin_ns=0,yield_ns=20000,lead_ns=20000,stall_ns=200000");
    roundtrip(&ag_wait_table, "backoff:max_ns=100000");
    roundtrip(&ag_wait_table, "pause:delay_ns=61");
}

/* defaults and canonical form */
static void test_defaults(void)
{
    struct ag_spec sp;
    char msg[256], canon[256];
    CHECK(ag_spec_parse(&ag_algo_table, "dissemination", &sp, msg, sizeof msg) == 0, "%s", msg);
    ag_spec_format(&ag_algo_table, &sp, canon, sizeof canon);
    CHECK(strcmp(canon, "dissemination:ways=1,pad=line,line=64") == 0, "canonical: %s", canon);
    CHECK(ag_spec_parse(&ag_algo_table, "stour", &sp, msg, sizeof msg) == 0, "%s", msg);
    ag_spec_format(&ag_algo_table, &sp, canon, sizeof canon);
    CHECK(strcmp(canon, "stour:fanin=4,pad=line,wake=numa,line=64") == 0, "002's optimized default: %s", canon);
    CHECK(ag_spec_parse(&ag_algo_table, "hybrid:group=12", &sp, msg, sizeof msg) == 0 && sp.val[0] == 12,
          "integer group");
    CHECK(ag_spec_parse(&ag_algo_table, "hybrid:group=cache", &sp, msg, sizeof msg) == 0 && ag_is_word(sp.val[0]) &&
              ag_word(sp.val[0]) == AG_LVL_CACHE,
          "word group");
}

/* spec lists (ag_spec_split_list): ';' and ',' separate, a ',' piece with '=' and no ':' continues, an
 * empty item gives 0 */
static void test_lists(void)
{
    static const struct { const char *in; unsigned n; const char *items[4]; } lists[] = {
        { "stour:fanin=4,pad=line,dissemination", 2, { "stour:fanin=4,pad=line", "dissemination" } },
        { "central;mcs", 2, { "central", "mcs" } },
        { "all,auto", 2, { "all", "auto" } },
        { "hybrid:group=numa;stour:fanin=8,wake=global", 2, { "hybrid:group=numa", "stour:fanin=8,wake=global" } },
        { "ways=2,central", 2, { "ways=2", "central" } },
        /* an empty item makes the whole list 0: the command lines refuse it */
        { ",central,,;mcs;", 0, { NULL } },
        { "central,", 0, { NULL } },
        { "central;;dissemination", 0, { NULL } },
        { "stour:fanin=4,,pad=line", 0, { NULL } },
        { ";", 0, { NULL } },
        { "", 0, { NULL } },
    };
    for (unsigned i = 0; i < sizeof lists / sizeof *lists; i++) {
        char buf[128], *items[8];
        snprintf(buf, sizeof buf, "%s", lists[i].in);
        unsigned n = ag_spec_split_list(buf, items, 8);
        CHECK(n == lists[i].n, "list '%s': %u items, want %u", lists[i].in, n, lists[i].n);
        for (unsigned k = 0; k < n && k < lists[i].n; k++)
            CHECK(!strcmp(items[k], lists[i].items[k]), "list '%s' item %u: '%s', want '%s'", lists[i].in, k,
                  items[k], lists[i].items[k]);
    }
    char many[] = "a;b;c;d;e", *two[2];
    CHECK(ag_spec_split_list(many, two, 2) == 3, "a list longer than max says max + 1");
    /* --wait's lists: ';' alone separates, the wait specs' own ',' does not */
    CHECK(ag_spec_list_empty("spin;", ";") && ag_spec_list_empty(";spin", ";") && ag_spec_list_empty("", ";"),
          "an empty wait item");
    CHECK(!ag_spec_list_empty("hybrid:spin_ns=1,yield_ns=2;spin", ";"), "a wait list with ',' inside a spec");
}

/* truncation never overflows: a 4-byte buffer still gets a NUL-terminated prefix */
static void test_truncation(void)
{
    struct ag_spec sp;
    char tiny[4];
    CHECK(ag_spec_parse(&ag_algo_table, "nosuch", &sp, tiny, sizeof tiny) == EINVAL && strlen(tiny) == 3,
          "truncated message '%s'", tiny);
    CHECK(ag_spec_parse(&ag_algo_table, "nosuch", &sp, NULL, 0) == EINVAL, "NULL message buffer");
}

/* malformed specs: EINVAL and a message naming what was expected */
static void test_malformed(void)
{
    bad(&ag_algo_table, NULL, "empty algorithm spec; expected one of: central, counting, ticket");
    bad(&ag_algo_table, "", "empty algorithm spec");
    bad(&ag_algo_table, "Central", "unknown algorithm 'Central'");
    bad(&ag_algo_table, "central:", "empty key list");
    bad(&ag_algo_table, "central,line=64", "unknown algorithm 'central,line=64'");
    bad(&ag_algo_table, "central:line", "'line' is not key=value");
    bad(&ag_algo_table, "central:=64", "unknown key ''");
    bad(&ag_algo_table, "central:line=", "bad value '' for line");
    bad(&ag_algo_table, "central:line=64,", "is not key=value");
    bad(&ag_algo_table, "central:ways=2", "unknown key 'ways'; expected one of: line");
    bad(&ag_algo_table, "mcs:line=64,line=128", "given twice");
    bad(&ag_algo_table, "dissemination:ways=0", "bad value '0' for ways; expected an integer in 1..64");
    bad(&ag_algo_table, "dissemination:ways=65", "expected an integer in 1..64");
    bad(&ag_algo_table, "dissemination:ways=2x", "bad value '2x'");
    bad(&ag_algo_table, "dissemination:ways=+2", "bad value '+2'");
    bad(&ag_algo_table, "dissemination:ways=99999999999999999999999", "bad value");
    bad(&ag_algo_table, "combining:arity=1", "bad value '1' for arity");
    bad(&ag_algo_table, "combining:wake=numa", "expected one of global|tree");
    bad(&ag_algo_table, "stour:fanin=1", "bad value '1' for fanin");
    bad(&ag_algo_table, "hybrid:group=0", "expected one of core|cache|numa or an integer in 1..");
    bad(&ag_algo_table, "tune:rounds=10", "bad value '10' for rounds; expected an integer in 1..9");
    bad(&ag_algo_table, "tune:block=0", "bad value '0' for block");
    bad(&ag_algo_table, "gate:order=first", "bad value 'first' for order; expected one of auto|master|any");
    bad(&ag_wait_table, "spin:spin_ns=5", "unknown key 'spin_ns'; expected one of: none");
    bad(&ag_wait_table, "hybrid:spin_ns=abc", "bad value 'abc' for spin_ns");
    bad(&ag_wait_table, "pause:delay_ns=-1", "bad value '-1' for delay_ns; expected an integer in 0..100000000");
    bad(&ag_wait_table, "pause:delay_ns=100000001", "expected an integer in 0..100000000");
    bad(&ag_wait_table, "pause:delay=64", "unknown key 'delay'; expected one of: delay_ns");
    bad(&ag_wait_table, "spin:delay_ns=64", "unknown key 'delay_ns'; expected one of: none");
    bad(&ag_wait_table, "futex", "unknown wait policy 'futex'; expected one of: spin, pause, backoff, yield, block, hybrid, auto");
    bad(&ag_algo_table, "stour:pad=tight", "bad value 'tight' for pad; expected one of line|packed");
    bad(&ag_algo_table, "stour:wake=Tree", "bad value 'Tree' for wake; expected one of global|tree|numa");
    bad(&ag_algo_table, "tournament:wake=numa", "bad value 'numa' for wake; expected one of global|tree");
    bad(&ag_algo_table, "dtour:wake=", "bad value '' for wake; expected one of global|tree");
    bad(&ag_algo_table, "hybrid:group=socket", "expected one of core|cache|numa or an integer in 1..1048576");
    bad(&ag_algo_table, "mcs:line=96", "bad value '96' for line; expected one of 64|128");
}

/* every word of every key is accepted, read back by ag_word as its index, and spelled canonically; integers as integers */
static void test_words(void)
{
    struct ag_spec sp;
    char msg[256], canon[256];
    for (unsigned i = 0; i < ag_algo_table.n; i++) {
        const struct ag_kind *kind = ag_algo_table.get(i);
        const struct ag_key *k;
        for (unsigned j = 0; (k = ag_spec_key(&ag_algo_table, kind, j)); j++)
            for (unsigned w = 0; k->words && k->words[w]; w++) {
                char s[128], want[256];
                snprintf(s, sizeof s, "%s:%s=%s", kind->name, k->name, k->words[w]);
                int rc = ag_spec_parse(&ag_algo_table, s, &sp, msg, sizeof msg);
                CHECK(rc == 0, "'%s': %s", s, msg);
                if (rc)
                    continue;
                CHECK(ag_is_word(sp.val[j]) && ag_word(sp.val[j]) == w, "'%s': word %u", s, w);
                ag_spec_format(&ag_algo_table, &sp, canon, sizeof canon);
                snprintf(want, sizeof want, "%s=%s", k->name, k->words[w]);
                CHECK(strstr(canon, want) != NULL, "'%s' -> '%s'", s, canon);
                roundtrip(&ag_algo_table, s);
                roundtrip(&ag_algo_table, canon);
            }
    }
    /* integers read back as integers */
    CHECK(ag_spec_parse(&ag_algo_table, "dtour:fanin=9", &sp, msg, sizeof msg) == 0 && !ag_is_word(sp.val[0]) &&
              ag_int(sp.val[0]) == 9, "integer fanin");
    CHECK(ag_spec_parse(&ag_algo_table, "hybrid:group=numa", &sp, msg, sizeof msg) == 0 &&
              ag_is_word(sp.val[0]) && ag_word(sp.val[0]) == AG_LVL_NUMA, "group=numa is AG_LVL_NUMA");
    /* canonical round trips of the spellings andgate list shows */
    roundtrip(&ag_algo_table, "combining:arity=4,wake=tree,line=64");
    roundtrip(&ag_algo_table, "tournament:wake=global,line=128");
    roundtrip(&ag_algo_table, "dtour:fanin=64,wake=global,line=64");
    roundtrip(&ag_algo_table, "hybrid:group=core,line=64");
}

/* algo=auto's rule (src/auto.c), one case per branch and at each boundary */
static void test_auto_rule(void)
{
    static const struct {
        struct ag_auto_in in;
        const char *want;
    } cases[] = {
        /* n, spins, cpu_groups, core_groups */
        { { 1, 1, 1, 1 }, "central" },
        { { 8, 0, 8, 8 }, "central" },                 /* a policy that does not spin */
        { { 4, 0, 2, 2 }, "hybrid:group=core" },       /* ... with two placed on each of 2 CPUs */
        { { 4, 0, 4, 2 }, "central" },                 /* ... the same guessed (no cfg.cpus) */
        { { 4, 0, 1, 1 }, "central" },                 /* ... all placed on one CPU */
        { { 240, 0, 240, 60 }, "central" },            /* ... never tune: it would time the OS */
        { { 2, 1, 2, 1 }, "hybrid:group=core" },       /* two spinning SMT siblings of one core */
        { { 2, 1, 2, 2 }, "dissemination" },           /* this VM */
        { { 3, 1, 3, 3 }, "tune" },                    /* from AG_AUTO_TUNE_MIN on: measured */
        { { 4, 1, 4, 2 }, "tune" },
        { { 240, 1, 240, 60 }, "tune" },               /* the Xeon Phi, 4 per core */
        { { 5, 1, 2, 2 }, "tune" },                    /* spinning, whatever the placement */
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = ag_auto_algo(&cases[i].in);
        CHECK(!strcmp(got, cases[i].want), "auto case %u (n %u): %s, want %s", i, cases[i].in.n, got, cases[i].want);
    }
}

/* wait=auto and hybrid's lead_ns, resolved and spelled back (wait.c) */
static void test_wait_resolve(void)
{
    static const struct {
        const char *spec;
        unsigned n, usable;
        int placed;
        const char *want;
    } cases[] = {
        { "auto", 2, 2, 1, "hybrid:spin_ns=20000,yield_ns=0" },
        /* oversubscribed: leaders spin where the participants are placed, not where nobody knows */
        { "auto", 4, 2, 1, "hybrid:spin_ns=0,yield_ns=20000,lead_ns=20000,stall_ns=200000" },
        { "auto", 4, 2, 0, "hybrid:spin_ns=0,yield_ns=20000,stall_ns=200000" },
        { "hybrid:spin_ns=0,yield_ns=7,lead_ns=0,stall_ns=9", 4, 2, 0, "hybrid:spin_ns=0,yield_ns=7,stall_ns=9" },
        { "hybrid:spin_ns=0,yield_ns=5000,lead_ns=7", 4, 2, 0, "hybrid:spin_ns=0,yield_ns=5000,lead_ns=7" },
        { "hybrid:yield_ns=10", 1, 2, 0, "hybrid:spin_ns=20000,yield_ns=10" },
        { "yield", 4, 2, 1, "yield" },
        { "pause", 2, 2, 1, "pause" }, /* no delay: spelt as before delay_ns existed */
        { "pause:delay_ns=0", 2, 2, 1, "pause" },
        { "pause:delay_ns=61", 2, 2, 1, "pause:delay_ns=61" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ag_spec sp;
        struct ag_waitpol wp;
        char msg[200], got[100];
        CHECK(ag_spec_parse(&ag_wait_table, cases[i].spec, &sp, msg, sizeof msg) == 0, "%s: %s", cases[i].spec,
              msg);
        ag_wait_resolve(&sp, cases[i].n, cases[i].usable, cases[i].placed, &wp);
        ag_wait_format(&wp, got, sizeof got);
        CHECK(!strcmp(got, cases[i].want), "%s at %u on %u CPUs: %s, want %s", cases[i].spec, cases[i].n,
              cases[i].usable, got, cases[i].want);
    }
}

int main(void)
{
    test_wait_resolve();
    test_auto_rule();
    test_roundtrips();
    test_defaults();
    test_lists();
    test_truncation();
    test_malformed();
    test_words();
    return check_done();
}
