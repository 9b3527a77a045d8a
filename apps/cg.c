/* cg.c — a NAS-CG-style kernel: the smallest eigenvalue near a shift of a random sparse symmetric
 * matrix, by inverse power iteration whose inner solve is 25 steps of conjugate gradient.
 *
 * An ordinary OpenMP program that knows nothing of andgate, written from scratch from the description
 * of the NAS CG kernel and of the input class "Y" that ../shared/seeds/003_614c4f6f0a5e5869.txt §5.1
 * introduced to make its barriers frequent (Table 1: na=240, nonzer=2, niter=300, shift=5.0). The
 * outer iterations are scaled up (-i, default 15000) so that a default run takes about a second on
 * 2 CPUs; every NITER = 300 of them are one class-Y run ("trial") on its own matrix, from x = 1 (the
 * generator is seeded by the trial number), so the power iteration never sits converged for long.
 *
 * The matrix (makea-style, built once by the main thread from a seeded generator): for every row i a
 * random sparse vector v_i with NONZER entries in (0,1) plus v_i[i] = 0.5, and
 *     A = sum_i size_i v_i v_i^T + (RCOND - SHIFT) I,   size_i = RCOND^(i/NA)
 * (the outer products make a symmetric positive semi-definite matrix; the diagonal term moves its
 * spectrum by the shift, as NAS CG does). Each outer iteration (NAS's power iteration):
 *     solve A z = x approximately by CGIT steps of CG from z = 0
 *     rnorm = ||x - A z||,  zeta = SHIFT + 1 / (x . z),  x = z / ||z||
 *
 * OpenMP shape (as NAS CG's conj_grad): one parallel region per outer iteration; inside it static
 * worksharing loops (GOMP_barrier / __kmpc_barrier at each end: 3 per CG step), a `single` that
 * records zeta, and a max `reduction` (the largest residual component). 79 barriers per region.
 *
 * Determinism: every dot product is taken per block of BLK rows (a fixed size, not a thread share) into
 * an array inside the `omp for`; after the loop's barrier every thread adds the blocks itself, in block
 * order, so all threads hold the same scalars and the run does not depend on the thread count. The
 * only `reduction` is a max, which does not depend on order.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NA = 240, NONZER = 2, CGIT = 25, BLK = 16, NBLK = (NA + BLK - 1) / BLK };
enum { NITER = 300, MAXTRIP = NA * (NONZER + 1) * (NONZER + 1) + NA, DEFAULT_ITERS = 15000, MAX_ITERS = 100000000 };
static const double SHIFT = 5.0, RCOND = 0.1;

/* ---- the matrix, in compressed sparse rows ------------------------------------------------- */
static int rowptr[NA + 1], col[MAXTRIP];
static double val[MAXTRIP];
static int nnz;

/* ---- the iteration's vectors and per-block partial sums (shared by the team) ----------------- */
static double x[NA], z[NA], p[NA], q[NA], r[NA];
static double part_rr[NBLK], part_pq[NBLK], part_res[NBLK], part_xz[NBLK], part_zz[NBLK];
static double rmax;        /* max |x - A z| of the current outer iteration: reduction(max) */
static double zeta, rnorm; /* written by the `single` of each region */

/* ---- a seeded generator, used by the main thread only ------------------------------------- */
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

/* ---- makea: the sum of weighted outer products of random sparse vectors, then the shift -------- */
struct trip { int i, j; double v; };

/* one random sparse vector: NONZER distinct positions, values in (0,1), then position `row` = 0.5 */
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

