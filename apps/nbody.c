/* nbody.c — direct N-body simulation: a small self-gravitating cluster, every pair interaction every
 * step, integrated with the leapfrog (kick-drift) scheme.
 *
 * An ordinary OpenMP program that knows nothing of andgate, written from scratch from the description
 * of the NBODY kernel of ../shared/seeds/003_614c4f6f0a5e5869.txt §5.1: a kernel "where
 * synchronization cannot be relaxed", in which a thread computes the coordinates and velocities of a
 * single particle so that barriers are as frequent as they can be, and each particle's coordinates and
 * velocities live in one cache line. Here the particle count N is fixed (the output must not depend on
 * the thread count), and small, so that a step is a few microseconds of arithmetic between barriers.
 *
 * A step (G = 1, masses 1/N, Plummer softening EPS):
 *     a_i = sum_{j != i} m_j (x_j - x_i) / (|x_j - x_i|^2 + EPS^2)^(3/2)    force loop, dynamic schedule
 *     v_i += a_i dt;  x_i += v_i dt                                      kick-drift loop, static schedule
 * Every DIAG steps, between the two loops, the kinetic and potential energies (at the synchronous
 * velocities v_i + a_i dt/2) are computed in two `sections`, one section each.
 *
 * OpenMP shape: one parallel region around the whole time loop. Per step two barriers, both
 * load-bearing (the kick reads accelerations other threads computed, the next force loop reads
 * positions other threads moved): the end of a `schedule(dynamic, 1)` loop (GOMP_loop_end with gcc)
 * and the end of a static loop with min/max `reduction`s (GOMP_barrier; __kmpc_reduce with clang).
 * Every DIAG steps one more: the end of `sections` (GOMP_sections_end).
 *
 * Determinism: each acceleration is one thread's sum over j in index order; each energy is one
 * section's sum in index order; the only reductions are min and max. Nothing depends on which thread
 * does what, so stdout is the same at any thread count. The initial state comes from a seeded
 * generator used by the main thread only.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 16, DIAG = 1000, DEFAULT_STEPS = 200000, MAX_STEPS = 1000000000 };
static const double DT = 1.0e-3, EPS = 0.05;

/* one particle: coordinates, velocity and mass in one cache line */
struct particle {
    alignas(64) double x[3];
    double v[3];
    double m;
};

static struct particle P[N];
static double acc[N][3], nearest[N];          /* this step's accelerations and nearest distances */
static double closest = INFINITY, fastest;    /* over the whole run: reduction(min) / reduction(max) */
static double *ekin, *epot;                   /* one entry per diagnostic point, written by a section */

static uint64_t rng_state = UINT64_C(0x243F6A8885A308D3);
static double uniform(void) {                 /* [0, 1): splitmix64, top 53 bits; main thread only */
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* positions uniform in the unit ball, velocities uniform in a ball of radius 0.5, then the centre of
 * mass moved to the origin and at rest */
static void initial_state(void) {
    double cx[3] = { 0 }, cv[3] = { 0 };
    for (int i = 0; i < N; i++) {
        double *w[2] = { P[i].x, P[i].v }, radius[2] = { 1.0, 0.5 };
        for (int k = 0; k < 2; k++) {
            double r2;
            do {
                r2 = 0.0;
                for (int d = 0; d < 3; d++) { w[k][d] = 2.0 * uniform() - 1.0; r2 += w[k][d] * w[k][d]; }
            } while (r2 > 1.0);
            for (int d = 0; d < 3; d++) w[k][d] *= radius[k];
        }
        P[i].m = 1.0 / N;
        for (int d = 0; d < 3; d++) { cx[d] += P[i].m * P[i].x[d]; cv[d] += P[i].m * P[i].v[d]; }
    }
    for (int i = 0; i < N; i++)
        for (int d = 0; d < 3; d++) { P[i].x[d] -= cx[d]; P[i].v[d] -= cv[d]; }
}

/* the acceleration of particle i and its nearest neighbour's distance, j in index order */
static void accelerate(int i) {
    double a[3] = { 0.0, 0.0, 0.0 }, near2 = INFINITY;
    for (int j = 0; j < N; j++) {
        if (j == i) continue;
        double d[3], r2 = EPS * EPS;
        for (int k = 0; k < 3; k++) { d[k] = P[j].x[k] - P[i].x[k]; r2 += d[k] * d[k]; }
        double s = P[j].m / (r2 * sqrt(r2));
        for (int k = 0; k < 3; k++) a[k] += s * d[k];
        near2 = fmin(near2, r2 - EPS * EPS);
    }
    for (int k = 0; k < 3; k++) acc[i][k] = a[k];
    nearest[i] = sqrt(near2);
}

static double kinetic(void) {                 /* at the synchronous velocity v + a dt/2 */
    double e = 0.0;
    for (int i = 0; i < N; i++) {
        double v2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double v = P[i].v[k] + 0.5 * DT * acc[i][k];
            v2 += v * v;
        }
        e += 0.5 * P[i].m * v2;
    }
    return e;
}

