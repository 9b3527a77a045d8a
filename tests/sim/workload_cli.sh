#!/usr/bin/env bash
# issue 14 items 2-3 from the outside: `andgate sim --workload` end to end (the result JSON valid against
# the shared schema, the workload's fields, more participants than hardware threads), the 004 named runs
# of scripts/sim_experiment.sh, and bad arguments refused with one line and exit 2.
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ANDGATE_PYTHONPATH="$src/python" PYTHONPATH="$src/python"
python3 - "$src/sim/machines/noc64.json" "$out/noc64os.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["os"] = {k: {"value": v, "unit": "ns", "source": "a test value"} for k, v in
           (("futex_wait", 300), ("futex_wake", 200), ("wakeup", 5000), ("context_switch", 3000), ("yield", 400))}
json.dump(d, open(sys.argv[2], "w"))
PY
ag="$build/bin/andgate"
"$ag" sim --machine "$out/noc64os.json" --workload prodcons --algos 'central;hw-subutai' --threads 6,100 \
  --wait block --items 40 --quiet --report "$out/report"
python3 -m andgate_report "$out/report/results.json" --validate
"$ag" sim --machine "$out/noc64os.json" --workload phases --algos central --threads 160 --wait yield --items 5 \
  --work-ns 20000 --cs-ns 1000 --timeslice-us 10 --sched csa --quiet --json "$out/phases.json"
"$ag" sim --machine "$out/noc64os.json" --algos dissemination --threads 130 --wait block --episodes 20 --quiet \
  --json "$out/over.json"
python3 - "$out" <<'PY'
import json, sys
r = lambda f: json.load(open(f"{sys.argv[1]}/{f}"))["results"]
pc = r("report/results.json")
assert [x["status"] for x in pc] == ["ok"] * 4, pc
for x in pc:
    w = x["workload"]
    assert w["name"] == "prodcons" and w["produced"] == w["consumed"] > 0, w
    assert w["calls"]["barrier_wait"]["n"] == x["threads"] * x["episodes"], x
    assert x["oversubscribed"] == (x["threads"] > 64), x
(ph,) = r("phases.json")
assert ph["status"] == "ok" and ph["oversubscribed"] and ph["os"]["sched"] == "csa" and ph["os"]["preemptions"] > 0, ph
assert "workload=phases" in ph["settings"] and "timeslice_ns=10000" in ph["settings"], ph["settings"]
(ov,) = r("over.json")
assert ov["status"] == "ok" and ov["oversubscribed"] and ov["os"]["switches"] > 0, ov
print("1 passed, 0 failed")
PY
# the 004 named runs all at once (scripts/sim_experiment.sh 004), with the test OS costs instead of this host's
ANDGATE="$ag" ANDGATE_OS_FROM="$out/noc64os.json" "$src/scripts/sim_experiment.sh" 004 "$out/exp" > "$out/all.md"
sed -n '/^### 004-prodcons$/,/^### 004-csa$/p' "$out/all.md" > "$out/xi.md"
sed -n '/^### 004-csa$/,/^### Reports/p' "$out/all.md" > "$out/csa.md"
grep -q "^| Allocation | best |" "$out/all.md" || { echo "FAIL: 004's Table III missing"; exit 1; }
for row in "Mutex lock empty" "Mutex lock queued" "Mutex unlock" "Barrier wait (released)" "Condition broadcast" \
           "Condition queued"; do
  grep -q "^| $row | [0-9,]* | [0-9,]* ([0-9]* calls) | [0-9.]* | [0-9,]* | [0-9,]* ([0-9]* calls) | [0-9.]* |$" "$out/xi.md" \
    || { echo "FAIL: Table XI row '$row' missing or incomplete"; cat "$out/xi.md"; exit 1; }
done
[ "$(grep -cE '^\| (andgate:central:line=64|hw:hw-subutai) \| [0-9]+ \| (yes|no) \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|' "$out/csa.md")" -eq 5 ] || { cat "$out/csa.md"; exit 1; }
# and their reports: the workloads' sections and plots, the CSA runs in one document
for f in report-004-fsm/latency.png report-004-prodcons/calls-prodcons.png report-004-csa/calls-phases.png \
         report-004-csa/makespan.png; do
  [ -s "$out/exp/$f" ] || { echo "FAIL: $f not written"; exit 1; }
done
grep -q "<h3>phases</h3>" "$out/exp/report-004-csa/index.html" && grep -q "004 Table XI row" "$out/exp/report-004-prodcons/index.html" \
  || { echo "FAIL: a workload section missing from the 004 reports"; exit 1; }
bad() { # the arguments must be refused with exit 2 and a message containing $1
  local want=$1; shift
  set +e; msg=$("$ag" sim "$@" 2>&1); rc=$?; set -e
  [ $rc -eq 2 ] && [[ "$msg" == *"$want"* ]] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] \
    || { echo "FAIL: andgate sim $* -> rc=$rc: $msg"; exit 1; }
}
os=(--machine "$out/noc64os.json")
bad "--workload: expected one of prodcons|phases" --workload queue
bad "--sched: expected one of rr|csa" --sched fifo
bad "--timeslice-us: expected a number in 0.001..1e+07" --timeslice-us 0
bad "--items: expected an integer in 0..10000000" --items -3
bad "--cs-ns: expected a number in 0..1e+09" --cs-ns x
bad "one producer and at least one consumer" "${os[@]}" --workload prodcons --algos central --wait block --threads 1
bad "expected barrier algorithms (software mutex and condition) or hw-subutai" "${os[@]}" --workload phases --algos hw-harp
bad "expected barrier algorithms (software mutex and condition) or hw-subutai" "${os[@]}" --workload phases --algos all
bad "the software mutex and condition need noc64's os block" --machine noc64 --workload prodcons --algos central
bad "need a wait that gives the CPU away" "${os[@]}" --algos central --threads 65 --wait spin
bad "need a wait that gives the CPU away" "${os[@]}" --algos central --threads 65 --wait backoff
bad "need a wait that gives the CPU away" "${os[@]}" --algos central --threads 65 --wait 'block;hybrid'
bad "noc64 has 64 hardware threads, and more participants need its os.context_switch" --machine noc64 --threads 65
bad "--method epcc: a workload's record has its iterations' durations" "${os[@]}" --workload phases --algos central --method epcc
echo "bad arguments: 14 passed, 0 failed"
