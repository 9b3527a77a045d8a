#!/usr/bin/env bash
# The OpenMP applications in apps/ (cg, mg, nbody, vcode; any compiler): stdout must not depend on the
# thread count (OMP_NUM_THREADS=1, 2, 3, 4: 3 and 4 oversubscribe a 2-CPU machine), on binding
# (2 threads with OMP_PROC_BIND=true) nor on the shim (the same five runs under LD_PRELOAD=SHIM), and
# every run must exit 0 (the apps check their own results where they can: vcode exits 1 when its sort
# differs from a sequential one, cg when the solver breaks down). With a third argument, the same app
# built by another compiler, its stdout at 2 threads must be the same too. Small inputs (-i, chosen
# from the binary's name): each run takes well under a second.
# Usage: app_omp.sh BINARY SHIM [OTHER_BINARY]
set -u
bin=${1:-} shim=${2:-} other=${3:-}
fail() { echo "app_omp: $*"; echo "0 passed, 1 failed"; exit 1; }
[ -x "$bin" ] || fail "no executable '$bin'"
[ -f "$shim" ] || fail "no shared object '$shim'"
[ -z "$other" ] || [ -x "$other" ] || fail "no executable '$other'"
case $(basename "$bin") in
  cg-*)    args="-i 60" ;;
  mg-*)    args="-i 50" ;;
  nbody-*) args="-i 3000" ;;
  vcode-*) args="-i 3" ;;
  *)       fail "unknown application '$bin' (cg-*, mg-*, nbody-*, vcode-*)" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# one_run NAME BINARY [VAR=VALUE...]: the binary with $args under env VAR=VALUE..., stdout to
# $tmp/NAME.out, stderr to $tmp/NAME.err; a nonzero exit (or a hang: 120 s) is a failure
one_run() {
  local name=$1 b=$2 rc
  shift 2
  # shellcheck disable=SC2086
  env "$@" timeout 120 "$b" $args > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $* $b $args exited $rc"; cat "$tmp/$name.err"; bad=1
  fi
}
same() {   # same REF NAME WHAT
  if ! diff -u "$tmp/$1.out" "$tmp/$2.out" > "$tmp/diff"; then
    echo "FAIL: $3 differs from OMP_NUM_THREADS=1 without the shim:"; cat "$tmp/diff"; bad=1
  fi
}

for pre in "" "$shim"; do
  tag=${pre:+pre_}
  what=${pre:+"LD_PRELOAD=$pre "}
  for t in 1 2 3 4; do
    one_run "${tag}t$t" "$bin" OMP_NUM_THREADS=$t ${pre:+"LD_PRELOAD=$pre"}
    same t1 "${tag}t$t" "${what}OMP_NUM_THREADS=$t"
  done
  one_run "${tag}bound" "$bin" OMP_NUM_THREADS=2 OMP_PROC_BIND=true ${pre:+"LD_PRELOAD=$pre"}
  same t1 "${tag}bound" "${what}OMP_NUM_THREADS=2 OMP_PROC_BIND=true"
done
if [ -n "$other" ]; then
  one_run other "$other" OMP_NUM_THREADS=2
  same t1 other "$other at OMP_NUM_THREADS=2"
fi
grep -q '^checksum [0-9a-f]\{16\}$' "$tmp/t1.out" || { echo "FAIL: no checksum line"; cat "$tmp/t1.out"; bad=1; }

if [ $bad -eq 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"; exit 1
