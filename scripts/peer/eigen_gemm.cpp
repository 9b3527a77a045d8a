// eigen_gemm.cpp — Eigen's OpenMP matrix product, a peer program for libandgate-preload.so (docs/results.md,
// twenty-first part): one region per product, whose threads hand packed blocks on through atomics.
//   g++ -O2 -march=native -fopenmp -I/usr/include/eigen3 scripts/peer/eigen_gemm.cpp -o gemm-gcc
//   ./gemm-gcc [N [REPS]]   prints a sum and, on stderr, the time (needs libeigen3-dev)
#include <Eigen/Dense>
#include <chrono>
#include <cstdlib>
#include <cstdio>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 384, reps = argc > 2 ? atoi(argv[2]) : 40;
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n), b(n, n), c(n, n);
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { a(i, j) = ((i * 31 + j * 17) % 101) / 101.0; b(i, j) = ((i * 7 + j * 13) % 89) / 89.0 - 0.5; }
    auto t0 = std::chrono::steady_clock::now();
    double s = 0;
    for (int r = 0; r < reps; r++) { c.noalias() = a * b; s += c(r % n, (r * 7) % n); a(r % n, r % n) += 1e-3; }
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("sum %.12e threads %d\n", s, Eigen::nbThreads());
    fprintf(stderr, "time %.4f s\n", t);
}
