#!/usr/bin/env bash
# The same output with and without the shim, at 2 threads and oversubscribed, and the shim must have
# served the program's barriers (ANDGATE_VERBOSE names the team). Usage: preload_omp.sh BINARY SHIM WHAT
# [RUNTIME] (WHAT: GOMP_barrier for libgomp, __kmpc_barrier for libomp; both served by default. RUNTIME:
# the runtime the team must be named by, when not WHAT's: libomp for gcc's GOMP_barrier linked with libomp).
set -u
bin=$1 shim=$2 what=$3
case $what in GOMP_barrier) runtime=libgomp ;; *) runtime=libomp ;; esac
runtime=${4:-$runtime}
fail=0
for t in 2 4; do
  want=$(OMP_NUM_THREADS=$t "$bin") || { echo "plain run failed"; exit 1; }
  got=$(OMP_NUM_THREADS=$t ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" "$bin" 2> /tmp/po_err.$$) || {
    echo "run with the shim failed"; cat /tmp/po_err.$$; exit 1; }
  if [ "$want" != "$got" ]; then echo "threads $t: '$want' without, '$got' with the shim"; fail=1; fi
  grep -q "^andgate-preload: $runtime team of $t at level 1: " /tmp/po_err.$$ || {
    echo "threads $t: the shim served no $runtime team of $t at level 1 ($what); it said:"; cat /tmp/po_err.$$; fail=1; }
done
rm -f /tmp/po_err.$$
[ $fail = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
