#!/usr/bin/env bash
# `andgate info --measure --out FILE` end to end: the machine description it writes must pass the checks
# every sim/machines/*.json passes (schema + python/tests/machine_rules.py's check_machine), with positive
# measured latencies, a layer per sharing level of the usable CPUs and alpha in [0, 1]. Structure only:
# no timing threshold is asserted. Exit 77 (skipped) without python3, jsonschema or pytest.
set -euo pipefail
build=$1 src=$2
python3 -c 'import jsonschema, pytest' 2>/dev/null || {
  echo "skipped: python3 with jsonschema and pytest needed"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bin/andgate" info --measure --out "$out/sub/host.json" > "$out/log" 2>&1 || { cat "$out/log"; exit 1; }
cat "$out/log"
grep -q "^wrote $out/sub/host.json" "$out/log"
# the command it prints runs as written (a file given with --out is named by its path, not its name)
cmd=$(sed -n "s/^wrote .*: \(andgate sim --machine [^)]*\))$/\1/p" "$out/log")
[ "$cmd" = "andgate sim --machine $out/sub/host.json" ] || { echo "printed command: '$cmd'"; exit 1; }
if [ -x "$build/libexec/andgate/andgate-sim" ]; then   # the sanitizer builds have no simulator
  "$build/bin/"$cmd --algos central --threads 2 --episodes 5 --quiet --json /dev/null
fi
PYTHONPATH="$src/python:$src/python/tests" python3 - "$out/sub/host.json" <<'PY'
import json, sys
from machine_rules import check_machine, schema_errors, layer_of
doc = json.load(open(sys.argv[1]))
errors = schema_errors(doc) + check_machine(doc, "host")
assert not errors, "\n".join(errors)
assert doc["name"] == "host" and doc["clock"]["core"]["value"] > 0
n = int(doc["topology"]["hardware_threads"]["value"])
layers = {ly["id"]: ly["latency"]["value"] for ly in doc["latency_layers"]}
assert all(v > 0 for v in layers.values()), layers
assert all(ly["latency"]["source"].startswith("derived: measured on this machine") for ly in doc["latency_layers"])
alpha = doc["coherence"]["invalidation"]["alpha"]
assert set(alpha) == set(layers) - {"self"}, (alpha, layers)
assert all(0 <= q["value"] <= 1 for q in alpha.values())
assert doc["coherence"]["atomic"]["extra"]["value"] >= 0
seen = {layer_of(doc, a, b) for a in range(n) for b in range(n)} if n <= 64 else set(layers)
assert seen == set(layers), (seen, layers)
print(f"info --measure: {n} threads, layers {layers}, alpha {[q['value'] for q in alpha.values()]}")
PY
# usage errors
if "$build/bin/andgate" info --measure --bogus > /dev/null 2>&1; then echo "bad option accepted"; exit 1; fi
if "$build/bin/andgate" info --measure --out > /dev/null 2>&1; then echo "--out without FILE accepted"; exit 1; fi
echo "1 passed, 0 failed"
