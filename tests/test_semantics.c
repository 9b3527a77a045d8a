/* test_semantics.c — barrier semantics for every algorithm × variant × nthreads × wait policy.
 *
 * Per episode k, every participant checks, after ag_barrier_wait returns:
 *   - arrival: a relaxed shared counter, incremented once per participant before the barrier, is at
 *     least (k+1)·n (no participant left episode k before all arrived; the barrier's release/acquire
 *     makes every earlier increment visible) and below (k+2)·n;
 *   - exactly one AG_SERIAL per episode (counted, checked at the end);
 *   - plain (non-atomic) data written by every participant before the barrier is read back correctly
 *     after it (double-buffered by episode parity so the next episode's writes cannot race the reads);
 * with random delays (busy, yield, sleep) between episodes, and thread counts beyond the CPUs.
 *
 * With --split, every episode is ag_barrier_arrive, a random amount of work, ag_barrier_depart: the
 * same checks then hold between what was written before arrive and what is read after depart.
 *
 * With --rotate, thread t is participant (t + k) mod n in episode k: a tid passes to another thread
 * between episodes, with no synchronization of the test's own. Until its previous holder has returned
 * the call says EBUSY (guide.md, "Participants"), and the thread calls again. Whole waits only: a tid
 * between arrive and depart is refused with EINVAL, as an arrive twice is (the two look the same).
 *
 * Usage: test_semantics [--algos a,b|all] [--threads 1,2,3] [--waits w1;w2] [--episodes N]
 *                       [--epoch0 X] [--cpus-mode default|pairs] [--split] [--rotate]
 * Prints one line per failing configuration and "N passed, N failed" at the end; exit 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "andgate.h"
#include "internal.h"

/* Parameter variants per algorithm: the defaults plus every key value worth exercising. */
static const char *const variants[] = {
    "central", "central:line=128",
    "counting",
    "ticket",
    "linear",
    "combining", "combining:arity=2,wake=global", "combining:arity=3,wake=tree", "combining:arity=4,wake=tree",
    "combining:arity=8,wake=global,line=128",
    "mcs",
    "tournament:wake=global", "tournament:wake=tree", "tournament:pad=record,wake=global",
    "tournament:pad=record,wake=tree",
    "stour", "stour:fanin=2,pad=packed,wake=global", "stour:fanin=3,pad=line,wake=tree",
    "stour:fanin=4,pad=packed,wake=numa", "stour:fanin=8,pad=line,wake=tree,line=128",
    "dtour", "dtour:fanin=2,wake=tree", "dtour:fanin=3,wake=global", "dtour:fanin=5,wake=tree",
    "dissemination", "dissemination:ways=2", "dissemination:ways=3,line=128", "dissemination:pad=record",
    "dissemination:ways=2,pad=record",
    "hybrid", "hybrid:group=core", "hybrid:group=numa", "hybrid:group=2", "hybrid:group=3",
    /* tune's default decides after 144 episodes (168 up to 8 participants); block=1 after 6-7 or 12-14 */
    "tune", "tune:block=1,rounds=1", "tune:block=1,rounds=2,line=128", "tune:block=3,rounds=1",
    "gate", "gate:order=master", "gate:order=any", "gate:order=auto,line=128",
    NULL,
};

static int split;  /* --split: arrive, work, depart */
static int rotate; /* --rotate: tid (t + k) mod n in episode k */

struct shared {
    ag_barrier_t *b;
    unsigned n, episodes;
    _Atomic uint64_t arrived;
    _Atomic unsigned *serial;   /* per episode */
    unsigned long *data[2];     /* plain, double-buffered */
    _Atomic int errors;
    char first_error[256];
    _Atomic int have_error;
};

struct arg {
    struct shared *sh;
    unsigned tid;
};

static void report(struct shared *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct shared *sh, const char *fmt, ...)
{
    atomic_fetch_add(&sh->errors, 1);
    if (atomic_exchange(&sh->have_error, 1) == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sh->first_error, sizeof sh->first_error, fmt, ap);
        va_end(ap);
    }
}

