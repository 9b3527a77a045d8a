#!/usr/bin/env bash
# Dynamically scheduled loops under libandgate-preload.so. Usage: omp_dynamic.sh BINARY SHIM
# BINARY is tests/omp_dynamic.c built with gcc or clang; it checks every iteration ran once and
# lastprivate saw the last one, and exits 1 on a violation. Under the shim every run must be correct,
# bound and unbound, for each OMP_SCHEDULE, and print the same lines as the runtime alone wherever the
# runtime alone was correct. libomp 14 alone loses lastprivate in some nonmonotonic `dynamic` loops
# (its static-steal path; docs/preload.md): those lines are counted, not compared. With both runtimes
# the shim must say (ANDGATE_VERBOSE=1) that it hands out the chunks, and must not with
# ANDGATE_OMP_LOOPS=0 or OMP_CANCELLATION=true.
. "$(dirname "$0")/omp_lib.sh"
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# this test's own run (in place of omp_lib.sh's): an exit status up to ALLOWED_STATUS passes
run() { # run NAME ALLOWED_STATUS ENV...: stdout to $tmp/NAME.out, stderr to $tmp/NAME.err; a hang fails
  local name=$1 allowed=$2; shift 2
  timeout -k 5 120 env "$@" "$bin" > "$tmp/$name.out" 2> "$tmp/$name.err"
  local rc=$?
  if [ $rc -gt "$allowed" ]; then fail "$name ($*): exit status $rc"; grep FAIL "$tmp/$name.out" | head -3; sed 's/^/    /' "$tmp/$name.err" | head -3
  else pass=$((pass + 1)); fi
}
agree() { # agree NAME REF: NAME's lines equal REF's wherever REF's is not a FAIL line
  if paste -d '\n' "$tmp/$2.out" "$tmp/$1.out" | awk 'NR % 2 { ref = $0; next } ref !~ /^FAIL/ && ref != $0 { bad++ } END { exit bad > 0 }' &&
     [ "$(wc -l < "$tmp/$1.out")" = "$(wc -l < "$tmp/$2.out")" ]; then pass=$((pass + 1))
  else fail "$1 differs from the runtime alone on a loop the runtime got right"; fi
}
told() { grep -c 'loops handed out by the shim' "$tmp/$1.err"; }
libomp=0; readelf -d "$bin" 2> /dev/null | grep -q 'NEEDED.*libomp' && libomp=1
for sched in dynamic,4 guided,2 static static,3 auto; do
  s=${sched/,/_}
  run plain-$s 1 OMP_SCHEDULE=$sched
  echo "runtime alone, OMP_SCHEDULE=$sched: $(grep -c '^FAIL' "$tmp/plain-$s.out") loops wrong"
  [ $libomp = 0 ] && ! grep -q '^FAIL' "$tmp/plain-$s.out" && pass=$((pass + 1))
  for bind in true false; do
    run shim-$s-$bind 0 OMP_SCHEDULE=$sched OMP_PROC_BIND=$bind ANDGATE_VERBOSE=1 LD_PRELOAD="$shim"
    agree shim-$s-$bind plain-$s
    if [ "$(told shim-$s-$bind)" != 1 ]; then fail "shim-$s-$bind: the shim did not say it hands out the loops"; fi
  done
done
for off in ANDGATE_OMP_LOOPS=0 OMP_CANCELLATION=true; do
  run off 1 OMP_SCHEDULE=guided,2 ANDGATE_VERBOSE=1 "$off" LD_PRELOAD="$shim"
  if [ "$(told off)" = 0 ]; then pass=$((pass + 1)); else fail "$off: the shim still hands out the loops"; fi
done
finish
