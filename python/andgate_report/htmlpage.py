"""index.html: one self-contained page (inline CSS, plots referenced by relative path). Every string
taken from the JSON goes through html.escape."""
import html

from .fmt import DASH, fmt_int, fmt_ns, fmt_ratio
from .load import METHODS, c2c_median, failed_results, method_of, methods_present
from .rank import auto_regret, ranking
from .workload import html_section as workload_section
from .wlplots import calls_file

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
     max-width:1200px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:1px solid #ccc}
h3{margin-bottom:.3em}
table{border-collapse:collapse;margin:.4em 0 1em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:right}
th{background:#f0f0f0} td.l,th.l{text-align:left}
tr.best-andgate td{background:#d8f0d8;font-weight:600}
tr.best-baseline td{background:#fde9c8;font-weight:600}
tr.best-hw td{background:#dbe6fb;font-weight:600}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.meta td{text-align:left} .note{color:#555;font-size:.9em}
img{max-width:100%;border:1px solid #ddd;margin:.5em 0}
.failed td{background:#fbe0e0}
"""

METHOD_TITLES = {
    "latency": "Latency (method latency: time per barrier episode)",
    "epcc": "EPCC overhead (method epcc: overhead per barrier against a barrier-free reference)",
    "jitter": "Under jitter (method jitter: one late thread per episode; CPU time burnt while waiting)",
}


def e(v):
    """Escaped text of any JSON value; the dash for a missing one."""
    return DASH if v is None else html.escape(str(v), quote=True)


def _table(headers, rows, left=()):
    """headers: list of text; rows: list of (css class or "", [cell html]); left: column indexes
    aligned left. Cells must already be escaped."""
    out = ["<table><tr>"]
    out += [f'<th class="l">{e(h)}</th>' if i in left else f"<th>{e(h)}</th>"
            for i, h in enumerate(headers)]
    out.append("</tr>")
    for cls, cells in rows:
        out.append(f'<tr class="{cls}">' if cls else "<tr>")
        out += [f'<td class="l">{c}</td>' if i in left else f"<td>{c}</td>" for i, c in enumerate(cells)]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _host_section(doc):
    h = doc["host"]
    c2c = h.get("c2c_oneway_ns", {})
    clock = h.get("clock")
    if clock == "tsc" and h.get("tsc_ghz"):
        clock = f"tsc ({h['tsc_ghz']:g} GHz)"
    cpus = f"{h['cpus_usable']} usable"
    if h.get("cpus_online") is not None:
        cpus += f" of {h['cpus_online']} online"
    rows = [("", ["model", e(h.get("model"))]),
            ("", ["mode", e(doc.get("mode"))]),
            ("", ["CPUs", e(cpus)]),
            ("", ["clock", e(clock)]),
            ("", ["core-to-core one-way min", f"{fmt_ns(c2c.get('min'))} ns"]),
            ("", ["core-to-core one-way median", f"{fmt_ns(c2c.get('median'))} ns"])]
    out = ["<h2>Host</h2>", '<div class="meta">', _table(["", ""], rows, left=(0, 1)), "</div>"]
    pairs = h.get("c2c_pairs") or []
    if pairs:
        prow = [("", [e(p["a"]), e(p["b"]), fmt_ns(p["min_ns"]), fmt_ns(p["median_ns"])]) for p in pairs]
        opened = " open" if len(pairs) <= 16 else ""
        out.append(f"<details{opened}><summary>Core-to-core one-way latency per CPU pair "
                   f"({len(pairs)} pairs)</summary>")
        out.append(_table(["CPU a", "CPU b", "min ns", "median ns"], prow))
        out.append("</details>")
    return "\n".join(out)


def _ranking_section(doc, method):
    out = [f"<h2>{e(METHOD_TITLES.get(method, method))}</h2>"]
    has_c2c = c2c_median(doc) is not None
    for threads, over, rows in ranking(doc, method):
        note = f" — oversubscribed ({threads} threads on {doc['host']['cpus_usable']} usable CPUs)" \
            if over else ""
        out.append(f"<h3>{threads} thread{'s' if threads != 1 else ''}{e(note) if note else ''}</h3>")
        trs = []
        for i, row in enumerate(rows, 1):
            r = row["result"]
            cls = f"best-{row['best']}" if row["best"] else ""
            impl = f'<span class="mono">{e(r["impl"])}</span>'
            if r.get("describe") and r.get("describe") != r["impl"]:
                impl += f'<br><span class="note mono">{e(r["describe"])}</span>'
            trs.append((cls, [str(i), impl, e(r.get("kind")), e(r.get("wait")), e(r.get("pinning")),
                              fmt_ns(r["median_ns"]), fmt_ns(r["min_ns"]), fmt_ns(r["p99_ns"]),
                              fmt_ns(r["cpu_ns_per_episode"]), fmt_int(r["episodes"]),
                              fmt_ratio(row["vs_baseline"]),
                              fmt_ratio(row["vs_c2c"]) if has_c2c else DASH]))
        out.append(_table(["#", "impl", "kind", "wait", "pinning", "median ns", "min ns", "p99 ns",
                           "cpu ns/episode", "episodes", "÷ best baseline", "÷ c2c one-way"],
                          trs, left=(1, 2, 3, 4)))
    return "\n".join(out)


def _failed_section(doc):
    failed = failed_results(doc)
    if not failed:
        return ""
    rows = [("failed", [f'<span class="mono">{e(r.get("impl"))}</span>', e(method_of(r)),
                        e(r.get("threads")), e(r.get("wait")), e(r.get("error", "(no error given)"))])
            for r in failed]
    return "\n".join(["<h2>Failed runs</h2>",
                      _table(["impl", "method", "threads", "wait", "error"], rows,
                             left=(0, 1, 3, 4))])


def _regret_section(doc):
    """auto beside the best fixed algorithm at each count (latency), when the run has both."""
    rows = auto_regret(doc)
    if not rows:
        return ""
    trs = [("", [e(r["threads"]), e(r["wait"]), f'<span class="mono">{e(r["auto"])}</span>', e(fmt_ns(r["auto_ns"])),
                 f'<span class="mono">{e(r["best"])}</span>', e(fmt_ns(r["best_ns"])),
                 e(None if r["regret"] is None else f'{r["regret"]:.2f}'),
                 e(None if r["regret_mean"] is None else f'{r["regret_mean"]:.2f}')]) for r in rows]
    worst = max((r["regret"] for r in rows if r["regret"] is not None), default=None)
    note = f"worst regret {worst:.2f}" if worst is not None else ""
    seeds = max(r["seeds"] for r in rows)
    if seeds > 1:
        note += f"; every figure is the average over {seeds} seeds (allocations) of the same record"
    return "\n".join(["<h2>auto against the best fixed algorithm (latency)</h2>",
                      '<p class="note">Regret is auto\'s median over the best fixed andgate spec\'s median '
                      f"at the same count and wait (1: auto chose as an oracle would); by the mean, auto's mean "
                      "over the smallest fixed mean (what a loop of episodes takes, tune's first episodes "
                      f"included). {e(note)}</p>",
                      _table(["threads", "wait", "auto chose", "median ns", "best fixed", "median ns", "regret",
                              "by the mean"],
                             trs, left=(1, 2, 4))])


def _settings_section(doc):
    """Each baseline's settings once (more than once only where one impl ran with different ones)."""
    seen = {}
    for r in doc.get("results", []):
        if r.get("kind") == "baseline":
            s = seen.setdefault(r["impl"], [])
            if r.get("settings") and r["settings"] not in s:
                s.append(r["settings"])
    if not seen:
        return ""
    out = ["<h2>Baselines and their default settings</h2>",
           '<p class="note">Each baseline runs as a user gets it, with the library\'s own defaults:</p>',
           "<ul>"]
    for impl, settings in seen.items():
        text = "; ".join(e(s) for s in settings) if settings else "(no settings reported)"
        out.append(f'<li><span class="mono">{e(impl)}</span>: {text}</li>')
    out.append("</ul>")
    return "\n".join(out)


PLOT_CAPTIONS = {
    "latency.png": "Median latency per episode vs threads (log y). andgate solid, baselines dashed, "
                   "hardware barriers dash-dotted; the black line is the core-to-core one-way median, "
                   "the shaded region is oversubscribed (threads > usable CPUs).",
    "cdf.png": "Distribution of per-episode latency at {cdf} threads (log x).",
    "jitter.png": "CPU time per episode, all threads together (the injected delay itself not counted), "
                  "when one thread arrives late.",
    "epcc.png": "EPCC barrier overhead vs threads (log y).",
    "hw.png": "Each hardware barrier against software: the best andgate median at that thread count divided "
              "by the device's median (log y; above the line the device is faster than every andgate "
              "algorithm).",
}


WORKLOAD_CAPTIONS = {
    "makespan.png": "Makespan (the workload's whole virtual time) against threads, a line per workload, "
                    "implementation and scheduling policy (log y); the shaded region is oversubscribed.",
    "calls": "Mean time per call of each primitive (log y), a group per implementation, threads and "
             "scheduling policy; a primitive never called has no bar.",
}


def _figure(name, caption):
    return (f'<figure><img src="{e(name)}" alt="{e(name)}"><figcaption class="note">'
            f"{e(caption)}</figcaption></figure>")


def _workload_figures(plots):
    """figures_html for workload.html_section: a workload's calls plot, or (None) the makespan plot."""
    def figures(name):
        if name is None:
            return _figure("makespan.png", WORKLOAD_CAPTIONS["makespan.png"]) if "makespan.png" in plots else ""
        f = calls_file(name)
        return _figure(f, WORKLOAD_CAPTIONS["calls"]) if f in plots else ""
    return figures


def render(doc, plots, cdf_threads=None):
    """The page as a string; plots: the PNG file names that were written (relative to index.html)."""
    title = f"andgate {doc.get('mode', '')} report — {doc['host'].get('model', '')}"
    head = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        '<div class="meta">',
        _table(["", ""], [("", ["command", f'<code>{e(doc.get("command"))}</code>']),
                          ("", ["date", e(doc.get("date"))]),
                          ("", ["tool version", e(f"{doc.get('tool')} {doc.get('version')}")])],
               left=(0, 1)),
        "</div>",
    ]
    if methods_present(doc):            # the legend of the barrier rankings (a workload run has none)
        head.append('<p class="note">Rows are sorted by median; the best andgate row is green, the best '
                    'baseline row orange, the best hardware barrier blue. "÷ best baseline" is median / the '
                    'best baseline median at that thread count (below 1: faster than every baseline); '
                    '"÷ c2c one-way" is median / the core-to-core one-way median.</p>')
    body = [_host_section(doc)]
    barrier_plots = [name for name in plots if name in PLOT_CAPTIONS]   # the workload section has its own
    if barrier_plots:
        body.append("<h2>Plots</h2>")
        for name in barrier_plots:
            body.append(_figure(name, PLOT_CAPTIONS[name].format(cdf=cdf_threads)))
    for method in methods_present(doc):
        body.append(_ranking_section(doc, method))
    extra = sorted({method_of(r) for r in doc.get("results", [])} - set(METHODS))
    if extra:
        body.append(f'<p class="note">Results of unknown methods not shown: {e(", ".join(extra))}</p>')
    body.append(workload_section(doc, _table, _workload_figures(plots)))
    body.append(_regret_section(doc))
    body.append(_failed_section(doc))
    body.append(_settings_section(doc))
    return "\n".join(head + [b for b in body if b] + ["</body></html>", ""])
