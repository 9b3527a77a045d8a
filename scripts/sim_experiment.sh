#!/usr/bin/env bash
# The papers' experiments as named runs (issue 12 item 3): each NAME runs the simulations of one
# experiment a paper reports and prints them as Markdown tables (median ns per participant count, the
# report code's --markdown), with what the paper says beside them. Virtual time: the numbers do not
# depend on this machine's load. docs/results.md records the outcomes.
# Usage: scripts/sim_experiment.sh NAME [OUTDIR]      scripts/sim_experiment.sh list
# 004 runs 004-fsm, 004-prodcons and 004-csa in one go (one set of OS costs for both workload runs) and
# renders each of their result files as a report (python/andgate_report: tables and plots) in OUTDIR.
# 004-*: the software primitives need OS costs no paper gives for noc64: this host's, measured by
# `andgate info --measure` (or the os block of the machine file in ANDGATE_OS_FROM), grafted onto noc64.
set -euo pipefail
cd "$(dirname "$0")/.."
names="002-wakeup 002-fanin 003-hybrid 003-streaming 003-delay 003-placement 001-jitter 000-harp 004-fsm 004-prodcons 004-csa 004"
name=${1:-}
out=${2:-build/sim-experiment}
export PYTHONPATH=$PWD/python
ag=${ANDGATE:-build/bin/andgate}   # the andgate CLI to run (tests pass their build's)
fsm_table=$(dirname "$ag")/../libexec/andgate/andgate-subutai-table   # 004's Tables III-IV beside the FSM
sim() { "$ag" sim --episodes 200 --quiet "$@"; }
table() { python3 -m andgate_report "$1" --markdown --method "${2:-latency}"; echo; }  # median ns
case $name in
  list|"")
    echo "named runs: $names"; [ -n "$name" ] || exit 2; exit 0 ;;
esac
mkdir -p "$out"
# noc64 with an os block: ANDGATE_OS_FROM's (a machine file), else this host's measured now
noc_with_os() {
  local os=${ANDGATE_OS_FROM:-$1/host.json}
  [ -n "${ANDGATE_OS_FROM:-}" ] || "$ag" info --measure --out "$os" > /dev/null
  python3 - "$os" sim/machines/noc64.json "$1/noc64-os.json" <<'PY'
import json, sys
osd = json.load(open(sys.argv[1]))["os"]
m = json.load(open(sys.argv[2]))
m["name"], m["os"] = "noc64-os", osd
json.dump(m, open(sys.argv[3], "w"), indent=1)
print("OS costs (ns):", ", ".join(f"{k} {v['value']:,.0f}" for k, v in osd.items()), "\n")
PY
}
case $name in
  002-wakeup)
    echo "002 §V-C, Fig. 12: global vs binary-tree vs NUMA-aware wake-up after stour's arrival (fan-in 4,"
    echo "padded). Paper: the tree is best on Phytium 2000+ and ThunderX2, global on Kunpeng920; equal below"
    echo "16 / 8 / 16 threads."; echo
    for m in phytium2000 thunderx2 kunpeng920; do
      echo "#### $m"; echo
      sim --machine $m --algos 'stour:wake=global;stour:wake=tree;stour:wake=numa' --threads 4,8,16,32,64 \
        --json "$out/$name-$m.json" > /dev/null
      table "$out/$name-$m.json"
    done ;;
  002-fanin)
    echo "002 §V-B, Fig. 10-11: stour's fan-in and flag layout at 64 threads. Paper: fan-in 4 with padded"
    echo "flags is fastest on all three machines."; echo
    for m in phytium2000 thunderx2 kunpeng920; do
      echo "#### $m"; echo
      sim --machine $m --algos 'stour:fanin=2;stour:fanin=4;stour:fanin=8;stour:fanin=16;stour:fanin=4,pad=packed' \
        --threads 16,32,64 --json "$out/$name-$m.json" > /dev/null
      table "$out/$name-$m.json"
    done ;;
  003-hybrid)
    echo "003 §5.2, Fig. 3: the hybrid barrier (a counter per core, dissemination across) against"
    echo "dissemination on the Xeon Phi 5110P. Paper: similar up to 60 threads, hybrid clearly lower above 72."; echo
    sim --machine xeonphi5110p --algos 'hybrid;dissemination;stour;central' --threads 2,8,16,30,60,72,120,180,240 \
      --json "$out/$name.json" > /dev/null
    table "$out/$name.json" ;;
  003-streaming)
    echo "003 §5.3: globally ordered streaming stores (no read for ownership) against ordinary stores,"
    echo "EPCC overhead on the Xeon Phi 5110P. Paper: 5% less overhead on average for the top barriers."; echo
    for st in rfo streaming; do
      sim --machine xeonphi5110p --algos 'hybrid;dissemination;stour;tournament;combining;central' \
        --threads 60,120,240 --method epcc --stores $st --json "$out/$name-$st.json" > /dev/null
    done
    python3 - "$out/$name-rfo.json" "$out/$name-streaming.json" <<'PY'
