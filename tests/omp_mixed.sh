#!/usr/bin/env bash
# Both OpenMP runtimes in the global scope, libgomp's first (tests/omp_mixed.c): the same output with and
# without the shim at 2-4 threads, bound and unbound, and the shim serves the libomp team (the libgomp team
# of the same size shares its barrier: team.h). Usage:
# omp_mixed.sh BINARY SHIM
. "$(dirname "$0")/omp_lib.sh"
for t in 2 3 4; do
  for bind in true false; do
    run t$t.$bind.alone OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind
    run t$t.$bind.shim OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind ANDGATE_VERBOSE=1 LD_PRELOAD="$shim"
    same t$t.$bind.shim t$t.$bind.alone "$t threads, bound $bind"
    if grep -q "^andgate-preload: libomp team of $t at level 1: " "$tmp/t$t.$bind.shim.err"; then pass=$((pass + 1)); else
      failed=$((failed + 1)); echo "FAIL: $t threads, bound $bind: the libomp team was not served; the shim said:"
      sed 's/^/    /' "$tmp/t$t.$bind.shim.err" | head -8; fi
  done
done
finish
