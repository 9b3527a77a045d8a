/* streamcluster.c — a barrier-bound pthread application: online k-median clustering of a stream.
 *
 * An ordinary POSIX-threads program. It knows nothing of andgate: it synchronizes with
 * pthread_barrier_init / pthread_barrier_wait / pthread_barrier_destroy only, so that it can be run
 * as is and under LD_PRELOAD of a library that replaces pthread barriers, and the two runs compared.
 *
 * What it models (the structure of PARSEC's StreamCluster, written from its description, not its
 * code): points arrive in chunks; each chunk is clustered by a facility-location local search, and
 * the centres kept from every chunk, weighted by the points they serve, are clustered once more at
 * the end. The local search evaluates one candidate centre at a time ("pgain"):
 *
 *   compute  every thread, for its share of the points: the cost change if the point moved to the
 *            candidate; the saving of the points that would move, and per open centre the extra cost
 *            of moving the rest of its points if that centre were closed            -> barrier 1
 *   decide   thread 0 alone: combines the partial sums, decides which centres to close and whether
 *            to open the candidate, picks the next candidate                       -> barrier 2
 *   apply    every thread, for its share: moves points to the candidate if it was opened
 *                                                                                  -> barrier 3
 *
 * so one candidate costs three barrier episodes and very little work between them when chunks are
 * small: the run is dominated by barrier latency. The shares rotate between threads from one
 * candidate to the next (thread t works on part (t + step) mod T), so every barrier is load-bearing:
 * the next compute reads points that another thread's apply wrote.
 *
 * Determinism: stdout depends only on the arguments, never on the thread count or the interleaving.
 * Points are grouped into fixed blocks of BLOCK points; every partial sum is per block, in point
 * order, and thread 0 combines the blocks in block order, so the same doubles are added in the same
 * order whatever the number of threads. Random choices (initial centres, candidates) come from a
 * seeded generator used by thread 0 only; the input comes from another seeded generator used by the
 * main thread only.
 *
 * Barriers: `step` (T workers) inside a chunk, `chunk` (T workers + the main thread) around each
 * chunk. Between chunks the main thread, which produces the stream, generates the next chunk and
 * destroys and re-initialises `step` — every worker is then waiting on `chunk`, none on `step`. The
 * thread that gets PTHREAD_BARRIER_SERIAL_THREAD counts the episode, and after barrier 2 records
 * whether a centre was opened ("opens" on stdout): the program checks at the end that exactly one
 * serial thread was seen per episode (stderr "episodes N", exit 1 on a mismatch).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BLOCK = 64 };  /* points per reduction block: fixed, so sums do not depend on the threads */

/* ---- random numbers: xorshift64*, seeded through splitmix64 ---------------------------------- */
typedef struct { uint64_t s; } rng_t;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static void rng_seed(rng_t *r, uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    r->s = splitmix64(&x);
    if (r->s == 0) r->s = 1;
}
static uint64_t rng_next(rng_t *r) {
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}
static double rng_unit(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; } /* [0,1) */
static size_t rng_below(rng_t *r, size_t n) { return (size_t)(rng_next(r) % (uint64_t)n); }

/* ---- parameters and shared state ---------------------------------------------------------------- */
static struct {
    int threads, dim, k, iters;
    size_t n, chunk;
    uint64_t seed;
    const char *outfile;
} P = { 2, 8, 10, 0, 100000, 1000, 1, NULL };

/* The points being clustered now: one chunk of the stream, or at the end the weighted centres. */
static struct {
    size_t n, nblocks;
    const double *pts;  /* n * dim */
    const double *w;    /* n weights */
    int kinit;          /* centres to start from */
} cur;

static int kmax;             /* at most this many open centres (2k) */
static uint32_t *assign;     /* per point: slot of its centre */
static double *cost;         /* per point: w * squared distance to its centre */
static double *newcost;      /* per point: w * squared distance to the candidate */
static unsigned char *moves; /* per point: 1 if it would move to the candidate anyway */
static double *blk_save;     /* per block: sum of the (negative) cost changes of moving points */
static double *blk_extra;    /* per block x kmax: extra cost of moving the other points, per centre */
static double *blk_cost;     /* per block: cost sum (initial assignment) */

