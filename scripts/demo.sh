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
echo "report: $(pwd)/report/index.html (results.json, results.csv beside it)"
