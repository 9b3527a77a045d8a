"""Rankings: per method and thread count, the ok results sorted by median_ns with their ratios to the
best baseline and to the core-to-core one-way median; and the summary rows built on them.

A ratio is None (shown as "—") when its denominator is missing: no baseline at that thread count (a
sim run with hardware barriers only), or no positive c2c median.
"""
from .load import c2c_median, ok_results, oversubscribed, short_impl, thread_counts


def best_of_kind(results, kind, key="median_ns"):
    """The result of kind with the smallest key, or None."""
    rows = [r for r in results if r.get("kind") == kind]
    return min(rows, key=lambda r: r[key]) if rows else None


def _ratio(num, den):
    return num / den if num is not None and den else None


def _c2c_of(result, host_c2c):
    """The c2c one-way latency a result is compared with: the one its worker measured right before it
    (field c2c_oneway_ns, on the CPUs of its first two threads) when present, else the host's."""
    own = result.get("c2c_oneway_ns")
    return own if own else host_c2c


def ranking(doc, method):
    """[(threads, oversubscribed, rows)] in thread order; rows are dicts sorted by median_ns with keys
    result (the JSON object), vs_baseline, vs_c2c, best ("andgate" / "baseline" / "hw" for the best
    row of that kind, else None)."""
    results = ok_results(doc, method)
    c2c = c2c_median(doc)
    out = []
    for n in thread_counts(results):
        at_n = sorted((r for r in results if r["threads"] == n), key=lambda r: r["median_ns"])
        base = best_of_kind(at_n, "baseline")
        best = {id(best_of_kind(at_n, k)): k for k in ("andgate", "baseline", "hw")}
        rows = [{"result": r,
                 "vs_baseline": _ratio(r["median_ns"], base["median_ns"] if base else None),
                 "vs_c2c": _ratio(r["median_ns"], _c2c_of(r, c2c)),
                 "best": best.get(id(r))} for r in at_n]
        out.append((n, oversubscribed(doc, n, at_n), rows))
    return out


def latency_summary(doc):
    """One dict per thread count of method latency: threads, oversubscribed, best_andgate (short impl
    name or None), andgate_ns, best_baseline, baseline_ns, best_hw, hw_ns, speedup (baseline_ns /
    andgate_ns: >1 means andgate is faster), hw_speedup (andgate_ns / hw_ns), andgate_c2c (andgate_ns
    / its c2c one-way latency: its own when the result carries one, else the host median)."""
    results = ok_results(doc, "latency")
    c2c = c2c_median(doc)
    rows = []
    for n in thread_counts(results):
        at_n = [r for r in results if r["threads"] == n]
        row = {"threads": n, "oversubscribed": oversubscribed(doc, n, at_n)}
        best = {}
        for kind in ("andgate", "baseline", "hw"):
            b = best[kind] = best_of_kind(at_n, kind)
            row[f"best_{kind}"] = short_impl(b) if b else None
            row[f"{kind}_ns"] = b["median_ns"] if b else None
        row["speedup"] = _ratio(row["baseline_ns"], row["andgate_ns"])
        row["hw_speedup"] = _ratio(row["andgate_ns"], row["hw_ns"])
        row["andgate_c2c"] = _ratio(row["andgate_ns"], _c2c_of(best["andgate"], c2c) if best["andgate"] else c2c)
        rows.append(row)
    return rows


def hw_speedups(doc):
    """[(result, speedup)] for every hardware-barrier result of method latency at a thread count that also
    has an andgate result: speedup = the best andgate median there / the device's median (> 1: the device
    is faster than every andgate algorithm at that count)."""
    results = ok_results(doc, "latency")
    out = []
    for n in thread_counts(results):
        at_n = [r for r in results if r["threads"] == n]
        best = best_of_kind(at_n, "andgate")
        if best is None:
            continue
        out += [(r, best["median_ns"] / r["median_ns"]) for r in at_n
                if r.get("kind") == "hw" and r["median_ns"] > 0]
    return out