/* Written by thread 0 in "decide", read by everyone after barrier 2 / in the next compute. */
static long cand;            /* candidate point, -1 if none */
static int opened;           /* candidate opened in this step */
static uint32_t newslot;     /* slot of the opened candidate */
static unsigned char *closing; /* per slot: closed in this step */
static long *slot_point;     /* per slot: centre point, -1 free (initial assignment reads it) */

/* Thread 0 only. */
static rng_t pick_rng;
static unsigned char *is_centre; /* per point */
static int nopen;
static double zcost;             /* facility cost of this chunk */

/* Results of a chunk, written by thread 0 before the closing `chunk` barrier, read by main after. */
static struct {
    int ncentres;
    long *point;        /* kmax: chunk point of each kept centre, in slot order */
    double *weight;     /* kmax: sum of the weights it serves */
    int *rank;          /* kmax: slot -> rank among kept centres, -1 if closed */
    double cost;        /* sum of point costs, in point order */
} res;

static pthread_barrier_t step_bar, chunk_bar;
static atomic_ulong serial_seen;   /* PTHREAD_BARRIER_SERIAL_THREAD returns, over all episodes */
static atomic_ulong opens_seen;    /* opens recorded by the serial thread of barrier 2 */
static size_t nchunks;
static double *wait_s, *run_s;     /* per worker: seconds inside pthread_barrier_wait, seconds alive */

static void die(const char *what, int err) {
    fprintf(stderr, "streamcluster: %s: %s\n", what, strerror(err));
    exit(2);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bwait(pthread_barrier_t *b) {
    int r = pthread_barrier_wait(b);
    if (r == PTHREAD_BARRIER_SERIAL_THREAD) {
        atomic_fetch_add_explicit(&serial_seen, 1, memory_order_relaxed);
        return 1;
    }
    if (r != 0) die("pthread_barrier_wait", r);
    return 0;
}
static int bwait_timed(pthread_barrier_t *b, double *waited) {   /* the workers' waits */
    double t = now();
    int serial = bwait(b);
    *waited += now() - t;
    return serial;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) die("calloc", ENOMEM);
    return p;
}

static inline double dist2(const double *a, const double *b) {
    double s = 0.0;
    for (int j = 0; j < P.dim; j++) {
        double d = a[j] - b[j];
        s += d * d;
    }
    return s;
}
static inline const double *pt(size_t i) { return cur.pts + i * (size_t)P.dim; }

/* Blocks [lo, hi) of part p of T. */
static void part_blocks(int p, int T, size_t *lo, size_t *hi) {
    *lo = cur.nblocks * (size_t)p / (size_t)T;
    *hi = cur.nblocks * (size_t)(p + 1) / (size_t)T;
}
static size_t blk_end(size_t b) { size_t e = (b + 1) * BLOCK; return e < cur.n ? e : cur.n; }

/* ---- thread 0's serial steps -------------------------------------------------------------------- */
/* A random point that is not a centre (the caller knows one exists): the first non-centre from a random
 * start, so the choice depends on the generator alone. */
static size_t random_non_centre(void) {
    size_t i = rng_below(&pick_rng, cur.n);
    while (is_centre[i]) i = (i + 1) % cur.n;
    return i;
}

static void pick_candidate(void) {
    if ((size_t)nopen >= cur.n) { cand = -1; return; }
    cand = (long)random_non_centre();
}

static void start_chunk(void) {     /* initial centres: kinit distinct random points */
    memset(is_centre, 0, cur.n);
    for (int s = 0; s < kmax; s++) slot_point[s] = -1;
    nopen = 0;
    int k = cur.kinit < (int)cur.n ? cur.kinit : (int)cur.n;
    for (int s = 0; s < k; s++) {
        size_t i = random_non_centre();
        is_centre[i] = 1;
        slot_point[s] = (long)i;
        nopen++;
    }
}

static void after_initial_assignment(void) {
    double total = 0.0;
    for (size_t b = 0; b < cur.nblocks; b++) total += blk_cost[b];
    zcost = total / (double)(2 * cur.kinit);   /* opening a centre costs this much */
    pick_candidate();
}

