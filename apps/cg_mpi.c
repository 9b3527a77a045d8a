/* cg_mpi.c — apps/cg.c's kernel (NAS-CG-style inverse power iteration, class "Y") over R MPI ranks x
 * T POSIX threads per rank, synchronized by libandgate-mpi: one barrier over every thread of every rank.
 *
 *   mpirun -np R build/bin/cg_mpi [-i ITERATIONS] [-t THREADS_PER_RANK] [-b fused|three-step]
 *
 * The computation is apps/cg.c's, operation for operation: the same makea (generator, seeds, trials of
 * NITER outer iterations, x = 1 at each trial's start), CGIT CG steps per outer iteration, and every dot
 * product taken per fixed block of BLK rows and then summed over the NBLK blocks in block order. So rank
 * 0's stdout — every line, the checksum included — is the same as cg's for the same -i, whatever R and T
 * (tests/app_cg_mpi.sh checks it against bin/cg-gcc at 1-3 ranks x 1-2 threads).
 *
 * Distribution. The R*T workers (worker w = rank * T + tid) own fixed, contiguous runs of blocks:
 * worker w owns blocks [w*NBLK/W, (w+1)*NBLK/W), W = R*T (a worker may own none when W > NBLK), so
 * rank r owns the contiguous blocks of its T workers, and the rows in them. Every rank keeps the whole
 * matrix (each rank's main thread builds it with the same generator) and full-length vectors; a worker
 * writes only the rows and the per-block partial sums of its own blocks. What a worker reads beyond its
 * own rows — all of p for q = A p, all of z for the residual x - A z, every block's partial sums, and
 * all of x for the checksum — is brought in by an exchange.
 *
 * An exchange (xchg()): [all workers wrote their rows / blocks] barrier; tid 0 of every rank: one
 * MPI_Allgatherv of its rank's rows of the vector and its rank's blocks of the partial sums, unpacked
 * into the full arrays; barrier [every thread of every rank holds the full vector and all NBLK partial
 * sums, the same bits everywhere: each is a copy of its owner's value]. Every thread then adds the blocks
 * itself, in block order (block_sum), so every thread of every rank computes the same alpha, beta, rho,
 * norm as cg.c does. Invariants:
 *   - before the first barrier, a thread writes only its own blocks' rows and partial sums;
 *   - between the barriers only tid 0 of each rank runs (the others wait in the second barrier), so it
 *     may read what its rank's threads wrote (the barrier's release/acquire) and overwrite the other
 *     ranks' rows and blocks, which nobody reads until the second barrier;
 *   - all MPI calls of the program are made by tid 0, the main thread, between barriers; the library
 *     calls MPI only while every thread of the rank is inside a barrier (from its fixed leader, or with
 *     a node per rank from the rank's last arriver: docs/mpi.md, "MPI thread level"), so the two never
 *     overlap and MPI_THREAD_SERIALIZED is enough.
 * (The first barrier only has to close the rank — MPI_Allgatherv itself waits for the other ranks — and
 * the second one too; both are job-wide here, as cg.c's OpenMP barriers are team-wide, and so that the
 * program is a barrier-bound user of libandgate-mpi.)
 *
 * Barriers, cg.c's OpenMP barrier -> here: the end of each static loop that produces partial sums or a
 * vector others read -> one exchange (two barriers); per outer iteration: the starting loop (p, r.r),
 * per CG step q = A p (p.q), the z, r updates (r.r), p = r + beta p (p; at the last step z, which the
 * power step reads in full), then the residual loop (res, x.z, z.z and the max residual per block);
 * cg.c's `single` (zeta, rnorm) is done by tid 0 of each rank inside that exchange, and cg.c's region end
 * (after x = z / ||z||) is one barrier: 2 * (1 + 3 * CGIT + 1) + 1 = 155 barriers per outer iteration,
 * plus one per trial (the new matrix is ready).
 *
 * -b fused (default): every barrier is ag_mpi_barrier_wait. -b three-step: every barrier is the usual
 * hybrid pattern instead, an andgate barrier over the rank's threads, MPI_Barrier by tid 0, the thread
 * barrier again (as `andgate bench --mpi`'s mpi:three-step). Threads per rank: -t N, else $CG_THREADS,
 * else 1. Rank 0 prints cg's stdout; the time, the barrier count and rate, and the barrier's
 * description go to stderr.
 */
