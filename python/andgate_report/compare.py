"""Two result files side by side: per (impl, threads, method) found in both, the medians and their
ratio — e.g. `andgate sim` on the `host` machine against `andgate bench` on the same machine."""
from .fmt import fmt_ns, fmt_ratio
from .load import ok_results


def _key(r):
    return (r["impl"], r["threads"], r.get("method", "latency"))


def compare_rows(base, other, floor=False):
    """[(impl, threads, method, base median, other median, other / base)] for barrier results present and
    ok in both files, in the base file's order (workload records have no barrier median to compare).
    With floor, the base median less the base file's median of the same impl and method at 1 thread: what
    a one-participant episode costs the harness (its two clock stamps, the call and the return), which a
    simulated episode does not contain; rows at 1 thread, or with no 1-thread result, are left out."""
    theirs = {_key(r): r for r in ok_results(other)}
    ones = {(r["impl"], r.get("method", "latency")): r["median_ns"] for r in ok_results(base) if r["threads"] == 1}
    rows = []
    for r in ok_results(base):
        o = theirs.get(_key(r))
        if o is None:
            continue
        a = r["median_ns"]
        if floor:
            f = ones.get((r["impl"], r.get("method", "latency")))
            if r["threads"] == 1 or f is None:
                continue
            a -= f
        ratio = o["median_ns"] / a if a > 0 else None
        rows.append((r["impl"], r["threads"], r.get("method", "latency"), a, o["median_ns"], ratio))
    return rows


def compare_lines(base, other, floor=False):
    """A Markdown table of compare_rows, with the geometric mean of the ratios."""
    rows = compare_rows(base, other, floor)
    less = " less its 1-thread" if floor else ""
    head = (f"| impl | threads | {base['mode']} median{less} ns | {other['mode']} median ns | "
            f"{other['mode']} / {base['mode']}{less} |")
    lines = [head, "|---|---:|---:|---:|---:|"]
    for impl, n, _, a, b, q in rows:
        lines.append(f"| {impl} | {n} | {fmt_ns(a)} | {fmt_ns(b)} | {fmt_ratio(q)} |")
    qs = [q for *_, q in rows if q]
    if qs:
        g = 1.0
        for q in qs:
            g *= q
        lines.append(f"| geometric mean | | | | {fmt_ratio(g ** (1 / len(qs)))} |")
    return lines


def pivot_lines(doc, method="latency", stat="median_ns"):
    """A Markdown table of one file's barrier results: a row per impl, a column per thread count, the chosen
    statistic (workload records have their own table: workload.markdown_lines). Where the file holds
    several wait policies a row is an impl under one of them, "impl (wait)"."""
    res = ok_results(doc, method)
    threads = sorted({r["threads"] for r in res})
    several = len({r.get("wait") for r in res}) > 1

    def label(r):
        return f"{r['impl']} ({r.get('wait')})" if several else r["impl"]
    impls = list(dict.fromkeys(label(r) for r in res))
    cell = {(label(r), r["threads"]): r[stat] for r in res}
    lines = ["| impl | " + " | ".join(str(n) for n in threads) + " |",
             "|---|" + "---:|" * len(threads)]
    for i in impls:
        lines.append(f"| {i} | " + " | ".join(fmt_ns(cell.get((i, n))) for n in threads) + " |")
    return lines