static void decide(void) {
    opened = 0;
    memset(closing, 0, (size_t)kmax);
    if (cand < 0) return;
    double change = zcost;   /* total cost change if the candidate is opened */
    for (size_t b = 0; b < cur.nblocks; b++) change += blk_save[b];
    int nclose = 0;
    for (int s = 0; s < kmax; s++) {
        if (slot_point[s] < 0) continue;
        double extra = 0.0;
        for (size_t b = 0; b < cur.nblocks; b++) extra += blk_extra[b * (size_t)kmax + (size_t)s];
        if (extra - zcost < 0.0) {   /* closing s pays: its points move, its facility cost is saved */
            closing[s] = 1;
            change += extra - zcost;
            nclose++;
        }
    }
    if (change < 0.0 && nopen - nclose + 1 <= kmax) {
        int slot = -1;
        for (int s = 0; s < kmax && slot < 0; s++)
            if (slot_point[s] < 0 || closing[s]) slot = s;
        for (int s = 0; s < kmax; s++)
            if (closing[s]) { is_centre[slot_point[s]] = 0; slot_point[s] = -1; }
        slot_point[slot] = cand;
        is_centre[cand] = 1;
        nopen += 1 - nclose;
        newslot = (uint32_t)slot;
        opened = 1;
    } else {
        memset(closing, 0, (size_t)kmax);
    }
    pick_candidate();   /* for the next step; nobody reads cand until after barrier 3 */
}

static void finish_chunk(void) {
    int r = 0;
    for (int s = 0; s < kmax; s++) {
        res.rank[s] = -1;
        if (slot_point[s] >= 0) {
            res.rank[s] = r;
            res.point[r] = slot_point[s];
            res.weight[r] = 0.0;
            r++;
        }
    }
    res.ncentres = r;
    double total = 0.0;
    for (size_t i = 0; i < cur.n; i++) {
        total += cost[i];
        res.weight[res.rank[assign[i]]] += cur.w[i];
    }
    res.cost = total;
}

/* ---- the worker ------------------------------------------------------------------------------- */
static void *worker(void *arg) {
    const int t = (int)(intptr_t)arg, T = P.threads;
    const double born = now();
    double waited = 0.0;
    for (size_t c = 0; c <= nchunks; c++) {   /* nchunks chunks, then the weighted centres */
        bwait_timed(&chunk_bar, &waited);        /* the main thread has set up `cur` */
        if (t == 0) start_chunk();
        bwait_timed(&step_bar, &waited);

        size_t lo, hi;   /* initial assignment to the nearest centre */
        part_blocks(t, T, &lo, &hi);
        for (size_t b = lo; b < hi; b++) {
            double sum = 0.0;
            for (size_t i = b * BLOCK; i < blk_end(b); i++) {
                double best = -1.0;
                uint32_t bs = 0;
                for (int s = 0; s < kmax; s++) {
                    if (slot_point[s] < 0) continue;
                    double d = dist2(pt(i), pt((size_t)slot_point[s]));
                    if (best < 0.0 || d < best) { best = d; bs = (uint32_t)s; }
                }
                assign[i] = bs;
                cost[i] = cur.w[i] * best;
                sum += cost[i];
            }
            blk_cost[b] = sum;
        }
        bwait_timed(&step_bar, &waited);
        if (t == 0) after_initial_assignment();
        bwait_timed(&step_bar, &waited);

        for (int it = 0; it < P.iters; it++) {
            part_blocks((t + it) % T, T, &lo, &hi);
            const long x = cand;
            const double *const pts = cur.pts, *const w = cur.w;
            const size_t dim = (size_t)P.dim;
            for (size_t b = lo; b < hi; b++) {   /* compute */
                double save = 0.0, *extra = blk_extra + b * (size_t)kmax;
                for (int s = 0; s < kmax; s++) extra[s] = 0.0;
                if (x >= 0) {
                    const double *px = pts + (size_t)x * dim;
                    for (size_t i = b * BLOCK, e = blk_end(b); i < e; i++) {
                        double nc = w[i] * dist2(pts + i * dim, px), delta = nc - cost[i];
                        newcost[i] = nc;
                        moves[i] = delta < 0.0;
                        if (delta < 0.0) save += delta;
                        else extra[assign[i]] += delta;
                    }
                }
                blk_save[b] = save;
            }
            bwait_timed(&step_bar, &waited);     /* 1: partial sums are in */
            if (t == 0) decide();
            if (bwait_timed(&step_bar, &waited) && opened) /* 2: the decision is made */
                atomic_fetch_add_explicit(&opens_seen, 1, memory_order_relaxed);
            if (opened) {                        /* apply */
                const uint32_t ns = newslot;
                for (size_t i = lo * BLOCK, e = hi > lo ? blk_end(hi - 1) : i; i < e; i++)
                    if (moves[i] || closing[assign[i]]) { assign[i] = ns; cost[i] = newcost[i]; }
            }
            bwait_timed(&step_bar, &waited);     /* 3: points are moved */
        }
        if (t == 0) finish_chunk();
        bwait_timed(&chunk_bar, &waited);        /* the main thread may read the results */
    }
    wait_s[t] = waited;
    run_s[t] = now() - born;
    return NULL;
}