static double potential(void) {
    double e = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            double r2 = EPS * EPS;
            for (int k = 0; k < 3; k++) r2 += (P[j].x[k] - P[i].x[k]) * (P[j].x[k] - P[i].x[k]);
            e -= P[i].m * P[j].m / sqrt(r2);
        }
    return e;
}

/* the time loop, run by every thread of the team */
static void simulate(long steps) {
    for (long s = 0; s < steps; s++) {
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < N; i++) accelerate(i);
        if (s % DIAG == 0) {
#pragma omp sections
            {
#pragma omp section
                ekin[s / DIAG] = kinetic();
#pragma omp section
                epot[s / DIAG] = potential();
            }
        }
#pragma omp for schedule(static) reduction(min : closest) reduction(max : fastest)
        for (int i = 0; i < N; i++) {
            double v2 = 0.0;
            for (int k = 0; k < 3; k++) {
                P[i].v[k] += DT * acc[i][k];
                P[i].x[k] += DT * P[i].v[k];
                v2 += P[i].v[k] * P[i].v[k];
            }
            closest = fmin(closest, nearest[i]);
            fastest = fmax(fastest, sqrt(v2));
        }
    }
}

static void usage(FILE *f) {
    fprintf(f, "usage: nbody [-i STEPS]   (time steps, default %d; threads: OMP_NUM_THREADS)\n", DEFAULT_STEPS);
}

static long parse_steps(int argc, char **argv) {
    long steps = DEFAULT_STEPS;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-h")) { usage(stdout); exit(0); }
        if (strcmp(argv[a], "-i") || a + 1 == argc) { usage(stderr); exit(2); }
        char *end;
        errno = 0;
        steps = strtol(argv[++a], &end, 10);
        if (errno || end == argv[a] || *end || steps < 1 || steps > MAX_STEPS) {
            fprintf(stderr, "nbody: -i wants an integer from 1 to %d, not '%s'\n", MAX_STEPS, argv[a]);
            exit(2);
        }
    }
    return steps;
}

int main(int argc, char **argv) {
    long steps = parse_steps(argc, argv), ndiag = (steps + DIAG - 1) / DIAG;
    ekin = calloc((size_t)ndiag, sizeof *ekin);
    epot = calloc((size_t)ndiag, sizeof *epot);
    if (!ekin || !epot) { fprintf(stderr, "nbody: out of memory\n"); return 1; }
    initial_state();
    double t0 = omp_get_wtime();
#pragma omp parallel
    simulate(steps);
    double secs = omp_get_wtime() - t0;

    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < N; i++) h = fnv(fnv(h, P[i].x, sizeof P[i].x), P[i].v, sizeof P[i].v);
    double e0 = ekin[0] + epot[0], drift = 0.0;
    for (long d = 0; d < ndiag; d++) {
        h = fnv(fnv(h, &ekin[d], sizeof ekin[d]), &epot[d], sizeof epot[d]);
        drift = fmax(drift, fabs((ekin[d] + epot[d] - e0) / e0));
    }
    printf("nbody particles %d steps %ld dt %g eps %g diagnostics every %d steps\n", N, steps, DT, EPS, DIAG);
    printf("energy at step 0: kinetic %.12e potential %.12e total %.12e\n", ekin[0], epot[0], e0);
    printf("energy at step %ld: kinetic %.12e potential %.12e total %.12e\n", (ndiag - 1) * DIAG,
           ekin[ndiag - 1], epot[ndiag - 1], ekin[ndiag - 1] + epot[ndiag - 1]);
    printf("largest relative energy error %.6e closest approach %.6e fastest %.6e\n", drift, closest, fastest);
    printf("particle 0 at %.12e %.12e %.12e\n", P[0].x[0], P[0].x[1], P[0].x[2]);
    printf("checksum %016" PRIx64 "\n", h);
    long barriers = 2 * steps + ndiag;
    fprintf(stderr, "time %.3f s\n", secs);
    fprintf(stderr, "barriers %ld in %ld steps (%.0f barriers per second)\n", barriers, steps, barriers / secs);
    free(ekin);
    free(epot);
    return 0;
}
