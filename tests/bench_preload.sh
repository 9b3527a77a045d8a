#!/usr/bin/env bash
# `andgate bench --preload apps --quick` end to end, with whatever apps and construct programs are built:
# the JSON validates against the result schema; every built app has its records (bound and unbound for
# the OpenMP apps, unbound for streamcluster), each ok with the same output plain and preloaded; every
# built construct program gives every construct for both bindings; the summary tables are printed and
# the report renders. Then the single-command form, a failing and a differing command, and bad usage.
# Behaviour only: no timing is asserted.
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export PYTHONPATH="$src/python"
andgate=$build/bin/andgate
fail() { echo "FAIL: $*"; cat "$out/log" 2>/dev/null | tail -n 30; echo "0 passed, 1 failed"; exit 1; }

rc=0
"$andgate" bench --preload apps --quick --threads 2 --repeat 1 --json "$out/p.json" --report "$out/report" \
  > "$out/stdout" 2> "$out/log" || rc=$?
python3 -m andgate_report "$out/p.json" --validate > /dev/null || fail "the JSON does not validate"
python3 - "$out/p.json" "$build/bin" <<'PY' || fail "the records are not what the built programs imply"
import json, os, sys
doc, bindir = json.load(open(sys.argv[1])), sys.argv[2]
want = set()
for app in ("cg", "mg", "nbody", "vcode"):
    for cc in ("gcc", "clang"):
        if os.path.isfile(f"{bindir}/{app}-{cc}"):
            want |= {(app, cc, "true"), (app, cc, "false")}
if os.path.isfile(f"{bindir}/streamcluster"):
    want.add(("streamcluster", "cc", "n/a"))
got = {(r["app"], r["compiler"], r["bind"]) for r in doc["apps"]}
assert got == want, (sorted(got), sorted(want))
for r in doc["apps"]:
    assert r["status"] == "ok", r
    assert r["output_identical"] is True, r
    assert r["threads"] == 2 and len(r["plain_s"]) == len(r["preload_s"]) == 1, r
constructs = ("parallel", "parallel-for", "for", "for-dynamic", "parallel-for-dynamic", "barrier", "single",
              "reduction", "doacross")
want = {(k, cc, b) for cc in ("gcc", "clang") if os.path.isfile(f"{bindir}/omp-constructs-{cc}")
        for k in constructs for b in ("true", "false")}
got = {(r["construct"], r["compiler"], r["bind"]) for r in doc["constructs"]}
assert got == want, (sorted(got), sorted(want))
for r in doc["constructs"]:
    assert r["status"] == "ok" and isinstance(r["runtime_ns"], float) and isinstance(r["shim_ns"], float), r
assert doc["apps"] or doc["constructs"], "nothing was measured"
print(f"bench --preload apps --quick: {len(doc['apps'])} app records, {len(doc['constructs'])} construct records")
PY
[ "$rc" -eq 0 ] || fail "andgate bench --preload apps exited $rc"
test -s "$out/report/index.html" && test -s "$out/report/results.json" || fail "no report"
if grep -q '"app"' "$out/p.json"; then
  test -s "$out/report/speedup.png" && grep -q "preloaded s" "$out/stdout" || fail "no speedup plot or apps table"
fi
if grep -q '"construct"' "$out/p.json"; then
  test -s "$out/report/constructs.png" && grep -q "shim ns" "$out/stdout" || fail "no constructs plot or table"
fi

# the single-command form: one app-less record
"$andgate" bench --preload "$build/bin/streamcluster -t 2 -n 3000 -c 500" --repeat 2 --json "$out/s.json" \
  > "$out/stdout" 2> "$out/log" || fail "single command"
python3 -m andgate_report "$out/s.json" --validate > /dev/null || fail "single-command JSON does not validate"
grep -q '"output_identical":true' "$out/s.json" && grep -q "identical" "$out/stdout" || fail "single output"

# a command that fails, one that outlives --timeout, one whose output depends on the shim: exit 1, the
# file valid, the record says why
rc=0; "$andgate" bench --preload 'echo partial; exit 3' --repeat 1 --json "$out/f.json" > /dev/null 2> "$out/log" || rc=$?
[ "$rc" -eq 1 ] && python3 -m andgate_report "$out/f.json" --validate > /dev/null &&
  grep -q '"status":"failed","error":"plain run 1: exit status 3"' "$out/f.json" || fail "failing command (exit $rc)"
rc=0; "$andgate" bench --preload 'echo start; exec sleep 20' --timeout 1 --json "$out/t.json" > /dev/null 2> "$out/log" || rc=$?
[ "$rc" -eq 1 ] && grep -q '"error":"plain run 1: killed after its time limit of 1 s"' "$out/t.json" || fail "time limit (exit $rc)"
rc=0; "$andgate" bench --preload 'echo "$LD_PRELOAD"' --repeat 1 --json "$out/d.json" > /dev/null 2> "$out/log" || rc=$?
[ "$rc" -eq 1 ] && grep -q '"output_identical":false' "$out/d.json" || fail "differing output (exit $rc)"

# bad usage: exit 2 and one line, before anything runs
for args in "apps --repeat -5" "apps --repeat abc" "apps --repeat nan" "apps --repeat 0" "apps --threads 0" \
            "apps --bind maybe" "apps --apps cg,foo" "apps --constructs barrier," "apps --episodes 5" \
            "true --threads 2" "apps --json" "true --timeout 1.5"; do
  rc=0; "$andgate" bench --preload $args > "$out/log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l < "$out/log")" -eq 1 ] || fail "bad usage '--preload $args' gave exit $rc"
done
for cc in gcc clang; do
  prog=$build/bin/omp-constructs-$cc
  [ -x "$prog" ] || continue
  for args in "-r -5" "-r abc" "-c nosuch" "-c barrier,,for" "-x"; do
    rc=0; OMP_NUM_THREADS=2 "$prog" $args > "$out/log" 2>&1 || rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l < "$out/log")" -eq 1 ] || fail "omp-constructs-$cc $args gave exit $rc"
  done
done
echo "1 passed, 0 failed"
