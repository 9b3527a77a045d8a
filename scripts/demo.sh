#!/usr/bin/env bash
# make demo: the main job. Measures every andgate algorithm beside the baselines (pthread, GCC and LLVM
# OpenMP, std::barrier, Concurrency Kit) and the core-to-core limit on this machine, writes the report
# to report/ and prints the summary: per thread count, the best andgate barrier, the best baseline,
# the ratio. Then libandgate-preload.so on unmodified programs (report/preload/), and the simulator on
# one of the papers' machines.
set -euo pipefail
build=${1:-build}
"$build/bin/andgate" info
echo
# exit status 1: a measurement failed (its record says why); the demo goes on and reports it at the end
bench_rc=0
"$build/bin/andgate" bench --report report --csv report/results.csv "${@:2}" || bench_rc=$?
[ "$bench_rc" -le 1 ] || exit "$bench_rc"
echo
# unmodified programs with and without libandgate-preload.so: every app (OpenMP with gcc and clang,
# bound and unbound; the pthread streamcluster) and the OpenMP construct overheads at 2 threads; then
# oversubscribed (4 threads on 2 CPUs) with a twentieth of the iterations (--quick), because plain
# libgomp with 4 bound spinning threads on 2 CPUs takes 30 s and more per run of a default-size app.
# A failed or differing configuration is reported and makes the demo's exit status 1, after the rest.
preload_rc=0
start=$SECONDS
"$build/bin/andgate" bench --preload apps --threads 2 --report report/preload || preload_rc=$?
"$build/bin/andgate" bench --preload apps --threads 4 --quick --constructs none --report report/preload-4 ||
  preload_rc=$?
echo "(andgate bench --preload apps: $((SECONDS - start)) s)"
echo
# the same algorithm sources on a 64-core ARMv8 machine of 002, beside 002's analytical model
"$build/bin/andgate" sim --machine kunpeng920 --threads 4,16,64 --model --report report/sim-kunpeng920
echo
echo "report: $(pwd)/report/index.html (results.json, results.csv beside it;"
echo "        the shim on unmodified programs in report/preload/index.html, oversubscribed in report/preload-4/;"
echo "        the simulation of kunpeng920 in report/sim-kunpeng920/index.html)"
[ "$bench_rc" = 0 ] || echo "andgate bench: some measurements failed (report/results.json says which)"
[ "$preload_rc" = 0 ] && exit "$bench_rc"
exit "$preload_rc"
