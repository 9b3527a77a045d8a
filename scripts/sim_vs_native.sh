#!/usr/bin/env bash
# The simulator against this machine (docs/results.md, "andgate sim" (a)): measure the host into a
# machine description, simulate every algorithm at 2 threads on it, measure the same algorithms
# natively at 1 and 2 threads, and print both medians with their ratio — as measured, and with the
# native 1-thread median (the harness's clock stamps, the call and the return, which a simulated
# episode does not contain) subtracted. Usage: scripts/sim_vs_native.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sim-vs-native}
mkdir -p "$out"
ag=build/bin/andgate
$ag info --measure --out "$out/host.json"
$ag bench --threads 1,2 --method latency --baselines none --json "$out/native.json" > /dev/null
# the bench's wait policy (auto: at 2 threads on 2 CPUs a paused spin, hybrid's spin phase), not sim's default spin
$ag sim --machine "$out/host.json" --algos sw --threads 2 --wait auto --episodes 2000 --quiet --json "$out/sim.json"
$ag bench --threads 1,2 --method latency --baselines none --json "$out/native2.json" > /dev/null
for pass in native native2; do
  echo "$pass vs sim (native as measured; then less its 1-thread median):"
  PYTHONPATH=python python3 -m andgate_report "$out/$pass.json" --compare "$out/sim.json"
  PYTHONPATH=python python3 -m andgate_report "$out/$pass.json" --compare "$out/sim.json" --floor
done
