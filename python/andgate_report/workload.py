"""Workload records (`andgate sim --workload prodcons|phases`, docs/sim.md): their rows, the report's
section for them, their Markdown table (--markdown) and their summary lines (--summary).

A workload record's median/min/p99 time the workload's iterations (prodcons rounds, phases), not barrier
episodes: its figures are "workload" (name, makespan_ns, cs_ns, produced, consumed, calls: per
primitive {n, mean_ns}) and "os" (sched, switches, preemptions, csa_grants, csa_expiries,
max_ready_wait_ns). load.ok_results leaves these records out of every barrier table and plot.
"""
import html

from .fmt import DASH, fmt_int, fmt_ns
from .load import short_impl, workload_results
from .paper004 import TABLE_XI, TABLE_XI_THREADS

# the primitives a workload times, in 004 Table XI's order (signal has no Table XI row)
CALLS = ("lock_empty", "lock_queued", "unlock", "barrier_wait", "broadcast", "signal", "cond_wait")
OS_COUNTERS = ("switches", "preemptions", "csa_grants", "csa_expiries")


def by_workload(doc):
    """{workload name: [records]} in the document's order; each list sorted by implementation, threads and
    scheduling policy (the table's rows)."""
    groups = {}
    for r in workload_results(doc):
        groups.setdefault(r["workload"]["name"], []).append(r)
    for rows in groups.values():
        rows.sort(key=lambda r: (r["impl"], r["threads"], sched_of(r)))
    return groups


def sched_of(r):
    return r.get("os", {}).get("sched", DASH)


def calls_present(records):
    """The primitives called at least once in some record, in CALLS order (then any the model adds)."""
    seen = {c for r in records for c, v in r["workload"].get("calls", {}).items() if v.get("n")}
    return [c for c in CALLS if c in seen] + sorted(seen - set(CALLS))


def label(r, records):
    """impl (short), threads and, where records mix policies, the scheduling policy."""
    text = f"{short_impl(r)} {r['threads']}t"
    if len({sched_of(x) for x in records}) > 1:
        text += f" {sched_of(r)}"
    return text


def _call_cell(r, call):
    c = r["workload"].get("calls", {}).get(call, {})
    return (fmt_ns(c["mean_ns"]), fmt_int(c["n"])) if c.get("n") else (DASH, "0")


def table(records):
    """(headers, rows) of one workload: a row per record with makespan, critical-section time, items,
    each primitive's mean ns and call count, and the OS model's counters. Cells are plain text."""
    calls = calls_present(records)
    headers = ["impl", "threads", "sched", "oversubscribed", "makespan us", "critical sections us",
               "produced", "consumed"]
    headers += [h for c in calls for h in (f"{c} mean ns", f"{c} calls")]
    headers += list(OS_COUNTERS) + ["longest ready wait us"]
    rows = []
    for r in records:
        w, o = r["workload"], r.get("os", {})
        row = [r["impl"], str(r["threads"]), sched_of(r), "yes" if r.get("oversubscribed") else "no",
               fmt_ns(w["makespan_ns"] / 1e3), fmt_ns(w.get("cs_ns", 0) / 1e3),
               fmt_int(w.get("produced")), fmt_int(w.get("consumed"))]
        row += [x for c in calls for x in _call_cell(r, c)]
        row += [fmt_int(o.get(k)) for k in OS_COUNTERS]
        row.append(fmt_ns(o["max_ready_wait_ns"] / 1e3) if "max_ready_wait_ns" in o else DASH)
        rows.append(row)
    return headers, rows


