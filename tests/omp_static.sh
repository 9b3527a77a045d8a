#!/usr/bin/env bash
# Static loop splits under libandgate-preload.so. Usage: omp_static.sh BINARY SHIM
# BINARY is tests/omp_static.c built with gcc or clang. With clang the shim computes libomp's static
# loop starts itself (src/preload/kmp_loop.c); the owner of every iteration and of the last one must be
# libomp's, bound and unbound, and the off switches and KMP_SCHEDULE must leave libomp's own. Control:
# libomp's "greedy" split (KMP_SCHEDULE=static,greedy) gives a different output, so the comparison can
# tell two splits apart.
. "$(dirname "$0")/omp_lib.sh"
run plain
[ "$(wc -l < "$tmp/plain.out")" -gt 1000 ] && pass=$((pass + 1)) || { failed=$((failed + 1)); echo "FAIL: too few loops"; }
for bind in true false; do
  run shim-$bind OMP_PROC_BIND=$bind LD_PRELOAD="$shim"
  same shim-$bind plain "OMP_PROC_BIND=$bind under the shim"
done
run off ANDGATE_OMP_LOOPS=0 LD_PRELOAD="$shim"
same off plain "ANDGATE_OMP_LOOPS=0"
run bad ANDGATE_OMP_LOOPS=2 LD_PRELOAD="$shim"
same bad plain "ANDGATE_OMP_LOOPS=2 (malformed)"
if [ "$(grep -c 'ANDGATE_OMP_LOOPS' "$tmp/bad.err")" = 1 ]; then pass=$((pass + 1)); else
  failed=$((failed + 1)); echo "FAIL: ANDGATE_OMP_LOOPS=2: expected one line naming it, got:"; cat "$tmp/bad.err"; fi
if readelf -d "$bin" 2> /dev/null | grep -q 'NEEDED.*libomp'; then
  run greedy KMP_SCHEDULE=static,greedy
  if cmp -s "$tmp/greedy.out" "$tmp/plain.out"; then
    failed=$((failed + 1)); echo "FAIL: control: libomp's greedy and balanced splits print the same"
  else pass=$((pass + 1)); fi
  run greedy-shim KMP_SCHEDULE=static,greedy LD_PRELOAD="$shim"
  same greedy-shim greedy "KMP_SCHEDULE=static,greedy under the shim (left to libomp)"
fi
finish
