#!/usr/bin/env bash
# OpenMP runtimes outside the global scope under libandgate-preload.so (src/preload/scope.h). Usage:
# omp_scope.sh BINARY SHIM GOMP.so KMP.so GOMP_LIBOMP.so NONE.so ANON.so
# BINARY is tests/omp_scope.c, which has no OpenMP runtime of its own and opens modules with
# dlopen(RTLD_LOCAL), as Python opens extension modules; the modules are tests/omp_scope_mod.c built with
# gcc (libgomp), clang (libomp), gcc's code linked with libomp (libomp's GOMP layer), and one calling
# GOMP_barrier with no runtime at all. Every set of modules, each on its own runtime, in turn, with
# RTLD_NOW and RTLD_LAZY, 1-4 threads, bound and unbound: the same checked sums as without the shim. The
# first runtime of each side is served (ANDGATE_VERBOSE says which); a module with no runtime gets one
# line and an abort instead of a crash. BINARY_direct is BINARY linked with GOMP_LIBOMP.so. ANON.so is
# GOMP.so with its phase barriers called from an anonymous mapping (x86-64; elsewhere it is GOMP.so).
. "$(dirname "$0")/omp_lib.sh"
gomp=$3 kmp=$4 gomp_libomp=$5 none=$6 anon=$7
runm() { # runm NAME ENV... -- ARGS...: like omp_lib.sh's run, with the binary's arguments
  local name=$1 rc=0 envs=(); shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  timeout -k 5 120 env "${envs[@]}" "$bin" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" || rc=$?
  echo $rc > "$tmp/$name.rc"
  if [ $rc != 0 ]; then
    failed=$((failed + 1)); echo "FAIL: $name (${envs[*]} $*): exit status $rc"; sed 's/^/    /' "$tmp/$name.err" | head -5
  fi
}
expect() { # expect NAME PATTERN WHAT: NAME's stderr has a line matching PATTERN
  if grep -Eq "$2" "$tmp/$1.err"; then pass=$((pass + 1)); else
    failed=$((failed + 1)); echo "FAIL: $3"; sed 's/^/    /' "$tmp/$1.err" | head -8; fi
}

sets=("$gomp" "$kmp" "$gomp_libomp" "$gomp $kmp" "$kmp $gomp" "$gomp $gomp_libomp" "$gomp_libomp $gomp"
      "$kmp $gomp_libomp" "$gomp_libomp $kmp" "$gomp $kmp $gomp_libomp")
for i in "${!sets[@]}"; do
  for t in 1 2 3 4; do
    for bind in true false; do
      for mode in now lazy; do
        flag=(); [ $mode = lazy ] && flag=(-lazy)
        n=set$i.t$t.$bind.$mode
        # shellcheck disable=SC2086 # the set is a list of paths
        runm $n.alone OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind -- "${flag[@]}" ${sets[$i]}
        # shellcheck disable=SC2086
        runm $n.shim OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind LD_PRELOAD="$shim" -- "${flag[@]}" ${sets[$i]}
        same $n.shim $n.alone "modules ${sets[$i]}, $t threads, bound $bind, $mode"
      done
    done
  done
done

# which runtime each side serves: the first one called (GOMP_*), the libomp that asked for the OMPT tool
runm served OMP_NUM_THREADS=2 ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" -- "$gomp" "$kmp"
expect served 'GOMP_\*: the runtime .*libgomp[^ ]*, outside the global scope, is served' \
  "the GOMP side did not serve the first module's libgomp"
expect served '__kmpc_\*: the runtime .*libomp[^ ]*, outside the global scope, is served' \
  "the __kmpc side did not serve the second module's libomp"
# (one barrier per master thread, level and size serves both runtimes' teams, made by the first: team.h)
expect served 'libgomp team of 2' "no team was served"

# gcc's code on libomp's GOMP layer, linked (the global scope): a region whose tasks made it take libomp's
# barriers hung when kmp.c's OMPT callbacks kept books on the same team as gomp.c (gomp.h, ag_gomp_starting)
for t in 2 3 4; do
  for bind in true false; do
    bin=${bin}_direct runm direct.t$t.$bind.alone OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind --
    bin=${bin}_direct runm direct.t$t.$bind.shim OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind LD_PRELOAD="$shim" --
    same direct.t$t.$bind.shim direct.t$t.$bind.alone "gcc's code linked with libomp, $t threads, bound $bind"
  done
done

# barriers called from code in no loaded object (JIT code; every call of a function a uretprobe probes
# returns to the kernel's trampoline): taken for the served runtime's, the same sums (the shim aborted)
for t in 2 3; do
  for mode in now lazy; do
    flag=(); [ $mode = lazy ] && flag=(-lazy)
    runm anon.t$t.$mode.alone OMP_NUM_THREADS=$t -- "${flag[@]}" "$anon"
    runm anon.t$t.$mode.shim OMP_NUM_THREADS=$t LD_PRELOAD="$shim" -- "${flag[@]}" "$anon"
    same anon.t$t.$mode.shim anon.t$t.$mode.alone "barriers called from an anonymous mapping, $t threads, $mode"
    runm anon.t$t.$mode.two OMP_NUM_THREADS=$t LD_PRELOAD="$shim" -- "${flag[@]}" "$gomp" "$anon"
  done
done
runm anon.verbose OMP_NUM_THREADS=2 ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" -- "$anon"
if [ "$(uname -m)" = x86_64 ]; then
  expect anon.verbose 'GOMP_barrier called from 0x[0-9a-f]+, outside every loaded object .*taken for the served runtime' \
    "a call from an anonymous mapping was not taken for the served runtime's"
fi

# a module calling an entry point with no runtime in its scope: one line, and an abort (without the shim
# the dynamic linker stops it: "symbol lookup error")
rc=0
OMP_NUM_THREADS=2 LD_PRELOAD="$shim" timeout -k 5 60 "$bin" -lazy "$none" > "$tmp/none.out" 2> "$tmp/none.err" || rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q 'andgate-preload: GOMP_barrier called from .*, which has no OpenMP runtime defining it' "$tmp/none.err"; then
  pass=$((pass + 1)); else
  failed=$((failed + 1)); echo "FAIL: a module with no runtime: exit status $rc"; sed 's/^/    /' "$tmp/none.err" | head -4; fi
finish