def table_xi_rows(records):
    """004 Table XI beside the prodcons records at its 6 threads: (headers, rows); a Subutai record (its
    impl names hw-subutai) against the paper's Subutai column, any other against its SW column. None when
    no record runs at 6 threads."""
    at = [r for r in records if r["threads"] == TABLE_XI_THREADS]
    if not at:
        return None
    headers = ["004 Table XI row", "paper SW ns", "paper Subutai ns"]
    headers += [f"{short_impl(r)} sim ns (÷ paper)" for r in at]
    rows = []
    for row, call, sw, hw in TABLE_XI:
        cells = [row, fmt_int(sw), fmt_int(hw)]
        for r in at:
            c = r["workload"].get("calls", {}).get(call, {})
            paper = hw if "subutai" in r["impl"] else sw
            cells.append(f"{fmt_ns(c['mean_ns'])} ({c['mean_ns'] / paper:.3f})" if c.get("n") else DASH)
        rows.append(cells)
    return headers, rows


def markdown_lines(doc):
    """A Markdown table per workload (the same columns as the report's), for --markdown."""
    lines = []
    for name, records in by_workload(doc).items():
        headers, rows = table(records)
        lines += ["", f"workload {name} (andgate sim --workload; times per call, not barrier episodes)", "",
                  "| " + " | ".join(headers) + " |", "|---|---:|---|---|" + "---:|" * (len(headers) - 4)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def summary_lines(doc):
    """One line per workload record: makespan, items, critical-section time, the barrier wait and the CSA
    counters."""
    lines = []
    for name, records in by_workload(doc).items():
        for r in records:
            w, o = r["workload"], r.get("os", {})
            parts = [f"makespan {fmt_ns(w['makespan_ns'] / 1e3)} us"]
            if w.get("produced") or w.get("consumed"):
                parts.append(f"{w.get('produced')} produced, {w.get('consumed')} consumed")
            if w.get("cs_ns"):
                parts.append(f"critical sections {fmt_ns(w['cs_ns'] / 1e3)} us")
            bw = w.get("calls", {}).get("barrier_wait", {})
            if bw.get("n"):
                parts.append(f"barrier_wait {fmt_ns(bw['mean_ns'])} ns x {bw['n']}")
            if o.get("csa_grants"):
                parts.append(f"CSA grants {o['csa_grants']}, expiries {o.get('csa_expiries', 0)}")
            over = " (oversubscribed)" if r.get("oversubscribed") else ""
            lines.append(f"workload {name} {short_impl(r)} threads {r['threads']}{over} sched {sched_of(r)}: "
                         + " | ".join(parts))
    return lines


def html_section(doc, table_html, figures_html):
    """The report's workload section: per workload its figures (figures_html(name) gives them; with None,
    those across workloads) and table;
    for prodcons also 004 Table XI beside it. table_html(headers, rows, left) renders escaped cells. Empty
    when the document has no workload records."""
    groups = by_workload(doc)
    if not groups:
        return ""
    e = html.escape
    out = ["<h2>Workloads (andgate sim --workload)</h2>",
           '<p class="note">Each call timed from call to return; mean ns and the number of calls per primitive '
           "(docs/sim.md). Makespan: the whole workload's virtual time; critical sections: Σ lock return → "
           "unlock (004 Fig. 11's measure). The OS model's counters: context switches, preemptions at the end "
           "of a slice, CSA grants (a slice extended for a critical section) and expiries (CSALimit reached), "
           "and the longest time a ready thread waited for a CPU.</p>"]
    out.append(figures_html(None))            # the plot across workloads (makespan against threads)
    for name, records in groups.items():
        out.append(f"<h3>{e(name)}</h3>")
        out.append(figures_html(name))
        headers, rows = table(records)
        out.append(table_html(headers, [("", [e(c) for c in row]) for row in rows], left=(0, 2, 3)))
        xi = table_xi_rows(records) if name == "prodcons" else None
        if xi:
            out.append('<p class="note">004 §VIII-E, Table XI (one producer, five consumers, 004\'s '
                       "prototype) beside the records at 6 threads; ÷ paper is the simulated mean over the "
                       "paper's.</p>")
            out.append(table_html(xi[0], [("", [e(c) for c in row]) for row in xi[1]], left=(0,)))
    return "\n".join(out)