/* ---- the stream: gaussian-ish clusters ------------------------------------------------------------ */
static double *truth;   /* k true cluster centres */
static rng_t data_rng;

/* The main thread only. */
static double *chunk_pts, *ones; /* the chunk it generated (chunk * dim), and its weights: all 1 */
static double *kept_pts, *kept_w; /* the centres kept over all chunks (nchunks * kmax), their weights */
static uint32_t *point_centre;   /* per point of the stream: its kept centre */
static size_t nkept;
static double chunk_cost;        /* sum of the chunks' costs, in chunk order */
static FILE *out;                /* -o, or NULL */

static void gen_points(double *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const double *c = truth + rng_below(&data_rng, (size_t)P.k) * (size_t)P.dim;
        for (int j = 0; j < P.dim; j++) {   /* sum of four uniforms: roughly normal, sd 2 */
            double g = rng_unit(&data_rng) + rng_unit(&data_rng) + rng_unit(&data_rng)
                     + rng_unit(&data_rng) - 2.0;
            out[i * (size_t)P.dim + (size_t)j] = c[j] + 3.4641016151377544 * g;
        }
    }
}

static void usage(FILE *f) {
    fprintf(f, "usage: streamcluster [-t THREADS] [-n POINTS] [-d DIM] [-k CENTERS] [-c CHUNK] "
               "[-s SEED] [-i ITERS] [-o FILE]\n"
               "  defaults: -t 2 -n 100000 -d 8 -k 10 -c 1000 -s 1 -i 3*CHUNK/5 (candidates per chunk)\n");
}

static long long parse_num(const char *s, char opt, long long min) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < min || v > 100000000LL) {
        fprintf(stderr, "streamcluster: bad -%c value '%s' (integer >= %lld)\n", opt, s, min);
        exit(2);
    }
    return v;
}

