/* mg.c — a NAS-MG-style kernel: V-cycle multigrid for the 3-D Poisson equation on a periodic 16^3
 * grid, one V-cycle per iteration, many iterations.
 *
 * An ordinary OpenMP program that knows nothing of andgate, written from scratch from the description
 * of the NAS MG kernel and of the input class "Y" that ../shared/seeds/003_614c4f6f0a5e5869.txt §5.1
 * introduced to make its barriers frequent (problem size 16, nit = 800, and `collapse(2)` on the grid
 * loops so that the small grids still give every thread work). -i sets the iterations (default 16000).
 *
 * The grids: level k (1..LT) has m = 2^k points a side plus one ghost layer, refreshed from the
 * periodic interior by comm3 after every operator that writes a grid. The operators (27-point, the
 * weight of a neighbour depends on how many of its coordinates differ: 0, 1, 2 or 3):
 *     resid   r = v - A u          A: -8/3, 0, 1/6, 1/12
 *     psinv   u = u + S r          S: -3/8, 1/32, -1/64, 0  (the smoother)
 *     rprj3   coarse r from fine r         1/2, 1/4, 1/8, 1/16  (restriction)
 *     interp  fine u += trilinear interpolation of coarse u           (prolongation)
 * and an iteration is NAS's mg3P: restrict the residual down to level 1, smooth there, then on the way
 * up interpolate, recompute the residual and smooth at every level. The right-hand side v is NAS's
 * kind: +1 at NCH points, -1 at NCH others (sum zero, as the periodic problem needs) — except that here
 * every charge takes a random step (-1, 0 or +1 cells on each axis, from a generator indexed by charge
 * and iteration) before each iteration, so the solver keeps tracking a changing problem instead of
 * sitting at a converged solution for 790 of its 800 iterations.
 *
 * OpenMP shape: one parallel region around the iteration loop; every operator is a `collapse(2)`
 * static loop over (i3, i2) and comm3 another (GOMP_barrier / __kmpc_barrier at each end); a `single`
 * moves the charges. 32 barriers per iteration; at the end the residual norm, with a max `reduction`.
 *
 * Determinism: every grid point is computed by one thread from the previous grids with the same
 * operations in the same order, whichever thread it is. The one sum (the final L2 norm) is taken per
 * plane i3 into an array and added in plane order; the maximum is a `reduction(max)`.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LT = 4, NX = 1 << LT, NCH = 10, DEFAULT_ITERS = 16000, MAX_ITERS = 100000000 };
static const double A[4] = { -8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0 };
static const double S[4] = { -3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0 };
static const double P[4] = { 1.0 / 2.0, 1.0 / 4.0, 1.0 / 8.0, 1.0 / 16.0 };
static const double MEAN[4] = { 1.0, 1.0 / 2.0, 1.0 / 4.0, 1.0 / 8.0 };   /* 1 / (points averaged) */

static double *u[LT + 1], *r[LT + 1], *v;    /* level k: (2^k + 2)^3 points with the ghosts */
static int charge[2 * NCH][3];               /* positions 1..NX; the first NCH are +1, the rest -1 */
static double plane_sum[NX + 1], rmax;        /* the final norm: per plane, and reduction(max) */

static inline size_t at(int m, int i3, int i2, int i1) {
    return ((size_t)i3 * (size_t)(m + 2) + (size_t)i2) * (size_t)(m + 2) + (size_t)i1;
}

