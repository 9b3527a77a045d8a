#!/usr/bin/env bash
# make demo: the main job. Measures every andgate algorithm beside the baselines (pthread, GCC and LLVM
# OpenMP, std::barrier, Concurrency Kit) and the core-to-core limit on this machine, writes the report
# to report/ and prints the summary: per thread count, the best andgate barrier, the best baseline,
# the ratio. Then the simulator on one of the papers' machines.
set -euo pipefail
build=${1:-build}
"$build/bin/andgate" info
echo
"$build/bin/andgate" bench --report report --csv report/results.csv "${@:2}"
echo
# an unmodified pthread application, with and without libandgate-preload.so
usable=$("$build/bin/andgate" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpus_usable"])')
for t in 2 $((2 * usable)); do
  "$build/bin/andgate" bench --preload "$build/bin/streamcluster -t $t" --repeat 3 --json "report/preload-t$t.json" 2>/dev/null
done
echo
# the same algorithm sources on a 64-core ARMv8 machine of 002, beside 002's analytical model
"$build/bin/andgate" sim --machine kunpeng920 --threads 4,16,64 --model --report report/sim-kunpeng920
echo
echo "report: $(pwd)/report/index.html (results.json, results.csv, preload-*.json beside it;"
echo "        the simulation of kunpeng920 in report/sim-kunpeng920/index.html)"