#include <andgate_mpi.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NA = 240, NONZER = 2, CGIT = 25, BLK = 16, NBLK = (NA + BLK - 1) / BLK };
enum { NITER = 300, MAXTRIP = NA * (NONZER + 1) * (NONZER + 1) + NA, DEFAULT_ITERS = 300, MAX_ITERS = 100000000 };
enum { MAX_THREADS = 256, MAX_PARTS = 4 };
static const double SHIFT = 5.0, RCOND = 0.1;

/* ---- the matrix, in compressed sparse rows (every rank holds all of it) ---------------------- */
static int rowptr[NA + 1], col[MAXTRIP];
static double val[MAXTRIP];
static int nnz;

/* ---- full-length vectors and per-block partial sums (a worker writes only its own rows/blocks) -- */
static double x[NA], z[NA], p[NA], q[NA], r[NA];
static double part_rr[NBLK], part_pq[NBLK], part_res[NBLK], part_xz[NBLK], part_zz[NBLK], part_max[NBLK];
static double rmax, zeta, rnorm; /* written by tid 0 of each rank only, the same values on every rank */

/* ---- the job's shape ------------------------------------------------------------------------- */
static int rank, nranks;
static unsigned nthreads;                          /* threads per rank */
static int rank_blo[1024], rank_bhi[1024];         /* the blocks of each rank: [blo, bhi) */
static int recv_count[1024], recv_displ[1024];     /* scratch for MPI_Allgatherv (tid 0) */
static enum { FUSED, THREE_STEP } mode = FUSED;
static ag_mpi_barrier_t *fused;
static ag_barrier_t *local;                        /* three-step: the rank's thread barrier */
static long barriers;                              /* counted by tid 0 */

