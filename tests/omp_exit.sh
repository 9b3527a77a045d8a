#!/usr/bin/env bash
# A process that ends while its teams wait in barriers, and regions in a constructor and an atexit handler,
# with and without libandgate-preload.so. Usage: omp_exit.sh BINARY SHIM (BINARY: tests/omp_exit.c built
# with gcc or clang). For each way of ending (omp_exit.c) at 2, 3 and 4 threads (4: more than this
# machine's CPUs in CI), bound and unbound: the exit status and the output must be the plain run's. A
# crash, a hang (the timeout's 124) or a lost line of the atexit handler fails.
. "$(dirname "$0")/omp_lib.sh"

ends() { # ends NAME ENV...: as runs (omp_lib.sh), the exit status appended to $tmp/NAME.out
  local rc=0
  runs "$@" || rc=$?
  echo "exit status $rc" >> "$tmp/$1.out"
}

for mode in 0 1 2 3 4; do
  for t in 2 3 4; do
    for bind in false true; do
      ends plain EXIT_MODE=$mode OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind
      ends shim EXIT_MODE=$mode OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind LD_PRELOAD="$shim"
      same shim plain "EXIT_MODE=$mode, $t threads, OMP_PROC_BIND=$bind"
    done
  done
  # the control: each way of ending is seen (its own status; main's line only when main returns)
  want=(0 3 4 5 6) main=0
  grep -q '^main: sum 9900000$' "$tmp/plain.out" && main=1
  if grep -qx "exit status ${want[$mode]}" "$tmp/plain.out" && [ $main = $((mode == 0)) ]; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1)); echo "FAIL: control, EXIT_MODE=$mode:"; sed 's/^/    /' "$tmp/plain.out"
  fi
done
finish
