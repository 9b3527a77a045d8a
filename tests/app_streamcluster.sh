#!/usr/bin/env bash
# apps/streamcluster: stdout must not depend on the thread count (1, 2, 3, 5 threads: 5 oversubscribes
# a 2-CPU machine) nor on the run (2 threads twice), and every run must see exactly one serial thread
# per barrier episode (the program exits 1 otherwise). With a second argument, a shared object that
# replaces pthread barriers, every case runs again under LD_PRELOAD of it and must print the same.
# Small inputs: each run takes well under a second. Usage: app_streamcluster.sh BINARY [PRELOAD.so]
set -u
bin=$1 preload=${2:-}
if [ ! -x "$bin" ]; then echo "app_streamcluster: no executable '$bin'"; echo "0 passed, 1 failed"; exit 1; fi
if [ -n "$preload" ] && [ ! -f "$preload" ]; then
  echo "app_streamcluster: no shared object '$preload'"; echo "0 passed, 1 failed"; exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# one_run NAME ARGS...: stdout to $tmp/NAME.out, stderr to $tmp/NAME.err; env PRE= sets LD_PRELOAD
one_run() {
  local name=$1; shift
  local rc
  if [ -n "${PRE:-}" ]; then
    LD_PRELOAD=$PRE timeout 120 "$bin" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?
  else
    timeout 120 "$bin" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?
  fi
  if [ $rc -ne 0 ]; then
    echo "FAIL: ${PRE:+LD_PRELOAD=$PRE }$bin $* exited $rc"; cat "$tmp/$name.err"; bad=1
  fi
}
same() {   # same REF NAME WHAT
  if ! diff -u "$tmp/$1.out" "$tmp/$2.out" > "$tmp/diff"; then
    echo "FAIL: $3 differs from run $1:"; cat "$tmp/diff"; bad=1
  fi
}

case_no=0
for args in "-n 6000 -c 300 -k 8 -s 7" "-n 1001 -c 100 -k 5 -d 3 -i 40 -s 3"; do
  case_no=$((case_no + 1))
  c=c$case_no
  # shellcheck disable=SC2086
  {
    PRE= one_run "${c}_t1" $args -t 1
    for t in 2 3 5; do PRE= one_run "${c}_t$t" $args -t $t; same "${c}_t1" "${c}_t$t" "-t $t ($args)"; done
    PRE= one_run "${c}_t2b" $args -t 2; same "${c}_t2" "${c}_t2b" "a second run at -t 2 ($args)"
    if [ -n "$preload" ]; then
      for t in 1 2 3 5; do
        PRE=$preload one_run "${c}_pre_t$t" $args -t $t
        same "${c}_t$t" "${c}_pre_t$t" "LD_PRELOAD=$preload -t $t ($args)"
      done
    fi
  }
  grep -q '^checksum ' "$tmp/${c}_t1.out" || { echo "FAIL: no checksum line ($args)"; cat "$tmp/${c}_t1.out"; bad=1; }
done

if [ $bad -eq 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"; exit 1
