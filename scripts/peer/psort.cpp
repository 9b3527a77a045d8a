// psort.cpp — libstdc++ parallel mode under OpenMP, a peer program for libandgate-preload.so (docs/results.md,
// twenty-first part): its algorithms run regions with #pragma omp barrier inside (multiway mergesort).
//   g++ -O2 -fopenmp -D_GLIBCXX_PARALLEL scripts/peer/psort.cpp -o psort-gcc
//   clang++ -O2 -fopenmp=libomp -D_GLIBCXX_PARALLEL scripts/peer/psort.cpp -o psort-clang
//   ./psort-gcc [N [REPS]]   prints a checksum (the same at every thread count) and, on stderr, the time
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>
#include <omp.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200000, reps = argc > 2 ? atoi(argv[2]) : 60;
    std::mt19937_64 g(1);
    std::vector<uint64_t> v(n), w;
    uint64_t h = 1469598103934665603ull;
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; r++) {
        for (auto &x : v) x = g() % 1000000;
        w = v;
        std::sort(v.begin(), v.end());
        std::stable_sort(w.begin(), w.end(), [](uint64_t a, uint64_t b) { return a / 10 < b / 10; });
        std::vector<uint64_t> p(n);
        std::partial_sum(v.begin(), v.end(), p.begin());
        std::nth_element(w.begin(), w.begin() + n / 3, w.end());
        auto mx = *std::max_element(v.begin(), v.end());
        h = (h ^ v[n / 2] ^ p[n - 1] ^ w[n / 3] ^ mx) * 1099511628211ull;
        for (int i = 0; i < n; i += 997) h = (h ^ v[i]) * 1099511628211ull;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("checksum %016llx\n", (unsigned long long)h);
    fprintf(stderr, "time %.4f s\n", s);
}