/* Fills P from the command line. Returns -1 to go on, or the exit status (-h, a bad command line). */
static int parse_args(int argc, char **argv) {
    int opt;
    while ((opt = getopt(argc, argv, "t:n:d:k:c:s:i:o:h")) != -1) {
        switch (opt) {
        case 't': P.threads = (int)parse_num(optarg, 't', 1); break;
        case 'n': P.n = (size_t)parse_num(optarg, 'n', 1); break;
        case 'd': P.dim = (int)parse_num(optarg, 'd', 1); break;
        case 'k': P.k = (int)parse_num(optarg, 'k', 1); break;
        case 'c': P.chunk = (size_t)parse_num(optarg, 'c', 1); break;
        case 's': P.seed = (uint64_t)parse_num(optarg, 's', 0); break;
        case 'i': P.iters = (int)parse_num(optarg, 'i', 0); break;
        case 'o': P.outfile = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) { usage(stderr); return 2; }
    if (P.threads > 1024) { fprintf(stderr, "streamcluster: at most 1024 threads\n"); return 2; }
    if (P.iters == 0) P.iters = (int)(3 * P.chunk / 5 > 0 ? 3 * P.chunk / 5 : 1);
    return -1;
}

/* Allocates everything P implies. The per-point arrays are sized for the larger of a chunk and all
 * the kept centres, since the final pass clusters those. Seeds both generators, draws the true
 * centres, opens -o. */
static void setup(void) {
    kmax = 2 * P.k;
    nchunks = (P.n + P.chunk - 1) / P.chunk;
    const size_t ncand_max = nchunks * (size_t)kmax;          /* centres kept over all chunks */
    const size_t cap = P.chunk > ncand_max ? P.chunk : ncand_max;
    const size_t dim = (size_t)P.dim;

    chunk_pts = xcalloc(P.chunk * dim, sizeof(double));
    ones = xcalloc(P.chunk, sizeof(double));
    for (size_t i = 0; i < P.chunk; i++) ones[i] = 1.0;
    kept_pts = xcalloc(ncand_max * dim, sizeof(double));
    kept_w = xcalloc(ncand_max, sizeof(double));
    point_centre = xcalloc(P.n, sizeof(uint32_t));
    assign = xcalloc(cap, sizeof *assign);
    cost = xcalloc(cap, sizeof *cost);
    newcost = xcalloc(cap, sizeof *newcost);
    moves = xcalloc(cap, 1);
    is_centre = xcalloc(cap, 1);
    size_t maxblocks = (cap + BLOCK - 1) / BLOCK;
    blk_save = xcalloc(maxblocks, sizeof(double));
    blk_cost = xcalloc(maxblocks, sizeof(double));
    blk_extra = xcalloc(maxblocks * (size_t)kmax, sizeof(double));
    closing = xcalloc((size_t)kmax, 1);
    slot_point = xcalloc((size_t)kmax, sizeof(long));
    res.point = xcalloc((size_t)kmax, sizeof(long));
    res.weight = xcalloc((size_t)kmax, sizeof(double));
    res.rank = xcalloc((size_t)kmax, sizeof(int));

    rng_seed(&data_rng, P.seed, 1);
    rng_seed(&pick_rng, P.seed, 2);
    truth = xcalloc((size_t)P.k * dim, sizeof(double));
    for (size_t j = 0; j < (size_t)P.k * dim; j++) truth[j] = 100.0 * rng_unit(&data_rng);
    if (P.outfile && !(out = fopen(P.outfile, "w"))) die(P.outfile, errno);
}

/* Sets `cur` to what the workers cluster in pass c: chunk c of the stream, generated now (and written
 * to -o), or after the last chunk the kept centres, weighted by the points they serve. */
static void set_pass(size_t c) {
    const size_t dim = (size_t)P.dim;
    if (c < nchunks) {
        size_t first = c * P.chunk, n = P.n - first < P.chunk ? P.n - first : P.chunk;
        gen_points(chunk_pts, n);
        if (out)
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < dim; j++)
                    fprintf(out, "%.17g%c", chunk_pts[i * dim + j], j + 1 < dim ? ' ' : '\n');
        cur.n = n; cur.pts = chunk_pts; cur.w = ones;
    } else {
        cur.n = nkept; cur.pts = kept_pts; cur.w = kept_w;
    }
    cur.kinit = P.k;
    cur.nblocks = (cur.n + BLOCK - 1) / BLOCK;
}

/* After chunk c: its points go to the centres it kept, which join the kept ones with their weights. */
static void keep_chunk(size_t c) {
    const size_t dim = (size_t)P.dim, first = c * P.chunk;
    for (size_t i = 0; i < cur.n; i++)
        point_centre[first + i] = (uint32_t)(nkept + (size_t)res.rank[assign[i]]);
    for (int r = 0; r < res.ncentres; r++) {
        memcpy(kept_pts + (nkept + (size_t)r) * dim, chunk_pts + (size_t)res.point[r] * dim,
               dim * sizeof(double));
        kept_w[nkept + (size_t)r] = res.weight[r];
    }
    nkept += (size_t)res.ncentres;
    chunk_cost += res.cost;
}

/* The run: every pass between two waits on `chunk`. `step` is destroyed and re-initialised only while
 * every worker waits on `chunk`, and the workers start only once it exists. Returns the wall seconds. */