static uint64_t mix(uint64_t z) {             /* splitmix64's finaliser */
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* A row (i3, i2) of a grid, ready for 27-point operators: c the row itself, f[i1] the sum of its 4
 * face neighbours in the (i3, i2) plane, e[i1] of its 4 edge neighbours there. The neighbours of point
 * i1 by class (1, 2 or 3 coordinates differ) are then c[i1 +- 1] + f[i1], f[i1 +- 1] + e[i1], e[i1 +- 1]. */
struct row { const double *c; double f[NX + 2], e[NX + 2]; };

static inline void row_init(struct row *w, const double *g, int m, int i3, int i2) {
    const double *n = g + at(m, i3, i2 - 1, 0), *s = g + at(m, i3, i2 + 1, 0);
    const double *d = g + at(m, i3 - 1, i2, 0), *up = g + at(m, i3 + 1, i2, 0);
    const double *dn = g + at(m, i3 - 1, i2 - 1, 0), *ds = g + at(m, i3 - 1, i2 + 1, 0);
    const double *un = g + at(m, i3 + 1, i2 - 1, 0), *us = g + at(m, i3 + 1, i2 + 1, 0);
    w->c = g + at(m, i3, i2, 0);
    for (int i1 = 0; i1 <= m + 1; i1++) {
        w->f[i1] = n[i1] + s[i1] + d[i1] + up[i1];
        w->e[i1] = dn[i1] + ds[i1] + un[i1] + us[i1];
    }
}

/* the operator with weights k[class] at point i1 of the row */
static inline double apply(const struct row *w, int i1, const double k[4]) {
    return k[0] * w->c[i1] + k[1] * (w->c[i1 - 1] + w->c[i1 + 1] + w->f[i1]) +
           k[2] * (w->f[i1 - 1] + w->f[i1 + 1] + w->e[i1]) + k[3] * (w->e[i1 - 1] + w->e[i1 + 1]);
}

static inline int wrap(int i, int m) { return i == 0 ? m : i == m + 1 ? 1 : i; }

/* every ghost point from the interior point it stands for: one pass, one barrier */
static void comm3(double *g, int m) {
#pragma omp for collapse(2) schedule(static)
    for (int i3 = 0; i3 <= m + 1; i3++)
        for (int i2 = 0; i2 <= m + 1; i2++) {
            if (i3 == 0 || i3 == m + 1 || i2 == 0 || i2 == m + 1) {
                for (int i1 = 0; i1 <= m + 1; i1++)
                    g[at(m, i3, i2, i1)] = g[at(m, wrap(i3, m), wrap(i2, m), wrap(i1, m))];
            } else {
                g[at(m, i3, i2, 0)] = g[at(m, i3, i2, m)];
                g[at(m, i3, i2, m + 1)] = g[at(m, i3, i2, 1)];
            }
        }
}

static void zero3(double *g, int m) {
#pragma omp for collapse(2) schedule(static)
    for (int i3 = 0; i3 <= m + 1; i3++)
        for (int i2 = 0; i2 <= m + 1; i2++)
            for (int i1 = 0; i1 <= m + 1; i1++) g[at(m, i3, i2, i1)] = 0.0;
}

/* out = rhs - A uu (out may be rhs), then the ghosts */
static void resid(const double *uu, const double *rhs, double *out, int m) {
#pragma omp for collapse(2) schedule(static)
    for (int i3 = 1; i3 <= m; i3++)
        for (int i2 = 1; i2 <= m; i2++)
        {
            struct row w;
            row_init(&w, uu, m, i3, i2);
            for (int i1 = 1; i1 <= m; i1++) out[at(m, i3, i2, i1)] = rhs[at(m, i3, i2, i1)] - apply(&w, i1, A);
        }
    comm3(out, m);
}

/* uu += S rr, then the ghosts */
static void psinv(const double *rr, double *uu, int m) {
#pragma omp for collapse(2) schedule(static)
    for (int i3 = 1; i3 <= m; i3++)
        for (int i2 = 1; i2 <= m; i2++)
        {
            struct row w;
            row_init(&w, rr, m, i3, i2);
            for (int i1 = 1; i1 <= m; i1++) uu[at(m, i3, i2, i1)] += apply(&w, i1, S);
        }
    comm3(uu, m);
}

/* coarse (m a side) from fine (2m): coarse j sits on fine 2j - 1 */
static void rprj3(const double *fine, double *coarse, int m) {
#pragma omp for collapse(2) schedule(static)
    for (int j3 = 1; j3 <= m; j3++)
        for (int j2 = 1; j2 <= m; j2++)
        {
            struct row w;
            row_init(&w, fine, 2 * m, 2 * j3 - 1, 2 * j2 - 1);
            for (int j1 = 1; j1 <= m; j1++) coarse[at(m, j3, j2, j1)] = apply(&w, 2 * j1 - 1, P);
        }
    comm3(coarse, m);
}

/* fine (2m) += trilinear interpolation of coarse (m): fine 2j - 1 + o, o in {0, 1} per axis, is the
 * mean of the coarse points j .. j + o on each axis */
static void interp(const double *coarse, double *fine, int m) {
#pragma omp for collapse(2) schedule(static)
    for (int j3 = 1; j3 <= m; j3++)
        for (int j2 = 1; j2 <= m; j2++)
            for (int j1 = 1; j1 <= m; j1++)
                for (int o = 0; o < 8; o++) {
                    int o3 = o >> 2, o2 = (o >> 1) & 1, o1 = o & 1;
                    double sum = 0.0;
                    for (int c3 = 0; c3 <= o3; c3++)
                        for (int c2 = 0; c2 <= o2; c2++)
                            for (int c1 = 0; c1 <= o1; c1++) sum += coarse[at(m, j3 + c3, j2 + c2, j1 + c1)];
                    fine[at(2 * m, 2 * j3 - 1 + o3, 2 * j2 - 1 + o2, 2 * j1 - 1 + o1)] += sum * MEAN[o3 + o2 + o1];
                }
    comm3(fine, 2 * m);
}

/* NAS's mg3P: down to level 1, then up, with the residual r[LT] of u[LT] for v on entry */
static void vcycle(void) {
    for (int k = LT; k > 1; k--) rprj3(r[k], r[k - 1], 1 << (k - 1));
    zero3(u[1], 2);
    psinv(r[1], u[1], 2);
    for (int k = 2; k < LT; k++) {
        zero3(u[k], 1 << k);
        interp(u[k - 1], u[k], 1 << (k - 1));
        resid(u[k], r[k], r[k], 1 << k);
        psinv(r[k], u[k], 1 << k);
    }
    interp(u[LT - 1], u[LT], 1 << (LT - 1));
    resid(u[LT], v, r[LT], NX);
    psinv(r[LT], u[LT], NX);
}

/* the right-hand side for iteration `it`: every charge takes its random step, then v is rebuilt */
static void move_charges(long it) {
    for (int c = 0; c < 2 * NCH; c++) {
        uint64_t z = mix(UINT64_C(0x6A09E667F3BCC909) ^ ((uint64_t)it << 8) ^ (uint64_t)c);
        v[at(NX, charge[c][0], charge[c][1], charge[c][2])] = 0.0;
        for (int d = 0; d < 3; d++) {
            int step = (int)((z >> (8 * d)) % 3) - 1;
            charge[c][d] = (charge[c][d] + step + NX - 1) % NX + 1;
        }
    }
    for (int c = 0; c < 2 * NCH; c++) v[at(NX, charge[c][0], charge[c][1], charge[c][2])] += c < NCH ? 1.0 : -1.0;
}

static void solve(long iters) {
    zero3(u[LT], NX);
    for (long it = 0; it < iters; it++) {
#pragma omp single
        move_charges(it);
        resid(u[LT], v, r[LT], NX);
        vcycle();
    }
    resid(u[LT], v, r[LT], NX);
#pragma omp for schedule(static) reduction(max : rmax)
    for (int i3 = 1; i3 <= NX; i3++) {
        double s = 0.0;
        for (int i2 = 1; i2 <= NX; i2++)
            for (int i1 = 1; i1 <= NX; i1++) {
                double x = r[LT][at(NX, i3, i2, i1)];
                s += x * x;
                rmax = fmax(rmax, fabs(x));
            }
        plane_sum[i3] = s;
    }
}

static void usage(FILE *f) {
    fprintf(f, "usage: mg [-i ITERATIONS]   (V-cycles, default %d; threads: OMP_NUM_THREADS)\n", DEFAULT_ITERS);
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
            fprintf(stderr, "mg: -i wants an integer from 1 to %d, not '%s'\n", MAX_ITERS, argv[a]);
            exit(2);
        }
    }
    return iters;
}

