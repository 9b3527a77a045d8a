"""003's tag-directory placement (003 §5.3 'Effects of the Ring Interconnect', Fig. 6): on the Xeon Phi
5110P a line's tag directory is picked by an address hash, so the centralized barrier's overhead depends
on where its lines were allocated. 003 ran EPCC's barrier for 1 to 60 threads in three allocations
(Fig. 6a-c: little variability inside one, much between them, 6c S-shaped) and re-launched it for every
iteration (Fig. 6d: linear on average). In `andgate sim` the run's --seed places every line's home and
directory slice (sim/coherence.c, sim/directory.c; the record's settings carry `seed=S`), so one seed is
one allocation. Used by scripts/sim_experiment.sh 003-placement and by shapes.py's verdict on the
statement. Nothing here feeds the model.

    python3 sim/validation/placement.py table RESULT.json [RESULT.json ...]    the Markdown summary
"""
import json
import re
import statistics
import sys

SPEC, WAIT = "central", "spin"  # 003's sense-reversing centralized barrier, spinning


def seed_of(r):
    m = re.search(r"(?:^|,)seed=(\d+)", r.get("settings", ""))
    return int(m.group(1)) if m else None


def curves(results):
    """{seed: {threads: record}} of the central spinning EPCC results (the first record of each seed and
    count: a seed's run is deterministic, so a repeat is the same record)."""
    out = {}
    for r in results:
        name = r["impl"].removeprefix("andgate:").split(":")[0]
        if name != SPEC or r.get("wait", WAIT) != WAIT or r.get("method") != "epcc" or \
                r.get("status", "ok") != "ok" or seed_of(r) is None:
            continue
        out.setdefault(seed_of(r), {}).setdefault(r["threads"], r)
    return out


def _polyfit_rms(xs, ys, degree):
    """The rms residual of the least-squares polynomial of `degree` (normal equations on x scaled to
    [-1, 1], solved by Gaussian elimination with partial pivoting)."""
    lo, hi = min(xs), max(xs)
    u = [(2 * x - lo - hi) / (hi - lo) for x in xs]
    k = degree + 1
    a = [[sum(v ** (i + j) for v in u) for j in range(k)] + [sum(y * v ** i for v, y in zip(u, ys))]
         for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda i: abs(a[i][c]))
        a[c], a[p] = a[p], a[c]
        for i in range(k):
            if i != c:
                f = a[i][c] / a[c][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[c])]
    coef = [a[i][k] / a[i][i] for i in range(k)]
    res = [y - sum(cf * v ** i for i, cf in enumerate(coef)) for v, y in zip(u, ys)]
    return (sum(e * e for e in res) / len(res)) ** 0.5


def _r2(xs, ys):
    sd = statistics.pstdev(ys)
    return 1 - (_polyfit_rms(xs, ys, 1) / sd) ** 2 if sd else 1.0


def summary(results):
    """What the statement needs, or None where fewer than 8 allocations or 20 common counts ran:
    seeds, counts (those every seed ran), within (the median over seeds and counts of p99 / median - 1:
    the spread inside one allocation), between (the median over counts of max / min over the seeds - 1),
    per seed the R^2 of a straight line and the S share (the part of the deviation from that line a
    cubic removes: 1 - (rms cubic / rms line)^2; an S-shaped curve is mostly its smooth S), and the R^2
    of the average over the seeds (003's re-launched runs)."""
    c = curves(results)
    if len(c) < 8:
        return None
    ts = sorted(set.intersection(*(set(v) for v in c.values())))
    if len(ts) < 20:
        return None
    mean = {s: [c[s][t]["mean_ns"] for t in ts] for s in c}
    avg = [statistics.fmean(mean[s][i] for s in c) for i in range(len(ts))]
    s_share = {}
    for s in c:
        lin = _polyfit_rms(ts, mean[s], 1)
        s_share[s] = 1 - (_polyfit_rms(ts, mean[s], 3) / lin) ** 2 if lin else 0.0
    return {
        "seeds": sorted(c), "counts": ts, "mean": mean, "average": avg,
        "within": statistics.median(c[s][t]["p99_ns"] / c[s][t]["median_ns"] - 1 for s in c for t in ts),
        "between": statistics.median(max(mean[s][i] for s in c) / min(mean[s][i] for s in c) - 1
                                     for i in range(len(ts))),
        "r2": {s: _r2(ts, mean[s]) for s in c}, "s_share": s_share, "r2_average": _r2(ts, avg),
    }


def describe(sm):
    r2 = sorted(sm["r2"].values())
    return (f"{len(sm['seeds'])} allocations (seeds), {sm['counts'][0]}-{sm['counts'][-1]} threads: inside one "
            f"p99/median - 1 = {sm['within']:.1%} (median), between them max/min - 1 = {sm['between']:.0%} "
            f"(median over counts); straight-line R^2 of one allocation {r2[0]:.3f}-{r2[-1]:.3f}, of their "
            f"average {sm['r2_average']:.4f}; S share of one allocation's deviation at most "
            f"{max(sm['s_share'].values()):.0%}, at least 50 % in {sum(v >= 0.5 for v in sm['s_share'].values())}")


def table(sm, every=4):
    """Markdown: per count (every `every`th) the min, median and max over the allocations and their mean."""
    print("| threads | lowest allocation, ns | median, ns | highest, ns | max / min | average (re-launched), ns |")
    print("|---:|---:|---:|---:|---:|---:|")
    for i, t in enumerate(sm["counts"]):
        if i % every and i != len(sm["counts"]) - 1:
            continue
        v = sorted(sm["mean"][s][i] for s in sm["seeds"])
        print(f"| {t} | {v[0]:,.0f} | {statistics.median(v):,.0f} | {v[-1]:,.0f} | {v[-1] / v[0]:.2f} | "
              f"{sm['average'][i]:,.0f} |")
    s = max(sm["s_share"], key=sm["s_share"].get)
    cells = ", ".join(f"{v:,.0f}" for i, v in enumerate(sm["mean"][s]) if i % every == 0)
    print(f"\nThe allocation whose curve is most S-shaped, seed {s} (S share {sm['s_share'][s]:.0%}), every "
          f"{every}th count from {sm['counts'][0]}: {cells} ns\n")
    print(describe(sm))


def main(argv):
    if len(argv) >= 2 and argv[0] == "table":
        sm = summary([r for p in argv[1:] for r in json.load(open(p))["results"]])
        if sm is None:
            print("placement.py: need central spin EPCC results of 8 or more seeds at 20 or more common counts",
                  file=sys.stderr)
            return 1
        table(sm)
        return 0
    print(__doc__.strip().splitlines()[-1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
