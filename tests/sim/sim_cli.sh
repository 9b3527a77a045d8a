#!/usr/bin/env bash
# `andgate sim` end to end: every algorithm at a few sizes on a paper machine, the result JSON valid
# against the shared schema, rendered by the same report code as bench (--report); bad arguments refused.
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ANDGATE_PYTHONPATH="$src/python" PYTHONPATH="$src/python"
"$build/bin/andgate" sim --machine phytium2000 --algos sw --threads 3,16,64 --episodes 30 --quiet \
  --report "$out/report"
python3 -m andgate_report "$out/report/results.json" --validate
test -s "$out/report/index.html"
"$build/bin/andgate" sim --machine tile64 --algos 'central;dissemination:ways=2' --threads 5 --episodes 20 \
  --method jitter --late-ns 5000 --quiet --json "$out/jitter.json"
python3 -m andgate_report "$out/jitter.json" --validate
for j in 0 400; do
  "$build/bin/andgate" sim --machine kunpeng920 --algos dissemination --threads 16 --episodes 50 --method epcc \
    --work-ns 1000 --work-jitter-ns $j --quiet --json "$out/epcc$j.json"
  python3 -m andgate_report "$out/epcc$j.json" --validate
done
python3 - "$out/report/results.json" "$out/jitter.json" "$out/epcc0.json" "$out/epcc400.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "sim" and len(d["results"]) == 11 * 3, len(d["results"])
assert all(r["status"] == "ok" for r in d["results"])
assert all(set(r["traffic_per_episode"]) == {"reads_local", "reads_remote", "writes", "invalidations", "rmws"}
           for r in d["results"])
j = json.load(open(sys.argv[2]))
assert [r["method"] for r in j["results"]] == ["jitter", "jitter"]
# one participant is 5 µs late every episode: the others wait that long inside the barrier
assert all(r["cpu_ns_per_episode"] > 4 * 5000 for r in j["results"]), j["results"]
# EPCC: random compute before each arrival adds load imbalance to every episode's overhead
e0, e4 = (json.load(open(f))["results"][0] for f in sys.argv[3:5])
assert e0["method"] == e4["method"] == "epcc" and e4["mean_ns"] > e0["mean_ns"] > 0, (e0, e4)
assert "work_jitter_ns=400" in e4["settings"]
print("1 passed, 0 failed")
PY
bad() { # the arguments must be refused with exit 2 and a message containing $1
  local want=$1; shift
  set +e; msg=$("$build/bin/andgate" sim "$@" 2>&1); rc=$?; set -e
  [ $rc -eq 2 ] && [[ "$msg" == *"$want"* ]] || { echo "FAIL: andgate sim $* -> rc=$rc: $msg"; exit 1; }
}
bad "--schedule: expected one of fixed|random, got 'sometimes'" --schedule sometimes
bad "kunpeng920 has 64 hardware threads" --machine kunpeng920 --threads 65
bad "expected a list of at most 64 participant counts" --threads 2,x
bad "expected a list of at most 64 participant counts" --threads ''
bad "expected a list of at most 64 participant counts" --threads 2,
bad "expected all, sw, hw, or algorithm specs" --algos ';;'
bad "--pin: expected one of cores|compact|scatter" --pin diagonal --algos hw
bad "--work-ns: expected a number in 0..1e+09, got 'inf'" --work-ns inf
bad "with --report the result must go to a file" --report "$out/r2" --json -
bad "--wait: expected one of spin|pause" --wait block
bad "unknown algorithm" --algos 'nosuch' --threads 2
bad "--method: expected one of latency|epcc|jitter" --method throughput
bad "--alpha: expected a number in 0..1" --alpha 1.5
echo "bad arguments: 13 passed, 0 failed"
# a report directory whose name holds a quote and a space: no shell between andgate and python
"$build/bin/andgate" sim --machine tile64 --algos central --threads 2 --episodes 5 --quiet --report "$out/it's here"
test -s "$out/it's here/index.html"