static void die(const char *what, const char *why) {
    fprintf(stderr, "cg_mpi: rank %d: %s: %s\n", rank, what, why);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* ---- a seeded generator (cg.c's), used by tid 0 of each rank only --------------------------- */
static uint64_t rng_state;
static double uniform(void) {             /* (0, 1): splitmix64, top 53 bits */
    uint64_t v = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    v = (v ^ (v >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    v = (v ^ (v >> 27)) * UINT64_C(0x94D049BB133111EB);
    v ^= v >> 31;
    return ((double)(v >> 11) + 0.5) * 0x1.0p-53;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* ---- makea, as cg.c: weighted outer products of random sparse vectors, then the shift --------- */
struct trip { int i, j; double v; };

static int sparse_vector(int row, int *idx, double *v) {
    int n = 0;
    while (n < NONZER) {
        int k = (int)(uniform() * NA);
        double value = uniform();
        int dup = 0;
        for (int m = 0; m < n; m++) dup |= idx[m] == k;
        if (!dup) { idx[n] = k; v[n] = value; n++; }
    }
    for (int m = 0; m < n; m++)
        if (idx[m] == row) { v[m] = 0.5; return n; }
    idx[n] = row; v[n] = 0.5;
    return n + 1;
}

static void assemble(struct trip *t, int nt) {
    static struct trip sorted[MAXTRIP];
    int fill[NA + 1] = { 0 };
    for (int k = 0; k < nt; k++) fill[t[k].i + 1]++;
    for (int i = 0; i < NA; i++) fill[i + 1] += fill[i];
    for (int k = 0; k < nt; k++) sorted[fill[t[k].i]++] = t[k];
    nnz = 0;
    for (int i = 0, start = 0; i < NA; i++) {
        int end = fill[i];
        for (int a = start + 1; a < end; a++)
            for (int b = a; b > start && sorted[b - 1].j > sorted[b].j; b--) {
                struct trip tmp = sorted[b]; sorted[b] = sorted[b - 1]; sorted[b - 1] = tmp;
            }
        rowptr[i] = nnz;
        for (int a = start; a < end; a++) {
            if (nnz > rowptr[i] && col[nnz - 1] == sorted[a].j) { val[nnz - 1] += sorted[a].v; continue; }
            col[nnz] = sorted[a].j; val[nnz] = sorted[a].v; nnz++;
        }
        start = end;
    }
    rowptr[NA] = nnz;
}

static void makea(long trial) {
    static struct trip t[MAXTRIP];
    rng_state = UINT64_C(314159265) * (uint64_t)trial;
    int nt = 0, idx[NONZER + 1] = { 0 };
    double v[NONZER + 1] = { 0 }, size = 1.0, ratio = pow(RCOND, 1.0 / NA);
    for (int i = 0; i < NA; i++) {
        int n = sparse_vector(i, idx, v);
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) t[nt++] = (struct trip){ idx[a], idx[b], size * v[a] * v[b] };
        size *= ratio;
    }
    for (int i = 0; i < NA; i++) t[nt++] = (struct trip){ i, i, RCOND - SHIFT };
    assemble(t, nt);
}

/* ---- synchronization --------------------------------------------------------------------------- */
/* one job-wide barrier: every thread of every rank has arrived before any leaves */
static void sync_all(unsigned tid) {
    int rc;
    if (mode == FUSED) {
        rc = ag_mpi_barrier_wait(fused, tid);
        if (rc != 0 && rc != AG_SERIAL) die("ag_mpi_barrier_wait", ag_mpi_strerror(rc));
    } else {
        rc = ag_barrier_wait(local, tid);
        if (rc != 0 && rc != AG_SERIAL) die("ag_barrier_wait", ag_strerror(rc));
        if (tid == 0 && (rc = MPI_Barrier(MPI_COMM_WORLD)) != MPI_SUCCESS) die("MPI_Barrier", "failed");
        rc = ag_barrier_wait(local, tid);
        if (rc != 0 && rc != AG_SERIAL) die("ag_barrier_wait", ag_strerror(rc));
    }
    if (tid == 0) barriers++;
}

static int row_lo(int blk) { return blk * BLK; }
static int row_hi(int blk) { return blk * BLK < NA ? blk * BLK : NA; } /* the end of the rows before block blk */

/* The exchange (see the top of the file): barrier; tid 0 of each rank allgathers its rank's rows of vec
 * (NULL: none) and its rank's blocks of parts[0..nparts-1], then runs `after` (NULL: nothing) on the full
 * data; barrier. On return every thread of every rank holds all of vec and every block of every part. */
static void xchg(unsigned tid, double *vec, double *const *parts, int nparts, void (*after)(void)) {
    sync_all(tid);
    if (tid == 0) {
        static double send[NA + MAX_PARTS * NBLK], recv[NA + MAX_PARTS * NBLK];
        int ns = 0, total = 0;
        for (int rr = 0; rr < nranks; rr++) {
            int rows = vec ? row_hi(rank_bhi[rr]) - row_lo(rank_blo[rr]) : 0;
            recv_count[rr] = rows + nparts * (rank_bhi[rr] - rank_blo[rr]);
            recv_displ[rr] = total;
            total += recv_count[rr];
        }
        int blo = rank_blo[rank], bhi = rank_bhi[rank];
        if (vec)
            for (int j = row_lo(blo); j < row_hi(bhi); j++) send[ns++] = vec[j];
        for (int k = 0; k < nparts; k++)
            for (int b = blo; b < bhi; b++) send[ns++] = parts[k][b];
        if (MPI_Allgatherv(send, ns, MPI_DOUBLE, recv, recv_count, recv_displ, MPI_DOUBLE, MPI_COMM_WORLD)
            != MPI_SUCCESS)
            die("MPI_Allgatherv", "failed");
        for (int rr = 0; rr < nranks; rr++) {      /* the other ranks' values; ours are already there */
            const double *in = recv + recv_displ[rr];
            if (rr == rank) continue;
            if (vec)
                for (int j = row_lo(rank_blo[rr]); j < row_hi(rank_bhi[rr]); j++) vec[j] = *in++;
            for (int k = 0; k < nparts; k++)
                for (int b = rank_blo[rr]; b < rank_bhi[rr]; b++) parts[k][b] = *in++;
        }
        if (after) after();
    }
    sync_all(tid);
}

/* ---- the parallel part: every function below is called by every thread of every rank ----------- */
static double block_sum(const double *part) {  /* the same additions in the same order everywhere */
    double s = 0.0;
    for (int b = 0; b < NBLK; b++) s += part[b];
    return s;
}

static double row_times(int j, const double *v) {
    double s = 0.0;
    for (int k = rowptr[j]; k < rowptr[j + 1]; k++) s += val[k] * v[col[k]];
    return s;
}

struct share { int blo, bhi; };                /* a worker's blocks */

static struct share share_of(unsigned tid) {
    long w = (long)rank * nthreads + tid, W = (long)nranks * nthreads;
    return (struct share){ (int)(w * NBLK / W), (int)((w + 1) * NBLK / W) };
}

/* CGIT steps of conjugate gradient on A z = x from z = 0; ends with z complete on every rank */
static void conj_grad(unsigned tid, struct share s) {
    for (int b = s.blo; b < s.bhi; b++) {
        double sum = 0.0;
        for (int j = row_lo(b); j < (b + 1) * BLK && j < NA; j++) {
            z[j] = 0.0; q[j] = 0.0; r[j] = x[j]; p[j] = x[j];
            sum += r[j] * r[j];
        }
        part_rr[b] = sum;
    }
    xchg(tid, p, (double *const[]){ part_rr }, 1, NULL);
    double rho = block_sum(part_rr);
    for (int it = 0; it < CGIT; it++) {
        for (int b = s.blo; b < s.bhi; b++) {      /* q = A p, and p . q */
            double sum = 0.0;
            for (int j = row_lo(b); j < (b + 1) * BLK && j < NA; j++) {
                q[j] = row_times(j, p);
                sum += p[j] * q[j];
            }
            part_pq[b] = sum;
        }
        xchg(tid, NULL, (double *const[]){ part_pq }, 1, NULL);
        double alpha = rho / block_sum(part_pq);
        for (int b = s.blo; b < s.bhi; b++) {      /* z += alpha p, r -= alpha q, and r . r */
            double sum = 0.0;
            for (int j = row_lo(b); j < (b + 1) * BLK && j < NA; j++) {
                z[j] += alpha * p[j];
                r[j] -= alpha * q[j];
                sum += r[j] * r[j];
            }
            part_rr[b] = sum;
        }
        xchg(tid, NULL, (double *const[]){ part_rr }, 1, NULL);
        double rho0 = rho;
        rho = block_sum(part_rr);
        double beta = rho / rho0;
        for (int b = s.blo; b < s.bhi; b++)
            for (int j = row_lo(b); j < (b + 1) * BLK && j < NA; j++) p[j] = r[j] + beta * p[j];
        /* the next step's q = A p reads all of p; after the last step the power step reads all of z */
        xchg(tid, it + 1 < CGIT ? p : z, NULL, 0, NULL);
    }
}

static void single_part(void) {                /* cg.c's `single` and its max reduction, tid 0 per rank */
    rnorm = sqrt(block_sum(part_res));
    zeta = SHIFT + 1.0 / block_sum(part_xz);
    rmax = 0.0;
    for (int b = 0; b < NBLK; b++) rmax = fmax(rmax, part_max[b]);
}

/* the power-iteration step: residual, zeta, x = z / ||z|| (ends with the region's barrier) */
static void power_step(unsigned tid, struct share s) {
    for (int b = s.blo; b < s.bhi; b++) {
        double res = 0.0, xz = 0.0, zz = 0.0, mx = 0.0;
        for (int j = row_lo(b); j < (b + 1) * BLK && j < NA; j++) {
            double d = x[j] - row_times(j, z);
            res += d * d; xz += x[j] * z[j]; zz += z[j] * z[j];
            mx = fmax(mx, fabs(d));
        }
        part_res[b] = res; part_xz[b] = xz; part_zz[b] = zz; part_max[b] = mx;
    }
    xchg(tid, NULL, (double *const[]){ part_res, part_xz, part_zz, part_max }, 4, single_part);
    double norm = 1.0 / sqrt(block_sum(part_zz));
    for (int b = s.blo; b < s.bhi; b++)
        for (int j = row_lo(b); j < (b + 1) * BLK && j < NA; j++) x[j] = norm * z[j];
    sync_all(tid);                              /* cg.c's end of the parallel region */
}

/* ---- the run ------------------------------------------------------------------------------------ */
static long niter, trials;
static uint64_t hash = UINT64_C(0xcbf29ce484222325);
static double zmin = INFINITY, zmax = -INFINITY;
static int broken;                              /* tid 0: the solver broke down; read after a barrier */

static void print_trial(long t, int iters, double zeta1) {
    printf("trial %ld iterations %d nnz %d zeta_first %.13e zeta %.13e rnorm %.6e rmax %.6e\n", t, iters, nnz,
           zeta1, zeta, rnorm, rmax);
}

static void *worker(void *arg) {
    unsigned tid = (unsigned)(uintptr_t)arg;
    struct share s = share_of(tid);
    double zeta1 = 0.0;
    for (long t = 1; t <= trials; t++) {
        int last = t < trials ? NITER : (int)(niter - (trials - 1) * NITER);
        if (tid == 0) {
            makea(t);
            for (int j = 0; j < NA; j++) x[j] = 1.0;
        }
        sync_all(tid);                          /* the matrix and x are ready on every rank */
        if (broken) break;
        for (int it = 1; it <= last; it++) {
            conj_grad(tid, s);
            power_step(tid, s);
            if (tid == 0) {                     /* cg.c's main thread between regions */
                hash = fnv(hash, &zeta, sizeof zeta);
                if (it == 1) zeta1 = zeta;
            }
        }
        if (tid == 0) {                         /* the whole x for the checksum: one more allgather */
            for (int rr = 0; rr < nranks; rr++) {
                recv_count[rr] = row_hi(rank_bhi[rr]) - row_lo(rank_blo[rr]);
                recv_displ[rr] = row_lo(rank_blo[rr]);
            }
            if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, recv_count, recv_displ, MPI_DOUBLE,
                               MPI_COMM_WORLD) != MPI_SUCCESS)
                die("MPI_Allgatherv", "failed");
            hash = fnv(hash, &rnorm, sizeof rnorm);
            hash = fnv(hash, x, sizeof x);
            if (!isfinite(zeta)) {
                if (rank == 0) fprintf(stderr, "cg_mpi: trial %ld: the solver broke down (zeta %g)\n", t, zeta);
                broken = 1;
            } else {
                if (rank == 0 && (t == 1 || t == trials)) print_trial(t, last, zeta1);
                zmin = fmin(zmin, zeta); zmax = fmax(zmax, zeta);
            }
        }
    }
    return NULL;
}

static void usage(FILE *f) {
    fprintf(f, "usage: mpirun -np RANKS cg_mpi [-i ITERATIONS] [-t THREADS_PER_RANK] [-b fused|three-step]\n"
               "  -i  outer power iterations (default %d; a new matrix every %d), as cg's -i\n"
               "  -t  threads per rank, 1 to %d (default $CG_THREADS, else 1)\n"
               "  -b  fused: libandgate-mpi's barrier over all threads of all ranks (default);\n"
               "      three-step: thread barrier, MPI_Barrier by thread 0, thread barrier\n",
            DEFAULT_ITERS, NITER, MAX_THREADS);
}

static long number(const char *opt, const char *s, long lo, long hi) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        if (rank == 0) fprintf(stderr, "cg_mpi: %s wants an integer from %ld to %ld, not '%s'\n", opt, lo, hi, s);
        return -1;
    }
    return v;
}

