#!/usr/bin/env bash
# Static loop splits under libandgate-preload.so. Usage: omp_static.sh BINARY SHIM
# BINARY is tests/omp_static.c built with gcc or clang. With clang the shim computes libomp's static
# loop starts itself (src/preload/kmp_loop.c); the owner of every iteration and of the last one must be
# libomp's, bound and unbound, and the off switches and KMP_SCHEDULE must leave libomp's own. Control:
# libomp's "greedy" split (KMP_SCHEDULE=static,greedy) gives a different output, so the comparison can
# tell two splits apart.
set -u
bin=$1 shim=$2
tmp=$(mktemp -d /tmp/omp_static.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 failed=0
unset OMP_SCHEDULE KMP_SCHEDULE KMP_CONSISTENCY_CHECK ANDGATE_PRELOAD ANDGATE_OMP ANDGATE_OMP_LOOPS ANDGATE_VERBOSE
run() { # run NAME ENV...: stdout to $tmp/NAME.out, stderr to $tmp/NAME.err; a hang fails
  local name=$1; shift
  if ! timeout -k 5 120 env "$@" "$bin" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
    failed=$((failed + 1)); echo "FAIL: $name ($*): exit status $?"; sed 's/^/    /' "$tmp/$name.err" | head -5
  fi
}
same() { # same NAME REF WHAT
  if cmp -s "$tmp/$1.out" "$tmp/$2.out"; then pass=$((pass + 1)); else
    failed=$((failed + 1)); echo "FAIL: $3: the split differs from the runtime's own:"
    diff "$tmp/$2.out" "$tmp/$1.out" | head -8 | sed 's/^/    /'; fi
}
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
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