static unsigned xorshift(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void random_delay(unsigned *seed)
{
    unsigned r = xorshift(seed) % 100;
    if (r < 60)
        return;
    if (r < 90) {
        unsigned spins = xorshift(seed) % 2000;
        for (unsigned i = 0; i < spins; i++)
            __asm__ __volatile__("" ::: "memory"); /* a busy delay the compiler keeps */
    } else if (r < 97) {
        sched_yield();
    } else {
        struct timespec ts = { 0, (long)(xorshift(seed) % 50000) };
        nanosleep(&ts, NULL);
    }
}

/* One episode as participant tid: wait, or arrive, work and depart; a wait refused with EBUSY (the tid's
 * previous holder is still on its way out) is made again. */
static int episode(struct shared *sh, unsigned tid, unsigned *seed)
{
    int rc;
    if (!split) {
        while ((rc = ag_barrier_wait(sh->b, tid)) == EBUSY)
            sched_yield();
        return rc;
    }
    ag_token_t tok;
    if ((rc = ag_barrier_arrive(sh->b, tid, &tok)))
        return rc;
    random_delay(seed); /* work that overlaps the barrier */
    return ag_barrier_depart(sh->b, tid, tok, NULL);
}

static void *worker(void *p)
{
    struct arg *a = p;
    struct shared *sh = a->sh;
    unsigned n = sh->n, t = a->tid, seed = 2654435761u * (t + 1);
    for (unsigned k = 0; k < sh->episodes && !atomic_load_explicit(&sh->errors, memory_order_relaxed); k++) {
        random_delay(&seed);
        sh->data[k & 1][t] = (unsigned long)k * n + t;
        atomic_fetch_add_explicit(&sh->arrived, 1, memory_order_relaxed);
        int rc = episode(sh, rotate ? (t + k) % n : t, &seed);
        if (rc == AG_SERIAL)
            atomic_fetch_add_explicit(&sh->serial[k], 1, memory_order_relaxed);
        else if (rc != 0) {
            report(sh, "tid %u episode %u: wait returned %d (%s)", t, k, rc, ag_strerror(rc));
            break;
        }
        /* plain data first: a barrier that lets a participant through early makes this a data race
         * that ThreadSanitizer reports, besides the wrong value */
        for (unsigned j = 0; j < n; j++)
            if (sh->data[k & 1][j] != (unsigned long)k * n + j) {
                report(sh, "tid %u episode %u: plain data of tid %u is %lu, want %lu", t, k, j,
                       sh->data[k & 1][j], (unsigned long)k * n + j);
                break;
            }
        uint64_t seen = atomic_load_explicit(&sh->arrived, memory_order_relaxed);
        if (seen < (uint64_t)(k + 1) * n || seen >= (uint64_t)(k + 2) * n) {
            report(sh, "tid %u episode %u: arrival counter %" PRIu64 " outside [%u, %u)", t, k, seen,
                   (k + 1) * n, (k + 2) * n);
            break;
        }
    }
    /* every participant asks what the barrier is at once: an adaptive algorithm's description is
     * written once by whoever sees the decision first (ThreadSanitizer checks the hand-over) */
    if (!*ag_barrier_describe(sh->b))
        report(sh, "tid %u: empty description", t);
    return NULL;
}

/* tune names its choice once it has made it — after C candidates x block x rounds episodes (C = 7 up to
 * 8 participants, where ticket is one of them, else 6), never
 * before (one participant's whole episodes complete on arrival, its split ones run tune: either) — as
 * a spec of another algorithm, and forgets it on reset. From the episode after the tuning on, every
 * participant is handed over to the chosen candidate (white box: its lane, algo.h), and before it none.
 * 0, or 1 with the reason in err; *handed: the lanes were handed over. */
static int check_chosen(ag_barrier_t *b, unsigned n, unsigned episodes, int *handed, char *err, size_t len)
{
    const char *d = ag_barrier_describe(b), *bl = strstr(d, "block="), *ro = strstr(d, "rounds=");
    *handed = 0;
    if (strncmp(d, "tune:", 5) || !bl || !ro)
        return 0;
    unsigned tuning = (n <= 8 ? 7u : 6u) * (unsigned)atoi(bl + 6) * (unsigned)atoi(ro + 7);
    const char *c = strstr(d, " chose=");
    struct ag_spec sp = { 0 };
    char msg[160];
    if (n > 1 && !(episodes >= tuning) != !c)
        return snprintf(err, len, "after %u episodes: %s", episodes, d), 1;
    if (c && (ag_spec_parse(&ag_algo_table, c + 7, &sp, msg, sizeof msg) || !strcmp(sp.kind->name, "tune")))
        return snprintf(err, len, "the choice is not a spec of a candidate: %s", d), 1;
    for (unsigned t = 0; n > 1 && t < n; t++) {
        const struct ag_algo *to = b->lanes[t].algo;
        if (!to != !(episodes > tuning) || (to && (!c || strcmp(to->k.name, sp.kind->name))))
            return snprintf(err, len, "after %u episodes, tid %u runs %s: %s", episodes, t,
                            to ? to->k.name : "tune", d), 1;
    }
    *handed = n > 1 && episodes > tuning;
    if (ag_barrier_reset(b) || strstr(ag_barrier_describe(b), " chose="))
        return snprintf(err, len, "reset kept the choice: %s", ag_barrier_describe(b)), 1;
    return 0;
}

/* One run of every participant over sh's barrier; 0, or 1 with the reason in sh->first_error. */
static int run_pass(struct shared *sh, pthread_t *th, struct arg *args)
{
    atomic_store(&sh->arrived, 0);
    memset(sh->serial, 0, sh->episodes * sizeof *sh->serial);
    for (unsigned t = 0; t < sh->n; t++) {
        sh->data[0][t] = sh->data[1][t] = 0;
        args[t] = (struct arg){ sh, t };
        if (pthread_create(&th[t], NULL, worker, &args[t])) {
            printf("FAIL: pthread_create\n");
            exit(2);
        }
    }
    for (unsigned t = 0; t < sh->n; t++)
        pthread_join(th[t], NULL);
    if (sh->errors != 0)
        return 1;
    for (unsigned k = 0; k < sh->episodes; k++)
        if (sh->serial[k] != 1)
            return snprintf(sh->first_error, sizeof sh->first_error, "episode %u had %u AG_SERIAL returns", k,
                            sh->serial[k]), 1;
    return 0;
}

/* Runs one configuration; returns 0 on success and prints a line on failure. */
static int run_one(const char *algo, const char *wait, unsigned n, unsigned episodes, uint64_t epoch0,
                   const int *cpus)
{
    struct shared sh = { .n = n, .episodes = episodes };
    ag_config_t cfg = { .nthreads = n, .algo = algo, .wait = wait, .cpus = cpus };
    int rc = ag_barrier_init_at(&sh.b, &cfg, epoch0);
    if (rc) {
        char msg[256];
        ag_config_check(&cfg, msg, sizeof msg);
        printf("FAIL %s wait=%s n=%u: init returned %d: %s\n", algo, wait, n, rc, msg);
        return 1;
    }
    sh.serial = calloc(episodes, sizeof *sh.serial);
    sh.data[0] = calloc(n, sizeof(unsigned long));
    sh.data[1] = calloc(n, sizeof(unsigned long));
    pthread_t *th = calloc(n, sizeof *th);
    struct arg *args = calloc(n, sizeof *args);
    int handed = 0, failed = run_pass(&sh, th, args);
    if (!failed)
        failed = check_chosen(sh.b, n, episodes, &handed, sh.first_error, sizeof sh.first_error);
    /* after a reset, handed-over participants start at tune again: a lane kept would run the old choice
     * on flags put back for the tuning */
    if (!failed && handed)
        failed = run_pass(&sh, th, args) ||
                 check_chosen(sh.b, n, episodes, &handed, sh.first_error, sizeof sh.first_error);
    if (failed)
        printf("FAIL %s (%s) n=%u epoch0=%" PRIu64 ": %s\n", algo, ag_barrier_describe(sh.b), n, epoch0,
               sh.first_error);
    rc = ag_barrier_destroy(sh.b);
    if (rc) {
        printf("FAIL %s n=%u: destroy after all left returned %d\n", algo, n, rc);
        failed = 1;
    }
    free(sh.serial), free(sh.data[0]), free(sh.data[1]), free(th), free(args);
    return failed;
}

static int in_list(const char *list, const char *name, char sep)
{
    if (!list || strcmp(list, "all") == 0)
        return 1;
    size_t nl = strlen(name);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, (char[]){ sep, 0 });
        if (l == nl && strncmp(p, name, l) == 0)
            return 1;
        p += l;
        if (*p)
            p++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *algos = "all", *threads = "1,2,3,4,5,7,8,13,16,31", *waits = NULL, *cpus_mode = "default";
    unsigned episodes = 60;
    uint64_t epoch0 = 0;
    for (int i = 1; i < argc;) /* the switches, taken out of argv; the options with values below */
        if (!strcmp(argv[i], "--split") || !strcmp(argv[i], "--rotate")) {
            *(argv[i][2] == 's' ? &split : &rotate) = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            argc--;
        } else {
            i++;
        }
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--algos")) algos = argv[i + 1];
        else if (!strcmp(argv[i], "--threads")) threads = argv[i + 1];
        else if (!strcmp(argv[i], "--waits")) waits = argv[i + 1];
        else if (!strcmp(argv[i], "--episodes")) episodes = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--epoch0")) epoch0 = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--cpus-mode")) cpus_mode = argv[i + 1];
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    unsigned usable = ag_usable_cpus();
    /* Spinning policies only where every participant has a CPU; blocking ones everywhere. */
    static const char *const spinning[] = { "spin", "pause", "backoff:max_ns=4000", "pause:delay_ns=200" };
    enum { NSPIN = sizeof spinning / sizeof spinning[0] };
    static const char *const blocking[] = { "block", "hybrid:spin_ns=3000,yield_ns=3000", "auto", "yield",
                                            "hybrid:spin_ns=0,yield_ns=2000,lead_ns=5000" };
    int passed = 0, failed = 0;
    int pairs[64]; /* --cpus-mode pairs: participants two by two on each CPU of the affinity mask */
    for (const char *p = threads; *p;) {
        unsigned n = (unsigned)strtoul(p, (char **)&p, 10);
        if (*p == ',')
            p++;
        const int *cpus = NULL;
        if (!strcmp(cpus_mode, "pairs") && n <= 64) {
            int aff[64];
            unsigned na = 0;
            cpu_set_t set;
            sched_getaffinity(0, sizeof set, &set);
            for (int c = 0; c < CPU_SETSIZE && na < 64; c++)
                if (CPU_ISSET(c, &set))
                    aff[na++] = c;
            for (unsigned i = 0; i < 64; i++)
                pairs[i] = aff[(i / 2) % na];
            cpus = pairs;
        }
        for (unsigned v = 0; variants[v]; v++) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(variants[v], ":"), variants[v]);
            if (!in_list(algos, name, ','))
                continue;
            for (unsigned w = 0; w < NSPIN + sizeof blocking / sizeof blocking[0]; w++) {
                const char *wait = w < NSPIN ? spinning[w] : blocking[w - NSPIN];
                if ((w < NSPIN && n > usable) || (waits && !in_list(waits, wait, ';')))
                    continue;
                /* fewer episodes where every wake-up is a futex round trip on oversubscribed CPUs */
                unsigned eps = n > usable && w >= NSPIN ? episodes / 3 + 1 : episodes;
                if (run_one(variants[v], wait, n, eps, epoch0, cpus))
                    failed++;
                else
                    passed++;
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
