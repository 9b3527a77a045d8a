#!/usr/bin/env bash
# libandgate-profile.so (bench/barrier_profile.c) on the OpenMP apps: preloaded alone and in front of
# the shim, at 2 and 3 threads, it must count every barrier the app says it ran (the apps print their
# own count: every one of cg's and mg's barriers passes through GOMP_barrier / __kmpc_barrier), name the
# entry point of the app's runtime and the team size, leave stdout as it is without it, print nothing
# for a team of one, keep at most ANDGATE_PROFILE_EPISODES episodes, and answer a bad value with one
# message and the default. Timings are printed, never judged.
# Usage: profile.sh BIN_DIR PROFILE_SO SHIM_SO
set -u
bin=${1:-} prof=${2:-} shim=${3:-}
fail() { echo "profile: $*"; echo "0 passed, 1 failed"; exit 1; }
[ -d "$bin" ] || fail "no directory '$bin'"
[ -f "$prof" ] || fail "no shared object '$prof'"
[ -f "$shim" ] || fail "no shared object '$shim'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 runs=0
no() { echo "FAIL: $*"; bad=1; }

# check APP ENTRY THREADS PRELOAD [VAR=VALUE...]: one run of APP -i 40 under the profiler
check() {
  local app=$1 entry=$2 t=$3 pre=$4 rc n
  shift 4
  env "$@" OMP_NUM_THREADS="$t" LD_PRELOAD="$pre" timeout 120 "$bin/$app" -i 40 > "$tmp/out" 2> "$tmp/err"; rc=$?
  runs=$((runs + 1))
  [ $rc -eq 0 ] || { no "$app, $t threads, LD_PRELOAD=$pre $*: exit $rc"; cat "$tmp/err"; return; }
  cmp -s "$tmp/out" "$tmp/$app.ref" || no "$app, $t threads, LD_PRELOAD=$pre: stdout differs from the app alone"
  n=$(sed -n 's/^barriers \([0-9]*\) .*/\1/p' "$tmp/err")
  [ -n "$n" ] || { no "$app printed no barrier count"; return; }
  [ -z "${want:-}" ] || n=$want
  if ! grep -q "^andgate-profile: $entry, $t threads, $n episodes over [0-9.]* s: arrival spread [0-9]* ns" "$tmp/err"; then
    no "$app, $t threads, LD_PRELOAD=$pre $*: no '$entry, $t threads, $n episodes' line:"; cat "$tmp/err"
  fi
}

for cc in gcc clang; do
  entry=GOMP_barrier
  [ $cc = clang ] && entry=__kmpc_barrier
  for app in cg-$cc mg-$cc; do
    [ -x "$bin/$app" ] || continue
    OMP_NUM_THREADS=1 "$bin/$app" -i 40 > "$tmp/$app.ref" 2>/dev/null || fail "$app alone failed"
    for t in 2 3; do
      check $app $entry $t "$prof"
      check $app $entry $t "$prof $shim"
    done
    want=100 check $app $entry 2 "$prof $shim" ANDGATE_PROFILE_EPISODES=100
    # a team of one: no line
    OMP_NUM_THREADS=1 LD_PRELOAD="$prof" "$bin/$app" -i 40 > /dev/null 2> "$tmp/err1" || no "$app, 1 thread: exit $?"
    ! grep -q andgate-profile "$tmp/err1" || { no "$app, 1 thread: a profile line"; cat "$tmp/err1"; }
    # a bad value: one message naming it, then the default (every barrier counted)
    check $app $entry 2 "$prof" ANDGATE_PROFILE_EPISODES=lots
    [ "$(grep -c "ANDGATE_PROFILE_EPISODES wants 1\.\.[0-9]*, not 'lots'; using 1048576" "$tmp/err")" = 1 ] ||
      { no "$app: ANDGATE_PROFILE_EPISODES=lots: not one message"; cat "$tmp/err"; }
  done
done
[ $runs -gt 0 ] || fail "no cg-* or mg-* app in $bin"
grep -h andgate-profile "$tmp/err" | head -1
[ $bad -eq 0 ] || { echo "0 passed, 1 failed"; exit 1; }
echo "$runs runs: 1 passed, 0 failed"
