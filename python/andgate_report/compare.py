"""Two result files side by side: per (impl, threads, method) found in both, the medians and their
ratio — e.g. `andgate sim` on the `host` machine against `andgate bench` on the same machine."""
from .fmt import fmt_ns, fmt_ratio
from .load import ok_results


def _key(r):
    return (r["impl"], r["threads"], r.get("method", "latency"))


def compare_rows(base, other):
    """[(impl, threads, method, base median, other median, other / base)] for barrier results present and
    ok in both files, in the base file's order (workload records have no barrier median to compare)."""
    theirs = {_key(r): r for r in ok_results(other)}
    rows = []
    for r in ok_results(base):
        o = theirs.get(_key(r))
        if o is None:
            continue
        ratio = o["median_ns"] / r["median_ns"] if r["median_ns"] > 0 else None
        rows.append((r["impl"], r["threads"], r.get("method", "latency"), r["median_ns"], o["median_ns"], ratio))
    return rows


def compare_lines(base, other):
    """A Markdown table of compare_rows, with the geometric mean of the ratios."""
    rows = compare_rows(base, other)
    head = f"| impl | threads | {base['mode']} median ns | {other['mode']} median ns | {other['mode']} / {base['mode']} |"
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
    statistic (workload records have their own table: workload.markdown_lines)."""
    res = ok_results(doc, method)
    threads = sorted({r["threads"] for r in res})
    impls = list(dict.fromkeys(r["impl"] for r in res))
    cell = {(r["impl"], r["threads"]): r[stat] for r in res}
    lines = ["| impl | " + " | ".join(str(n) for n in threads) + " |",
             "|---|" + "---:|" * len(threads)]
    for i in impls:
        lines.append(f"| {i} | " + " | ".join(fmt_ns(cell.get((i, n))) for n in threads) + " |")
    return lines
