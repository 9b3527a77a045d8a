#!/usr/bin/env bash
# The papers' machines in the simulator (docs/results.md, "andgate sim on the papers' machines"): every
# algorithm and every device the machine has, latency against participant count, rendered by the report
# code; the latency plot copied to docs/img/sim-<machine>.png (and, where the machine has a hardware
# barrier, the device-vs-software plot to docs/img/sim-hw-<machine>.png); the papers' own figures beside the results
# (sim/validation/check.py). Virtual time: the numbers do not depend on this machine's load.
# Usage: scripts/sim_paper_machines.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sim-paper}
mkdir -p "$out" docs/img
export ANDGATE_PYTHONPATH=$PWD/python PYTHONPATH=$PWD/python
for m in phytium2000 thunderx2 kunpeng920 knl7210 xeon8160x8 opteron6272x4 harp-broadwell tile64 noc64 xeonphi5110p; do
  case $m in
    knl7210) t=2,4,8,16,32,64,128,256 ;;
    xeon8160x8) t=2,4,8,16,24,48,96,192,384 ;;
    xeonphi5110p) t=2,4,8,16,30,60,120,240 ;;
    harp-broadwell) t=2,4,8,14,28 ;;
    *) t=2,4,8,16,32,64 ;;
  esac
  build/bin/andgate sim --machine $m --algos all --threads $t --episodes 300 --quiet --report "$out/$m" 2> /dev/null
  cp "$out/$m/latency.png" "docs/img/sim-$m.png"
  # the machine's hardware barriers against the best andgate algorithm (when it has a device)
  if [ -f "$out/$m/hw.png" ]; then cp "$out/$m/hw.png" "docs/img/sim-hw-$m.png"; fi
  echo "### $m"
  echo
  echo "\`andgate sim --machine $m --algos all --threads $t --episodes 300\` — median ns, last arrival to last departure"
  echo
  python3 -m andgate_report "$out/$m/results.json" --markdown
  echo
done
echo "### The papers' figures beside the simulation"
echo
python3 sim/validation/check.py "$out"/*/results.json