/* 0: go on; 1: exit 0 (-h); 2: a bad command line (rank 0 says why) */
static int parse(int argc, char **argv) {
    long t = 1;
    const char *env = getenv("CG_THREADS");
    if (env && *env && (t = number("CG_THREADS", env, 1, MAX_THREADS)) < 0) return 2;
    niter = DEFAULT_ITERS;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-h")) { if (rank == 0) usage(stdout); return 1; }
        if (a + 1 == argc || (strcmp(argv[a], "-i") && strcmp(argv[a], "-t") && strcmp(argv[a], "-b"))) {
            if (rank == 0) usage(stderr);
            return 2;
        }
        const char *opt = argv[a++], *v = argv[a];
        if (!strcmp(opt, "-i") && (niter = number("-i", v, 1, MAX_ITERS)) < 0) return 2;
        if (!strcmp(opt, "-t") && (t = number("-t", v, 1, MAX_THREADS)) < 0) return 2;
        if (!strcmp(opt, "-b")) {
            if (!strcmp(v, "fused")) mode = FUSED;
            else if (!strcmp(v, "three-step")) mode = THREE_STEP;
            else {
                if (rank == 0) fprintf(stderr, "cg_mpi: -b wants fused or three-step, not '%s'\n", v);
                return 2;
            }
        }
    }
    nthreads = (unsigned)t;
    return 0;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int st = parse(argc, argv);
    if (!st && nranks > (int)(sizeof rank_blo / sizeof rank_blo[0])) {
        if (rank == 0) fprintf(stderr, "cg_mpi: at most %zu ranks\n", sizeof rank_blo / sizeof rank_blo[0]);
        st = 2;
    }
    unsigned tmin = nthreads, tmax = nthreads;  /* every rank must run the same threads (the shares) */
    MPI_Allreduce(MPI_IN_PLACE, &tmin, 1, MPI_UNSIGNED, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &tmax, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!st && tmin != tmax) {
        if (rank == 0) fprintf(stderr, "cg_mpi: the ranks disagree on the threads per rank ($CG_THREADS?)\n");
        st = 2;
    }
    if (st) { MPI_Finalize(); return st == 1 ? 0 : 2; }
    trials = (niter + NITER - 1) / NITER;
    long W = (long)nranks * nthreads;
    for (int rr = 0; rr < nranks; rr++) {
        rank_blo[rr] = (int)((long)rr * nthreads * NBLK / W);
        rank_bhi[rr] = (int)((long)(rr + 1) * nthreads * NBLK / W);
    }

    ag_config_t cfg = { .nthreads = nthreads, .algo = "auto", .wait = "auto" };
    int rc = mode == FUSED ? ag_mpi_barrier_init(&fused, MPI_COMM_WORLD, nthreads, &cfg)
                           : ag_barrier_init(&local, &cfg);
    int any = rc;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        if (rc) fprintf(stderr, "cg_mpi: rank %d: %s: %s\n", rank, mode == FUSED ? "ag_mpi_barrier_init" : "ag_barrier_init",
                        mode == FUSED ? ag_mpi_strerror(rc) : ag_strerror(rc));
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        printf("cg na %d nonzer %d niter %ld (%ld x %d) cgit %d shift %.1f\n", NA, NONZER, niter, trials, NITER,
               CGIT, SHIFT);
        fflush(stdout);
        fprintf(stderr, "cg_mpi: %d ranks x %u threads, barrier %s: %s\n", nranks, nthreads,
                mode == FUSED ? "fused" : "three-step",
                mode == FUSED ? ag_mpi_barrier_describe(fused) : ag_barrier_describe(local));
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pthread_t th[MAX_THREADS];
    for (unsigned t = 1; t < nthreads; t++)
        if ((rc = pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t)) != 0)
            die("pthread_create", strerror(rc));
    worker((void *)(uintptr_t)0);               /* tid 0 is the main thread: every MPI call stays on it */
    for (unsigned t = 1; t < nthreads; t++) pthread_join(th[t], NULL);
    double secs = MPI_Wtime() - t0;

    if (rank == 0 && !broken) {
        printf("zeta over trials: min %.13e max %.13e\n", zmin, zmax);
        printf("checksum %016" PRIx64 "\n", hash);
        fprintf(stderr, "time %.3f s\n", secs);
        fprintf(stderr, "barriers %ld job-wide (%.0f per second; %s)\n", barriers, barriers / secs,
                mode == FUSED ? "each one ag_mpi_barrier_wait" : "each one thread barrier + MPI_Barrier + thread barrier");
    }
    rc = mode == FUSED ? ag_mpi_barrier_destroy(fused) : ag_barrier_destroy(local);
    if (rc) fprintf(stderr, "cg_mpi: rank %d: barrier destroy: %s\n", rank, mode == FUSED ? ag_mpi_strerror(rc) : ag_strerror(rc));
    MPI_Finalize();
    return broken || rc ? 1 : 0;
}