import json, math, sys
a, b = (json.load(open(f))["results"] for f in sys.argv[1:3])
print("| impl | threads | ordinary stores, ns | streaming stores, ns | streaming / ordinary |")
print("|---|---:|---:|---:|---:|")
q = []
for x, y in zip(a, b):
    q.append(y["mean_ns"] / x["mean_ns"])
    print(f"| {x['impl']} | {x['threads']} | {x['mean_ns']:,.0f} | {y['mean_ns']:,.0f} | {q[-1]:.3f} |")
print(f"\ngeometric mean streaming / ordinary: {math.exp(sum(map(math.log, q)) / len(q)):.3f}")
PY
    ;;
  003-delay)
    echo "003 §2, §4 'Busy-Waiting Amortization', §5.3 'Sizing the Delay for Spinning': the delay instruction"
    echo "(_mm_delay_32, which halts a thread's fetch and issue) in every waiting loop, swept on EPCC on the Xeon"
    echo "Phi 5110P. Paper: 0 to 128 cycles in steps of 8; 64 cycles best; above 128 cycles performance degrades"
    echo "(too much latency for waiting threads). Simulated: --wait pause:delay_ns = cycles / the machine's clock"
    echo "(0 cycles: spin), 8 to 232 threads in steps of 8 (003 §5.2), EPCC overhead; the geomean over the"
    echo "counts (003 §5.2) per algorithm, and in brackets relative to that algorithm's best delay."; echo
    xphi=sim/machines/xeonphi5110p.json
    sim --machine xeonphi5110p --algos 'hybrid;dissemination;stour;tournament;combining;central' \
      --threads "$(seq -s, 8 8 232)" --method epcc \
      --wait "$(python3 sim/validation/delay_sweep.py waits $xphi 0,16,32,64,128,256,512)" --json "$out/$name.json" > /dev/null
    python3 sim/validation/delay_sweep.py table $xphi "$out/$name.json" ;;
  003-placement)
    echo "003 §5.3 'Effects of the Ring Interconnect', Fig. 6: the centralized sense-reversing barrier on EPCC"
    echo "for 2 to 60 threads on the Xeon Phi 5110P, whose lines' tag directories an address hash picks. Paper:"
    echo "little variability inside one allocation, much between allocations, one allocation's curve S-shaped"
    echo "(Fig. 6c), linear on average when re-launched for every iteration (Fig. 6d). Simulated: one run per"
    echo "seed (the seed places every line's home and directory slice: one allocation), 16 seeds; first with"
    echo "the barrier's lines at one address for every count as 003's barrier kept them (--layout"
    echo "shared-first), then in andgate's own layout, where they follow one line per participant."; echo
    for layout in shared-first andgate; do
      for seed in $(seq 1 16); do
        sim --machine xeonphi5110p --algos central --method epcc --threads 2-60 --seed "$seed" \
          --layout "$layout" --json "$out/$name-$layout-$seed.json" > /dev/null
      done
      echo "#### --layout $layout"; echo
      python3 sim/validation/placement.py table "$out/$name-$layout"-*.json; echo
    done ;;
  001-jitter)
    echo "001 §V, Fig. 8: one thread's arrival jittered, the Reflex barrier against software barriers on"
    echo "TILE64 (release latency after the late arrival). Paper: Reflex and the Tile Spin Barrier both good"
    echo "up to 16 cores, Tile Spin degrading above. 001 says only that Tile Spin's waiters busy-wait; Tilera's"
    echo "library (tmc_spin_barrier_wait) counts arrivals in one word and its waiters poll that word with"
    echo "bounded exponential backoff, capped at 1,024 cycles (Tilera's delay_backoff, Linux arch/tile) ="
    echo "1,463 ns at TILE64's 700 MHz: the Tile Spin stand-in is central with --wait backoff:max_ns=1463"
    echo "(docs/results.md says what differs). Then central and dissemination spinning, beside Reflex."; echo
    sim --machine tile64 --algos 'central' --wait 'backoff:max_ns=1463' --threads 2,4,8,16,32,64 --method jitter \
      --jitter-us 5 --json "$out/$name-tilespin.json" > /dev/null
    sim --machine tile64 --algos 'hw-reflex;central;dissemination' --threads 2,4,8,16,32,64 --method jitter \
      --jitter-us 5 --json "$out/$name.json" > /dev/null
    echo "#### Tile Spin (central, backoff up to 1,024 cycles)"; echo
    table "$out/$name-tilespin.json" jitter
    echo "#### Reflex and spinning software barriers"; echo
    table "$out/$name.json" jitter ;;
  000-harp)
    echo "000 §3.3, Fig. 6-7: the HARP barrier as built (hw-harp-prototype: CPU<->AFU over a PCIe-class path,"
    echo "a published PCIe latency) and projected (hw-harp: on par with the LLC) against the counting barrier,"
    echo "the tournament and OMP's central counter on HARP's Broadwell. Paper: the prototype is swamped by"
    echo "3000+ cycles of AFU communication and beats neither counting nor OMP significantly; the projection"
    echo "is at least 3x faster than software."; echo
    sim --machine harp-broadwell --algos 'hw-harp-prototype;hw-harp;central;counting;tournament;dissemination' \
      --threads 2,4,8,14,28 --json "$out/$name.json" > /dev/null
    table "$out/$name.json" ;;
  004-fsm)
    echo "004 §V-B, Tables III-IV: every Subutai-HW state's best and worst response time and packet injection"
    echo "beside the FSM model (sim/hw/subutai_fsm.c) at noc64's devices.subutai_ni (Table IV's values). Then the"
    echo "hw-subutai barrier device, served by that FSM, with the NoC around it (no paper figure: 004 reports the"
    echo "FSM's latencies, and Table XI's 1183 ns includes the OS path, which is not modeled)."; echo
    "$fsm_table" noc64
    echo; echo "#### hw-subutai on noc64 (release latency: last arrival to last departure)"; echo
    sim --machine noc64 --algos 'hw-subutai;dissemination;hybrid' --threads 2,4,8,16,32,64 --json "$out/$name.json" > /dev/null
    table "$out/$name.json" ;;
  004-prodcons)
    echo "004 §VIII-E, Table XI: one producer and five consumers (6 threads; 004 gives no item count: 100"
    echo "assumed), average time per call. SW: glibc's futex mutex and condition, the central counting barrier"
    echo "sleeping (--wait block); Subutai: hw-subutai's FSM serves all three. noc64 with this host's OS costs."; echo
    noc_with_os "$out"
    sim --machine "$out/noc64-os.json" --workload prodcons --items 100 --threads 6 --algos 'central;hw-subutai' \
      --wait block --json "$out/$name.json" > /dev/null
    python3 scripts/sim_004_tables.py "$out/$name.json" ;;
  004-csa)
    echo "004 §VII, Fig. 11, Fig. 13, Table VII: the critical-section-aware policy (CSA) against round robin"
    echo "(1 ms slices) with the phase loop oversubscribed x1, x4, x8 (004's Bodytrack x1/x4/x8 on 64 cores)."
    echo "Paper: CSA keeps critical-section time near the x1 case (Fig. 11); Bodytrack sets gain < 1.01x in"
    echo "execution time, Streamcluster sets the most (Fig. 13); CSALimit ended ~10% / 8% of CSA sections"
    echo "(Table VII). Assumed: 1-2 ms of compute per phase, 3 us critical sections (004 Fig. 10's mode), 10 phases."; echo
    noc_with_os "$out"
    for sch in rr csa; do
      sim --machine "$out/noc64-os.json" --workload phases --items 10 --work-ns 1000000 --work-jitter-ns 1000000 \
        --cs-ns 3000 --threads 64,256,512 --algos central --wait block --sched $sch --json "$out/$name-sw-$sch.json" > /dev/null
      sim --machine "$out/noc64-os.json" --workload phases --items 10 --work-ns 1000000 --work-jitter-ns 1000000 \
        --cs-ns 3000 --threads 64,122 --algos hw-subutai --sched $sch --json "$out/$name-hw-$sch.json" > /dev/null
    done
    python3 scripts/sim_004_tables.py --csa "$out/$name-sw-rr.json" "$out/$name-sw-csa.json" "$out/$name-hw-rr.json" \
      "$out/$name-hw-csa.json" ;;
  004)
    echo "004 as a whole: Tables III-IV (004-fsm), Table XI (004-prodcons), CSA against RR (004-csa)."; echo
    for run in 004-fsm 004-prodcons 004-csa; do
      echo "### $run"; echo
      # the CSA run reuses the OS costs the prodcons run measured: both tables rest on the same host figures
      [ "$run" = 004-csa ] && [ -z "${ANDGATE_OS_FROM:-}" ] && export ANDGATE_OS_FROM=$out/host.json
      "$0" "$run" "$out"; echo
    done
    # the four CSA runs as one document, so that one report sets RR beside CSA (makespan per policy)
    python3 - "$out"/004-csa-{sw-rr,sw-csa,hw-rr,hw-csa}.json "$out/004-csa.json" <<'PY'
import json, sys
docs = [json.load(open(f)) for f in sys.argv[1:-1]]
docs[0]["command"] = " ; ".join(d["command"] for d in docs)
docs[0]["results"] = [r for d in docs for r in d["results"]]
json.dump(docs[0], open(sys.argv[-1], "w"), indent=1)
PY
    echo "### Reports (tables and plots)"; echo
    for f in 004-fsm 004-prodcons 004-csa; do
      python3 -m andgate_report "$out/$f.json" --out "$out/report-$f"
      echo "- $out/report-$f/index.html"
    done ;;
  *)
    echo "sim_experiment.sh: unknown run '$name'; expected one of: $names" >&2; exit 2 ;;
esac
