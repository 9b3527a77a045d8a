#!/usr/bin/env bash
# Validation as one command (issue 12 item 4): simulate what the papers state and print every stated
# figure and shape statement beside the simulated value, with the ratio and whether they agree
# (sim/validation/check.py; the statements are sim/validation/paper_figures.json, the shape
# evaluators sim/validation/shapes.py). Virtual time: the numbers do not depend on this machine's load.
# Usage: scripts/sim_validate.sh [OUTDIR]     (about two minutes on 2 CPUs)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sim-validate}
mkdir -p "$out"
sim="build/bin/andgate sim --episodes 200 --quiet"
exec 3>&1 1>/dev/null   # the simulations print their documents; only the tables go to stdout
# 002's three ARMv8 machines: every algorithm at every count from 2 to 34 (spikes need consecutive
# counts) and at 48 and 64, with the wake-up, fan-in and flag-layout variants 002 compares
variants='all;stour:fanin=4,pad=line,wake=global;stour:fanin=4,pad=line,wake=tree;stour:fanin=2;stour:fanin=8'
variants+=';stour:fanin=4,pad=packed;combining:arity=2'
# 002's §IV baselines as §II-B describes them (sim/validation/paper_figures.json "algorithm_sets"):
# TOUR with global wake-up, TOUR and DIS with the published per-processor flag records
variants+=';tournament:wake=global,pad=record;dissemination:pad=record;combining:arity=2,wake=global;dtour:wake=global'
# 002's binaries used exclusive load/store pairs for every atomic: GCC 8.2.1 and clang 10.0.1 (002
# §IV-A) target armv8-a, without LSE, on all three machines (sim/machines/README.md, "Exclusive pairs")
for m in phytium2000 thunderx2 kunpeng920; do
  $sim --machine $m --atomics llsc --algos "$variants" --threads 2-34,48,64 --json "$out/$m.json"
done
# 003's Xeon Phi (hybrid vs dissemination around 60-72 threads), 000's and 001's machines as in
# scripts/sim_paper_machines.sh
$sim --machine xeonphi5110p --algos all --threads 2,4,8,16,30,60,72,96,120,180,240 --json "$out/xeonphi5110p.json"
# 003 §5.3's delay sweep on EPCC: the named run writes $out/003-delay.json (check.py keeps EPCC results
# apart from the latency ones above)
ANDGATE=build/bin/andgate scripts/sim_experiment.sh 003-delay "$out"
# 003 §5.3's tag-directory placement (Fig. 6): central on EPCC at 2-60 threads, one run per seed = per
# allocation, the barrier's lines at one address for every count as in 003's code (check.py keeps these
# apart as xeonphi5110p/epcc/shared-first)
for seed in $(seq 1 16); do
  $sim --machine xeonphi5110p --algos central --method epcc --threads 2-60 --seed "$seed" --layout shared-first \
    --json "$out/xeonphi5110p-placement-$seed.json"
done
$sim --machine knl7210 --algos all --threads 2,4,8,16,32,64,128,256 --json "$out/knl7210.json"
$sim --machine xeon8160x8 --algos all --threads 2,4,8,16,24,48,96,192,384 --json "$out/xeon8160x8.json"
$sim --machine harp-broadwell --algos all --threads 2,4,8,14,28 --json "$out/harp-broadwell.json"
# 001 §V's jittered arrival: Reflex beside the Tile Spin stand-in (scripts/sim_experiment.sh 001-jitter says
# why central with backoff up to 1,024 cycles); check.py keeps these apart as tile64/jitter
$sim --machine tile64 --algos 'hw-reflex;central' --wait 'backoff:max_ns=1463' --method jitter --jitter-us 5 \
  --threads 2,4,8,16,32,64 --json "$out/tile64-jitter.json"
for m in opteron6272x4 tile64 noc64; do
  $sim --machine $m --algos all --threads 2,4,8,16,32,64 --json "$out/$m.json"
done
python3 sim/validation/check.py "$out"/*.json >&3
