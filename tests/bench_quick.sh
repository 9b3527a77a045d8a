#!/usr/bin/env bash
# A `andgate bench --quick` run end to end: its JSON must validate against the result schema, its CSV
# must have a row per result, and its report must render. Behaviour only: no timing is asserted.
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bin/andgate" bench --quick --json "$out/r.json" --csv "$out/r.csv" --report "$out/report" 2> "$out/log" || {
  cat "$out/log"; exit 1; }
export PYTHONPATH="$src/python"
python3 -m andgate_report "$out/r.json" --validate
python3 - "$out/r.json" "$out/r.csv" <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(doc["results"]) > 0, (len(rows), len(doc["results"]))
kinds = {r["kind"] for r in doc["results"]}
assert "andgate" in kinds, kinds
methods = {r.get("method") for r in doc["results"]}
assert methods == {"latency", "epcc", "jitter"}, methods
assert doc["host"]["c2c_oneway_ns"]["median"] > 0, doc["host"]
print(f"bench --quick: {len(rows)} results, kinds {sorted(kinds)}, c2c {doc['host']['c2c_oneway_ns']}")
PY
test -s "$out/report/index.html" && test -s "$out/report/latency.png"
grep -q "threads" "$out/log"   # progress was shown
# --preload: the application with and without the shim, same output
"$build/bin/andgate" bench --preload "$build/bin/streamcluster -t 2 -n 3000 -c 500" --repeat 1 --json "$out/p.json" \
  > "$out/plog" 2>&1 || { cat "$out/plog"; exit 1; }
grep -q '"output_identical":true' "$out/p.json" || { cat "$out/plog" "$out/p.json"; exit 1; }
echo "1 passed, 0 failed"
