# numba_jacobi.py — Numba's parallel loops on its OpenMP threading layer, a peer program for
# libandgate-preload.so (docs/results.md, twenty-sixth part). Numba (pip) compiles `prange` loops; with
# NUMBA_THREADING_LAYER=omp every launch is one GOMP_parallel region of its omppool extension, whose
# libgomp Python loads outside the global scope (an extension module's dependency). Jacobi sweeps on an
# N x N grid, and every tenth step a `prange` sum reduction.
#   python3 -m venv V && V/bin/pip install numba
#   NUMBA_THREADING_LAYER=omp NUMBA_NUM_THREADS=2 V/bin/python scripts/peer/numba_jacobi.py [N=64 [ITERS=2000]]
# prints the layer, the threads, a checksum (the grid's squared norm; the sweeps do not depend on the
# thread count, the final sum's order does) and the time of the sweeps.
import sys
import time

import numpy as np
from numba import config, njit, prange, threading_layer


@njit(parallel=True)
def sweep(a, b):
    n = a.shape[0]
    for i in prange(1, n - 1):
        for j in range(1, n - 1):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@njit(parallel=True)
def norm(a):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * a[i, j]
    return s


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    a = np.zeros((n, n))
    a[0, :] = 1.0
    b = a.copy()
    sweep(a, b)  # compiled before the clock starts
    norm(a)
    t = time.perf_counter()
    for k in range(iters):
        sweep(a, b)
        sweep(b, a)
        if k % 10 == 0:
            norm(a)
    dt = time.perf_counter() - t
    print("layer %s threads %d checksum %.12e time %.3f"
          % (threading_layer(), config.NUMBA_NUM_THREADS, norm(a), dt))


if __name__ == "__main__":
    main()