int main(int argc, char **argv) {
    long iters = parse_iters(argc, argv);
    for (int k = 1; k <= LT; k++) {
        size_t n = at(1 << k, (1 << k) + 2, 0, 0);
        u[k] = calloc(n, sizeof(double));
        r[k] = calloc(n, sizeof(double));
        if (!u[k] || !r[k]) { fprintf(stderr, "mg: out of memory\n"); return 1; }
    }
    v = calloc(at(NX, NX + 2, 0, 0), sizeof(double));
    if (!v) { fprintf(stderr, "mg: out of memory\n"); return 1; }
    for (int c = 0; c < 2 * NCH; c++)          /* the starting places, from a generator indexed by c */
        for (int d = 0; d < 3; d++)
            charge[c][d] = (int)(mix(UINT64_C(0xB7E151628AED2A6B) + 3 * (uint64_t)c + (uint64_t)d) % NX) + 1;

    double t0 = omp_get_wtime();
#pragma omp parallel
    solve(iters);
    double secs = omp_get_wtime() - t0;

    double sum = 0.0, unorm = 0.0;
    for (int i3 = 1; i3 <= NX; i3++) sum += plane_sum[i3];
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i3 = 1; i3 <= NX; i3++)
        for (int i2 = 1; i2 <= NX; i2++)
            for (int i1 = 1; i1 <= NX; i1++) {
                double x = u[LT][at(NX, i3, i2, i1)];
                unorm = fmax(unorm, fabs(x));
                h = fnv(fnv(h, &x, sizeof x), &r[LT][at(NX, i3, i2, i1)], sizeof(double));
            }
    h = fnv(h, charge, sizeof charge);
    printf("mg size %d^3 levels %d iterations %ld charges %d+%d\n", NX, LT, iters, NCH, NCH);
    printf("residual L2 norm %.13e max %.13e\n", sqrt(sum / (NX * NX * NX)), rmax);
    printf("solution max %.13e at u(1,1,1) %.13e\n", unorm, u[LT][at(NX, 1, 1, 1)]);
    printf("checksum %016" PRIx64 "\n", h);
    long barriers = iters * 32 + 4;
    fprintf(stderr, "time %.3f s\n", secs);
    fprintf(stderr, "barriers %ld in %ld V-cycles (%.0f barriers per second)\n", barriers, iters, barriers / secs);
    for (int k = 1; k <= LT; k++) { free(u[k]); free(r[k]); }
    free(v);
    return 0;
}
