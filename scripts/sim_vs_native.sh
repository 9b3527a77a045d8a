#!/usr/bin/env bash
# The simulator against this machine (docs/results.md, "andgate sim on host"): measure the host into a
# machine description, simulate every algorithm at 2 threads on it, measure the same algorithms
# natively, and print both medians with their ratio. Usage: scripts/sim_vs_native.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sim-vs-native}
mkdir -p "$out"
ag=build/bin/andgate
$ag info --measure --out "$out/host.json"
$ag bench --threads 2 --method latency --baselines none --json "$out/native.json" > /dev/null
# the bench's wait policy (auto: at 2 threads on 2 CPUs a paused spin, hybrid's spin phase), not sim's default spin
$ag sim --machine "$out/host.json" --algos sw --threads 2 --wait auto --episodes 2000 --quiet --json "$out/sim.json"
$ag bench --threads 2 --method latency --baselines none --json "$out/native2.json" > /dev/null
echo "native (before the simulation) vs sim:"
PYTHONPATH=python python3 -m andgate_report "$out/native.json" --compare "$out/sim.json"
echo "native (after the simulation) vs sim:"
PYTHONPATH=python python3 -m andgate_report "$out/native2.json" --compare "$out/sim.json"
