#!/usr/bin/env python3
"""The tables of scripts/sim_experiment.sh 004-prodcons and 004-csa (issue 14): simulated figures beside
004's (seed 004_bffc6c40a88a61a2).

  sim_004_tables.py RESULT.json                       Table XI: every row, SW and Subutai, paper vs sim
  sim_004_tables.py --csa SW-RR SW-CSA HW-RR HW-CSA   CSA against RR in 004's terms (Fig. 11, Fig. 13, Table VII)
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from andgate_report.paper004 import TABLE_XI  # noqa: E402  (row, the record's call, SW ns, Subutai ns)


def results(path):
    return json.load(open(path))["results"]


def table_xi(path):
    recs = {("hw" if r["kind"] == "hw" else "sw"): r for r in results(path) if r["status"] == "ok"}
    print("| Table XI row | paper SW ns | sim SW ns | sim / paper | paper Subutai ns | sim Subutai ns | sim / paper |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row, call, sw, hw in TABLE_XI:
        cells = []
        for kind, paper in (("sw", sw), ("hw", hw)):
            c = recs[kind]["workload"]["calls"][call] if kind in recs else {"n": 0}
            sim = c["mean_ns"] if c["n"] else None
            cells += [f"{paper:,}", f"{sim:,.0f} ({c['n']} calls)" if sim is not None else "-",
                      f"{sim / paper:.3f}" if sim is not None else "-"]
        print(f"| {row} | " + " | ".join(cells) + " |")
    for kind in ("sw", "hw"):
        if kind in recs:
            w = recs[kind]["workload"]
            print(f"\n{recs[kind]['impl']}: {w['produced']} items produced, {w['consumed']} consumed, "
                  f"run {w['makespan_ns'] / 1e3:,.1f} us")


def csa(sw_rr, sw_csa, hw_rr, hw_csa):
    print("| primitives | threads | oversubscribed | RR run ms | CSA run ms | RR / CSA | RR CS ms | CSA CS ms |"
          " CS us per section, RR / CSA | CSA sections | past CSALimit | longest wait for a CPU, RR / CSA ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    per = lambda w: w["cs_ns"] / 1e3 / max(1, w["calls"]["lock_empty"]["n"] + w["calls"]["lock_queued"]["n"])
    for a, b in ((sw_rr, sw_csa), (hw_rr, hw_csa)):
        for x, y in zip(results(a), results(b)):
            if x["status"] != "ok" or y["status"] != "ok":
                print(f"| {x['impl']} | {x['threads']} | failed: {x.get('error') or y.get('error')} |")
                continue
            wx, wy, oy = x["workload"], y["workload"], y["os"]
            print(f"| {x['impl']} | {x['threads']} | {'yes' if x['oversubscribed'] else 'no'} | "
                  f"{wx['makespan_ns'] / 1e6:,.2f} | {wy['makespan_ns'] / 1e6:,.2f} | "
                  f"{wx['makespan_ns'] / wy['makespan_ns']:.3f} | {wx['cs_ns'] / 1e6:,.2f} | {wy['cs_ns'] / 1e6:,.2f} | "
                  f"{per(wx):.2f} / {per(wy):.2f} | "
                  f"{oy['csa_grants']} | {oy['csa_expiries']} | "
                  f"{x['os']['max_ready_wait_ns'] / 1e6:.2f} / {oy['max_ready_wait_ns'] / 1e6:.2f} |")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--csa":
        csa(*sys.argv[2:])
    elif len(sys.argv) == 2:
        table_xi(sys.argv[1])
    else:
        sys.exit(__doc__)
