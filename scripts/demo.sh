#!/usr/bin/env bash
# make demo: the main job. Measures every andgate algorithm beside the baselines (pthread, GCC and LLVM
# OpenMP, std::barrier, Concurrency Kit) and the core-to-core limit on this machine, writes the report
# to report/ and prints the summary: per thread count, the best andgate barrier, the best baseline,
# the ratio. Then libandgate-preload.so on unmodified programs (report/preload/), and the simulator on
# one of the papers' machines and on 004's Subutai system (Table XI, CSA).
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
# 004 as a whole system in the simulator: Subutai-HW's FSM (Tables III-IV), producer-consumer with software
# and Subutai primitives (Table XI) and CSA scheduling against round robin, each beside the paper's value
mkdir -p report/sim-004
sim_rc=0
ANDGATE="$build/bin/andgate" ./scripts/sim_experiment.sh 004 report/sim-004 > report/sim-004/tables.md \
  2> report/sim-004/log.txt || { sim_rc=1; echo "scripts/sim_experiment.sh 004 failed: report/sim-004/log.txt"; }
echo "004 Table XI (one producer, five consumers on a modeled 64-core NoC): software primitives and Subutai-HW"
sed -n '/^### 004-prodcons/,/^### 004-csa/p' report/sim-004/tables.md | grep '^|' || true
echo
echo "report: $(pwd)/report/index.html (results.json, results.csv beside it;"
echo "        the shim on unmodified programs in report/preload/index.html, oversubscribed in report/preload-4/;"
echo "        the simulation of kunpeng920 in report/sim-kunpeng920/index.html;"
echo "        004 as a whole system in report/sim-004/tables.md and its report-004-*/ pages)"
[ "$bench_rc" = 0 ] || echo "andgate bench: some measurements failed (report/results.json says which)"
[ "$preload_rc" = 0 ] || exit "$preload_rc"
[ "$sim_rc" = 0 ] || exit "$sim_rc"
exit "$bench_rc"
