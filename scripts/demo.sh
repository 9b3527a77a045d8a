#!/usr/bin/env bash
# make demo: the main job. Measures every andgate algorithm beside the baselines (pthread, GCC and LLVM
# OpenMP, std::barrier, Concurrency Kit) and the core-to-core limit on this machine, writes the report
# to report/ and prints the summary: per thread count, the best andgate barrier, the best baseline,
# the ratio.
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
echo "report: $(pwd)/report/index.html (results.json, results.csv, preload-*.json beside it)"
