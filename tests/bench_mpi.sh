#!/usr/bin/env bash
# andgate bench --mpi end to end (registered only where CMake found MPI): a tiny grid of 2 ranks x 1 and
# 2 threads, both node modes, both methods, then 4 ranks in nodes of 2; the document validates against
# the schema and holds the expected records, status ok, threads = ranks x threads_per_rank. Then a worker (mpirun) killed at a
# tiny --timeout: a failed record, valid JSON, exit 1, and no rank of it left running. Behaviour only:
# no timing is asserted. Usage: bench_mpi.sh BUILD SRC
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export PYTHONPATH="$src/python"
"$build/bin/andgate" bench --mpi --ranks 2 --threads 1,2 --mpi-node both --episodes 200 --quick --timeout 120 \
  --json "$out/r.json" --report "$out/report" > "$out/log" 2>&1 || { cat "$out/log"; exit 1; }
python3 -m andgate_report "$out/r.json" --validate
python3 - "$out/r.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
got = {(r["method"], r["impl"], r["threads"], r.get("mpi_node")) for r in res}
want = set()
for m in ("latency", "epcc"):
    for tpr in (1, 2):
        for f in ("dissemination", "ibarrier"):
            for node in ("shared", "rank"):
                want.add((m, f"mpi:fused:{f}", 2 * tpr, node))
        want.add((m, "mpi:three-step", 2 * tpr, None))
    want.add((m, "mpi:MPI_Barrier", 2, None))
assert got == want and len(res) == len(want), (sorted(got ^ want), len(res))
for r in res:
    assert r["status"] == "ok", r
    assert r["ranks"] == 2 and r["threads"] == r["ranks"] * r["threads_per_rank"], r
    assert r["median_ns"] > 0 and r["episodes"] > 0, r
    assert r["kind"] == ("andgate" if r["impl"].startswith("mpi:fused:") else "baseline"), r
    if r["impl"].startswith("mpi:fused:"):  # the barrier that ran says how many nodes it had
        assert f"nodes={1 if r['mpi_node'] == 'shared' else 2} " in r["settings"], r
print(f"bench --mpi: {len(res)} records ok")
PY
test -s "$out/report/index.html" && test -s "$out/report/latency.png" && test -s "$out/report/epcc.png"

# a grouping of libandgate-mpi's grammar beyond shared|rank: 4 ranks in nodes of 2 (the fixed-leader path)
"$build/bin/andgate" bench --mpi --ranks 4 --threads 1 --mpi-node shared:ranks=2 --method latency --episodes 200 \
  --quick --timeout 120 --json "$out/k.json" > "$out/klog" 2>&1 || { cat "$out/klog"; exit 1; }
python3 -m andgate_report "$out/k.json" --validate
python3 - "$out/k.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
fused = [r for r in res if r["impl"].startswith("mpi:fused:")]
assert len(fused) == 2 and len(res) == 4, res
for r in fused:
    assert r["status"] == "ok" and r["mpi_node"] == "shared:ranks=2", r
    assert "grouping=shared:ranks=2 nodes=2 " in r["settings"], r
print("bench --mpi --mpi-node shared:ranks=2: 2 nodes of 2 ranks")
PY

# a worker past its time limit: mpirun is stopped (SIGTERM, then SIGKILL), the record says so
rc=0
"$build/bin/andgate" bench --mpi --ranks 2 --threads 1 --method latency --episodes 100000000 --budget-ms 3600000 \
  --timeout 2 --json "$out/f.json" > "$out/flog" 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "a killed worker: exit $rc, want 1"; cat "$out/flog"; exit 1; }
python3 -m andgate_report "$out/f.json" --validate
python3 - "$out/f.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
assert len(res) == 4, len(res)
for r in res:
    assert r["status"] == "failed" and "time limit" in r["error"], r
    assert r["ranks"] == 2 and r["threads_per_rank"] == 1 and r["pinning"] == "none", r
print("bench --mpi --timeout: 4 failed records, valid JSON")
PY
# the ranks go with their mpirun; on a loaded machine that can take a while (liveness, not timing: up
# to 30 s before it counts as a leak)
for _ in $(seq 60); do
  pgrep -f "bench-mpi --impl mpi:.* --episodes 100000000" > /dev/null || break
  sleep 0.5
done
if pgrep -f "bench-mpi --impl mpi:.* --episodes 100000000" > /dev/null; then
  echo "a rank of a killed worker is still running"; pgrep -af bench-mpi; exit 1
fi
echo "1 passed, 0 failed"