def jitter_summary(doc):
    """One dict per thread count of method jitter: threads, best_andgate (the andgate impl with the
    least cpu_ns_per_episode), andgate_cpu_ns, gomp_cpu_ns (None without a gomp result), gomp_ratio
    (gomp / andgate CPU time: >1 means andgate burns less)."""
    results = ok_results(doc, "jitter")
    rows = []
    for n in thread_counts(results):
        at_n = [r for r in results if r["threads"] == n]
        b = best_of_kind(at_n, "andgate", key="cpu_ns_per_episode")
        gomp = [r["cpu_ns_per_episode"] for r in at_n if r["impl"] == "gomp"]
        row = {"threads": n,
               "best_andgate": short_impl(b) if b else None,
               "andgate_cpu_ns": b["cpu_ns_per_episode"] if b else None,
               "gomp_cpu_ns": min(gomp) if gomp else None}
        row["gomp_ratio"] = _ratio(row["gomp_cpu_ns"], row["andgate_cpu_ns"])
        rows.append(row)
    return rows


def is_auto(r):
    """Whether a result is algo=auto (bench and sim mark what auto chose: "andgate:... (auto)")."""
    return r.get("kind") == "andgate" and r["impl"].endswith(" (auto)")


def is_meta(r):
    """Whether a result is a meta-algorithm that picks among the fixed ones (tune), asked for by name:
    not a fixed spec to take the best from."""
    return r.get("kind") == "andgate" and r["impl"].startswith("andgate:tune")


def chosen(r):
    """What an algorithm that decides while it runs (tune) chose, from its description
    ("tune:... wait=... chose=SPEC"), or None."""
    d = r.get("describe") or ""
    return d.split(" chose=", 1)[1] if " chose=" in d else None


def auto_label(r):
    """auto's result as the regret table names it: what auto resolved to, and what that chose."""
    c = chosen(r)
    return short_impl(r) + (f" -> {c}" if c else "")


def over_seeds(results):
    """Records that differ only in their seed (andgate sim --seed 1-4: one seed is one allocation, where
    the lines' homes and directory slices landed) as one each: the median and mean averaged over the
    seeds, "seeds" their number. The best fixed spec of a single allocation is the luckiest of several
    draws; averaged, each spec is compared at its expected cost (003 §5.3: overhead moves with the
    allocation). Records without a seed pass through unchanged."""
    groups = {}
    for r in results:
        parts = (r.get("settings") or "").split(",")
        rest = ",".join(x for x in parts if not x.startswith("seed="))
        key = (r["impl"], r.get("kind"), r["threads"], r.get("wait"), r.get("pinning"), rest)
        groups.setdefault(key, []).append(r)
    out = []
    for rs in groups.values():
        if len(rs) == 1:
            out.append(rs[0])
            continue
        merged = dict(rs[0], seeds=len(rs), median_ns=sum(r["median_ns"] for r in rs) / len(rs))
        picks = sorted({c for c in map(chosen, rs) if c})
        if len(picks) > 1:  # tune chose differently in different allocations: name every choice
            merged["describe"] = rs[0]["describe"].split(" chose=")[0] + " chose=" + " | ".join(picks)
        means = [r.get("mean_ns") for r in rs]
        merged["mean_ns"] = sum(means) / len(rs) if None not in means else None
        out.append(merged)
    return out


def auto_regret(doc, method="latency"):
    """003 §5.2's ideal meta-algorithm picks the best algorithm at every count: one dict per auto result
    of method with threads, wait, auto (what it resolved to and, for tune, what that chose), auto_ns, best
    (the fastest fixed andgate spec of the same wait at that count; tune, which picks among them, is not
    one), best_ns and regret
    (auto_ns / best_ns; 1 is the oracle), and regret_mean (auto's mean over the smallest fixed mean: an
    episode's median can fall on one mode of an alternating pattern, the mean is what a loop of episodes
    takes; it also carries what tune's first episodes cost), and seeds (how many allocations the figures
    average: over_seeds). Counts without a fixed spec to compare with are left out."""
    results = over_seeds(ok_results(doc, method))
    rows = []
    for n in thread_counts(results):
        at_n = [r for r in results if r["threads"] == n and r.get("kind") == "andgate"]
        for a in (r for r in at_n if is_auto(r)):
            fixed = [r for r in at_n if not is_auto(r) and not is_meta(r) and r.get("wait") == a.get("wait")]
            if not fixed:
                continue
            b = min(fixed, key=lambda r: r["median_ns"])
            means = [r["mean_ns"] for r in fixed if r.get("mean_ns") is not None]
            bm = min(means) if means else None
            rows.append({"threads": n, "wait": a.get("wait"), "auto": auto_label(a), "auto_ns": a["median_ns"],
                         "best": short_impl(b), "best_ns": b["median_ns"],
                         "regret": _ratio(a["median_ns"], b["median_ns"]),
                         "regret_mean": _ratio(a.get("mean_ns"), bm), "seeds": a.get("seeds", 1)})
    return rows