/* triplets -> CSR: stable by row, then stable by column within a row, duplicates added in order */
static void assemble(struct trip *t, int nt) {
    static struct trip sorted[MAXTRIP];
    int fill[NA + 1] = { 0 };
    for (int k = 0; k < nt; k++) fill[t[k].i + 1]++;
    for (int i = 0; i < NA; i++) fill[i + 1] += fill[i];
    for (int k = 0; k < nt; k++) sorted[fill[t[k].i]++] = t[k];
    nnz = 0;
    for (int i = 0, start = 0; i < NA; i++) {
        int end = fill[i];
        for (int a = start + 1; a < end; a++)        /* insertion sort by column: stable */
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

/* ---- the parallel part: every function below is called by every thread of the team ------------ */
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

/* CGIT steps of conjugate gradient on A z = x from z = 0 (3 barriers a step, 1 before) */
static void conj_grad(void) {
#pragma omp for schedule(static)
    for (int b = 0; b < NBLK; b++) {
        double s = 0.0;
        for (int j = b * BLK; j < (b + 1) * BLK && j < NA; j++) {
            z[j] = 0.0; q[j] = 0.0; r[j] = x[j]; p[j] = x[j];
            s += r[j] * r[j];
        }
        part_rr[b] = s;
    }
    double rho = block_sum(part_rr);
    for (int it = 0; it < CGIT; it++) {
#pragma omp for schedule(static)
        for (int b = 0; b < NBLK; b++) {             /* q = A p, and p . q */
            double s = 0.0;
            for (int j = b * BLK; j < (b + 1) * BLK && j < NA; j++) {
                q[j] = row_times(j, p);
                s += p[j] * q[j];
            }
            part_pq[b] = s;
        }
        double alpha = rho / block_sum(part_pq);
#pragma omp for schedule(static)
        for (int b = 0; b < NBLK; b++) {             /* z += alpha p, r -= alpha q, and r . r */
            double s = 0.0;
            for (int j = b * BLK; j < (b + 1) * BLK && j < NA; j++) {
                z[j] += alpha * p[j];
                r[j] -= alpha * q[j];
                s += r[j] * r[j];
            }
            part_rr[b] = s;
        }
        double rho0 = rho;
        rho = block_sum(part_rr);
        double beta = rho / rho0;
#pragma omp for schedule(static)
        for (int j = 0; j < NA; j++) p[j] = r[j] + beta * p[j];
    }
}

/* the power-iteration step: residual, zeta, x = z / ||z|| (3 barriers) */
static void power_step(void) {
#pragma omp for schedule(static) reduction(max : rmax)
    for (int b = 0; b < NBLK; b++) {
        double res = 0.0, xz = 0.0, zz = 0.0;
        for (int j = b * BLK; j < (b + 1) * BLK && j < NA; j++) {
            double d = x[j] - row_times(j, z);
            res += d * d; xz += x[j] * z[j]; zz += z[j] * z[j];
            rmax = fmax(rmax, fabs(d));
        }
        part_res[b] = res; part_xz[b] = xz; part_zz[b] = zz;
    }
    double norm = 1.0 / sqrt(block_sum(part_zz));
#pragma omp single
    {
        rnorm = sqrt(block_sum(part_res));
        zeta = SHIFT + 1.0 / block_sum(part_xz);
    }
#pragma omp for schedule(static)
    for (int j = 0; j < NA; j++) x[j] = norm * z[j];
}

static void usage(FILE *f) {
    fprintf(f, "usage: cg [-i ITERATIONS]   (outer power iterations, default %d, a new matrix every %d; "
               "threads: OMP_NUM_THREADS)\n", DEFAULT_ITERS, NITER);
}

static long parse_iters(int argc, char **argv) {
    long iters = DEFAULT_ITERS;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-h")) { usage(stdout); exit(0); }
        if (strcmp(argv[a], "-i") || a + 1 == argc) { usage(stderr); exit(2); }
        char *end;
        errno = 0;
        iters = strtol(argv[++a], &end, 10);
        if (errno || end == argv[a] || *end || iters < 1 || iters > MAX_ITERS) {
            fprintf(stderr, "cg: -i wants an integer from 1 to %d, not '%s'\n", MAX_ITERS, argv[a]);
            exit(2);
        }
    }
    return iters;
}

/* outer iterations first..last (at most NITER) of trial `trial`: one parallel region each */
static uint64_t trial_run(long trial, int last, uint64_t h, double *zeta1) {
    makea(trial);
    for (int j = 0; j < NA; j++) x[j] = 1.0;
    for (int it = 1; it <= last; it++) {
        rmax = 0.0;
#pragma omp parallel
        {
            conj_grad();
            power_step();
        }
        h = fnv(h, &zeta, sizeof zeta);            /* every iteration's zeta */
        if (it == 1) *zeta1 = zeta;
    }
    h = fnv(h, &rnorm, sizeof rnorm);
    return fnv(h, x, sizeof x);
}

static void print_trial(long t, int iters, double zeta1) {
    printf("trial %ld iterations %d nnz %d zeta_first %.13e zeta %.13e rnorm %.6e rmax %.6e\n", t, iters, nnz,
           zeta1, zeta, rnorm, rmax);
}

int main(int argc, char **argv) {
    long niter = parse_iters(argc, argv), trials = (niter + NITER - 1) / NITER;
    printf("cg na %d nonzer %d niter %ld (%ld x %d) cgit %d shift %.1f\n", NA, NONZER, niter, trials, NITER,
           CGIT, SHIFT);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    double zmin = INFINITY, zmax = -INFINITY, zeta1 = 0.0, t0 = omp_get_wtime();
    for (long t = 1; t <= trials; t++) {
        int last = t < trials ? NITER : (int)(niter - (trials - 1) * NITER);
        h = trial_run(t, last, h, &zeta1);
        if (!isfinite(zeta)) { fprintf(stderr, "cg: trial %ld: the solver broke down (zeta %g)\n", t, zeta); return 1; }
        if (t == 1 || t == trials) print_trial(t, last, zeta1);
        zmin = fmin(zmin, zeta); zmax = fmax(zmax, zeta);
    }
    double secs = omp_get_wtime() - t0;
    printf("zeta over trials: min %.13e max %.13e\n", zmin, zmax);
    printf("checksum %016" PRIx64 "\n", h);
    long barriers = niter * (1 + 3 * CGIT + 3);
    fprintf(stderr, "time %.3f s\n", secs);
    fprintf(stderr, "barriers %ld in %ld parallel regions (%.0f barriers per second)\n", barriers, niter,
            barriers / secs);
    return 0;
}
