#!/usr/bin/env bash
# `andgate sim` end to end: every algorithm at a few sizes, the result JSON valid against the shared
# schema and rendered by the same report code as bench.
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bin/andgate" sim --threads 3,16,64 --episodes 30 --json "$out/sim.json"
export PYTHONPATH="$src/python"
python3 -m andgate_report "$out/sim.json" --validate
python3 -m andgate_report "$out/sim.json" --out "$out/report" > /dev/null
python3 - "$out/sim.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "sim" and len(d["results"]) == 11 * 3, len(d["results"])
assert all(r["status"] == "ok" for r in d["results"])
print("1 passed, 0 failed")
PY
