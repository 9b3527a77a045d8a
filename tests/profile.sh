#!/usr/bin/env bash
# libandgate-profile.so (bench/barrier_profile.c) on the OpenMP apps: preloaded alone and in front of
# the shim, at 2 and 3 threads, it must count every barrier the app says it ran (the apps print their
# own count: every one of cg's and mg's barriers passes through GOMP_barrier / __kmpc_barrier), name the
# entry point of the app's runtime and the team size, leave stdout as it is without it, print nothing
# for a team of one, keep at most ANDGATE_PROFILE_EPISODES episodes, and answer a bad value with one
# message and the default; ANDGATE_PROFILE_DUMP writes every episode, each a barrier by
# scripts/profile_phases.py's check. Timings are printed, never judged.
# Usage: profile.sh BIN_DIR PROFILE_SO SHIM_SO
set -u
bin=${1:-} prof=${2:-} shim=${3:-}
fail() { echo "profile: $*"; echo "0 passed, 1 failed"; exit 1; }
[ -d "$bin" ] || fail "no directory '$bin'"
[ -f "$prof" ] || fail "no shared object '$prof'"
[ -f "$shim" ] || fail "no shared object '$shim'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 runs=0 episodes=0
phases=$(cd "$(dirname "$0")/.." && pwd)/scripts/profile_phases.py
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
  episodes=$n
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
    # the dump: a line per episode, every one a barrier (scripts/profile_phases.py checks that no thread
    # returned before the last entry), alone and under the shim; an unwritable file: one message
    for pre in "$prof" "$prof $shim"; do
      check $app $entry 2 "$pre" ANDGATE_PROFILE_DUMP="$tmp/dump"
      [ "$(grep -c -v '^#' "$tmp/dump")" = "$episodes" ] ||
        no "$app, LD_PRELOAD=$pre: the dump has not $episodes episodes"
      python3 "$phases" "$tmp/dump" --period 32 --skip 1 > "$tmp/phases" ||
        { no "$app, LD_PRELOAD=$pre: profile_phases.py failed on the dump"; cat "$tmp/phases"; }
      grep -q "^$entry, 2 threads, $episodes episodes, period 32, skip 1: 0 episodes where" "$tmp/phases" ||
        { no "$app, LD_PRELOAD=$pre: profile_phases.py's summary"; cat "$tmp/phases"; }
    done
    check $app $entry 2 "$prof" ANDGATE_PROFILE_DUMP=/nonexistent/dump
    [ "$(grep -c "ANDGATE_PROFILE_DUMP: cannot write '/nonexistent/dump'" "$tmp/err")" = 1 ] ||
      { no "$app: an unwritable ANDGATE_PROFILE_DUMP: not one message"; cat "$tmp/err"; }
    # a bad value: one message naming it, then the default (every barrier counted)
    check $app $entry 2 "$prof" ANDGATE_PROFILE_EPISODES=lots
    [ "$(grep -c "ANDGATE_PROFILE_EPISODES wants 1\.\.[0-9]*, not 'lots'; using 1048576" "$tmp/err")" = 1 ] ||
      { no "$app: ANDGATE_PROFILE_EPISODES=lots: not one message"; cat "$tmp/err"; }
  done
done
[ $runs -gt 0 ] || fail "no cg-* or mg-* app in $bin"
# profile_phases.py on a made-up dump whose thread 0 returned before thread 1 arrived: found, exit 1
printf '# GOMP_barrier, 2 threads, 2 episodes: x\n0 10 30 20 30\n1 40 45 50 60\n' > "$tmp/early"
python3 "$phases" "$tmp/early" > "$tmp/phases"; rc=$?
[ $rc -eq 1 ] && grep -q ": 1 episodes where a thread returned before" "$tmp/phases" ||
  { no "profile_phases.py on an episode that is no barrier: exit $rc"; cat "$tmp/phases"; }
python3 "$phases" "$tmp/early" --period 0 2> "$tmp/usage"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/usage")" = 1 ] || no "profile_phases.py --period 0: exit $rc, not one line"
grep -h andgate-profile "$tmp/err" | head -1
[ $bad -eq 0 ] || { echo "0 passed, 1 failed"; exit 1; }
echo "$runs runs: 1 passed, 0 failed"