static double run(void) {
    const double t0 = now();
    int err;
    if ((err = pthread_barrier_init(&chunk_bar, NULL, (unsigned)P.threads + 1)))
        die("pthread_barrier_init", err);
    pthread_t *th = xcalloc((size_t)P.threads, sizeof *th);
    wait_s = xcalloc((size_t)P.threads, sizeof(double));
    run_s = xcalloc((size_t)P.threads, sizeof(double));
    for (size_t c = 0; c <= nchunks; c++) {
        set_pass(c);
        if (c > 0 && (err = pthread_barrier_destroy(&step_bar))) die("pthread_barrier_destroy", err);
        if ((err = pthread_barrier_init(&step_bar, NULL, (unsigned)P.threads)))
            die("pthread_barrier_init", err);
        if (c == 0)
            for (int t = 0; t < P.threads; t++)
                if ((err = pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)))
                    die("pthread_create", err);
        bwait(&chunk_bar);   /* go */
        bwait(&chunk_bar);   /* done: res, assign are final for this chunk */
        if (c < nchunks) keep_chunk(c);
    }
    for (int t = 0; t < P.threads; t++)
        if ((err = pthread_join(th[t], NULL))) die("pthread_join", err);
    if ((err = pthread_barrier_destroy(&step_bar))) die("pthread_barrier_destroy", err);
    if ((err = pthread_barrier_destroy(&chunk_bar))) die("pthread_barrier_destroy", err);
    const double elapsed = now() - t0;
    free(th);
    return elapsed;
}

/* Final assignment of every point: point -> kept centre -> final centre (rank); FNV-1a. */
static uint64_t checksum(void) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < P.n; i++) {
        uint32_t f = (uint32_t)res.rank[assign[point_centre[i]]];
        for (int byte = 0; byte < 4; byte++) {
            h ^= (f >> (8 * byte)) & 0xffu;
            h *= UINT64_C(0x100000001b3);
        }
    }
    return h;
}

/* The result on stdout, the time and the episodes on stderr. Returns the exit status: 1 unless exactly
 * one serial thread was seen per episode. */
static int report(double elapsed) {
    printf("points %zu dim %d chunks %zu candidates/chunk %d\n", P.n, P.dim, nchunks, P.iters);
    printf("chunk_cost %.9e\n", chunk_cost);
    printf("kept_centres %zu\n", nkept);
    printf("final_cost %.9e\n", res.cost);
    printf("centres %d\n", res.ncentres);
    printf("opens %lu\n", (unsigned long)atomic_load(&opens_seen));
    printf("checksum %016" PRIx64 "\n", checksum());

    /* per chunk and the final pass: chunk barrier twice, step barrier 3 + 3 per candidate */
    const unsigned long expected = (unsigned long)(nchunks + 1) * (2UL + 3UL + 3UL * (unsigned long)P.iters);
    const unsigned long episodes = atomic_load(&serial_seen);
    fprintf(stderr, "threads %d time %.3f s\n", P.threads, elapsed);
    fprintf(stderr, "episodes %lu (expected %lu, %.0f per second)\n", episodes, expected,
            (double)episodes / elapsed);
    double ws = 0.0, rs = 0.0;
    for (int t = 0; t < P.threads; t++) { ws += wait_s[t]; rs += run_s[t]; }
    fprintf(stderr, "barrier wait %.0f%% of worker time (%.2f of %.2f thread-seconds)\n",
            rs > 0.0 ? 100.0 * ws / rs : 0.0, ws, rs);
    if (episodes != expected) {
        fprintf(stderr, "streamcluster: FAIL: %lu serial-thread returns for %lu barrier episodes\n",
                episodes, expected);
        return 1;
    }
    return 0;
}

static void free_all(void) {
    free(wait_s); free(run_s); free(truth); free(chunk_pts); free(ones); free(kept_pts); free(kept_w);
    free(point_centre); free(assign); free(cost); free(newcost); free(moves); free(is_centre);
    free(blk_save); free(blk_cost); free(blk_extra); free(closing); free(slot_point);
    free(res.point); free(res.weight); free(res.rank);
}

int main(int argc, char **argv) {
    int status = parse_args(argc, argv);
    if (status >= 0) return status;
    setup();
    const double elapsed = run();
    if (out && fclose(out)) die(P.outfile, errno);
    status = report(elapsed);
    if (status == 0) free_all();
    return status;
}
