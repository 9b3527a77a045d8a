"""Results of `andgate bench --preload` (mode "preload"): the summary tables, the plots and the page.

  apps        one record per app x compiler x bind x threads (or one per command, without "app"): wall
              times plain and under LD_PRELOAD=libandgate-preload.so; speedup = the median over the
              pairs of back-to-back runs of plain / preloaded (above 1: the shim is faster)
  constructs  one record per OpenMP construct x compiler x bind x threads (bench/omp_constructs.c):
              overhead per construct in ns, runtime alone and under the shim (medians over the pairs
              of runs); ratio = the median over the pairs of shim / runtime (below 1: the shim is faster)

Plots: speedup.png (speedup per app, a bar per compiler/bind/threads) and constructs.png (ratio per
construct, the same grouping); each is left out when the document has nothing for it. The CSV of a
preload document is written by csvout.py.
"""
import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .fmt import DASH, fmt_ns, fmt_ratio  # noqa: E402
from .htmlpage import CSS, _table, e  # noqa: E402

DPI = 110
PLOTS = ("speedup.png", "constructs.png")


def is_preload(doc):
    return doc.get("mode") == "preload"


def ok(r):
    return r.get("status", "ok") == "ok"


def app_name(r):
    """The app, or the command of a single-command record."""
    return r.get("app") or r.get("command", "?")


def config(r):
    """compiler / bind / threads of a record ("" for a single command)."""
    if "compiler" not in r:
        return ""
    return f"{r['compiler']} bind={r['bind']} {r['threads']}t"


def _fmt_s(v):
    return DASH if v is None else f"{v:.3f}"


def _output(r):
    if "output_identical" not in r:
        return DASH
    return "identical" if r["output_identical"] else "DIFFERENT"


def _status(r):
    return "ok" if ok(r) else f"FAILED: {r.get('error', '(no error given)')}"


# ---- the summary ------------------------------------------------------------------------------

def app_rows(doc):
    """[(app, compiler, bind, threads, plain s, preloaded s, speedup, output, status)] as text."""
    return [(app_name(r), r.get("compiler", DASH), r.get("bind", DASH), str(r.get("threads", DASH)),
             _fmt_s(r.get("median_plain_s")), _fmt_s(r.get("median_preload_s")),
             fmt_ratio(r.get("speedup")), _output(r), _status(r)) for r in doc.get("apps", [])]


def construct_rows(doc):
    """[(construct, compiler, bind, threads, runtime ns, shim ns, ratio, status)] as text."""
    return [(r["construct"], r["compiler"], r["bind"], str(r["threads"]), fmt_ns(r.get("runtime_ns")),
             fmt_ns(r.get("shim_ns")), fmt_ratio(r.get("ratio")), _status(r))
            for r in doc.get("constructs", [])]


def _text_table(headers, rows, left):
    """Fixed-width columns; columns in `left` aligned left, the others right; the last column free."""
    widths = [max(len(x) for x in col) for col in zip(headers, *rows)]
    out = []
    for row in [headers, *rows]:
        cells = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row[:-1], widths))]
        out.append("  ".join(cells + [row[-1]]).rstrip())
    return out


def summary_lines(doc):
    lines = []
    env = doc.get("environment") or {}
    if env:
        lines.append("inherited environment: " + " ".join(f"{k}={v}" for k, v in sorted(env.items())))
    if doc.get("apps"):
        n = doc.get("repeat", "?")
        lines.append(f"apps: wall time, median of {n} run{'' if n == 1 else 's'} each, plain and preloaded "
                     "alternately; speedup = median over the pairs of plain / preloaded")
        headers = ("app", "compiler", "bind", "threads", "plain s", "preloaded s", "speedup", "output", "status")
        rows = app_rows(doc)
        left = (0, 1, 2, 7)
        if not any("app" in r for r in doc["apps"]):   # single commands: no compiler, bind, threads
            headers, rows, left = ("command",) + headers[4:], [(x[0],) + x[4:] for x in rows], (0, 4)
        lines += _text_table(headers, rows, left)
    if doc.get("constructs"):
        n = doc.get("repeat", "?")
        lines.append(f"constructs: overhead per construct, median ns over {n} pair{'' if n == 1 else 's'} of runs "
                     "(bench/omp_constructs.c); ratio = median over the pairs of shim / runtime")
        lines += _text_table(("construct", "compiler", "bind", "threads", "runtime ns", "shim ns", "ratio",
                              "status"), construct_rows(doc), left=(0, 1, 2))
    if not lines:
        lines.append("no app and no construct was measured")
    return lines


# ---- plots ------------------------------------------------------------------------------------

def _grouped_bars(groups, path, title, ylabel, note):
    """groups: {group label: {series label: value > 0}}; in each group a bar per series it has, from 1
    to the value on a log axis (a ratio of 2 and one of 1/2 are bars of the same length)."""
    series = sorted({s for g in groups.values() for s in g})
    if not series:
        return False
    cmap = plt.get_cmap("tab20" if len(series) > 10 else "tab10")
    color = {s: cmap(k % cmap.N) for k, s in enumerate(series)}
    width = min(0.8 / max(len(g) for g in groups.values()), 0.3)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.25 * sum(len(g) for g in groups.values()) + 3), 5.2))
    labels, seen = len(series) * len(groups) <= 64, set()
    for i, g in enumerate(groups.values()):
        for k, (s, y) in enumerate(sorted(g.items())):
            x = i + (k - (len(g) - 1) / 2) * width
            bars = ax.bar([x], [y - 1], width, bottom=1, color=color[s], label=None if s in seen else s)
            seen.add(s)
            if labels:
                ax.bar_label(bars, labels=[f"{y:.2f}"], fontsize=6, rotation=90, padding=2)
    values = [v for g in groups.values() for v in g.values()]
    ax.set_yscale("log")
    ax.set_ylim(min(values + [1]) / 1.6, max(values + [1]) * 1.6)
    fmt = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(fmt)
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.axhline(1.0, color="black", linewidth=1.0)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(list(groups), rotation=20 if len(groups) > 6 else 0, ha="right" if len(groups) > 6 else "center")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.text(0.0, -0.12 if len(groups) <= 6 else -0.22, note, transform=ax.transAxes, fontsize=8, color="0.3")
    ax.grid(True, axis="y", alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    order = sorted(range(len(names)), key=lambda j: names[j])
    ax.legend([handles[j] for j in order], [names[j] for j in order], loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def _groups(records, name, value):
    groups = {}
    for r in records:
        v = r.get(value)
        if ok(r) and isinstance(v, (int, float)) and v > 0:
            groups.setdefault(name(r), {})[config(r) or "command"] = v
    return groups


def plot_speedup(doc, path):
    return _grouped_bars(_groups(doc.get("apps", []), app_name, "speedup"), path,
                         f"Wall-time speedup under libandgate-preload.so\n{doc['host'].get('model', '?')}",
                         "plain / preloaded, median over pairs of runs", "above 1: faster with the shim")


def plot_constructs(doc, path):
    return _grouped_bars(_groups(doc.get("constructs", []), lambda r: r["construct"], "ratio"), path,
                         f"OpenMP construct overhead, shim / runtime\n{doc['host'].get('model', '?')}",
                         "overhead under the shim / runtime's own", "below 1: the construct costs less with the shim")


# ---- the page ---------------------------------------------------------------------------------

PLOT_CAPTIONS = {
    "speedup.png": "Speedup of each app under libandgate-preload.so (plain wall time / preloaded, the "
                   "median over pairs of back-to-back runs), a bar per compiler, binding and thread count; the line is 1 (no change).",
    "constructs.png": "Overhead of each OpenMP construct under the shim divided by the runtime's own "
                      "(median over pairs of runs of omp-constructs); the line is 1.",
}


def _row_class(r, key, better_above):
    if not ok(r) or r.get("output_identical") is False:
        return "failed"
    v = r.get(key)
    if v is None:
        return ""
    return "faster" if (v > 1) == better_above and v != 1 else "slower"


def render(doc, plots):
    h = doc["host"]
    title = f"andgate bench --preload report — {h.get('model', '')}"
    meta = [("", [k, v]) for k, v in (
        ("command", f"<code>{e(doc.get('command'))}</code>"), ("date", e(doc.get("date"))),
        ("tool version", e(f"{doc.get('tool')} {doc.get('version')}")),
        ("host", e(f"{h.get('model')}, {h['cpus_usable']} usable CPUs")),
        ("shim", f'<span class="mono">{e(doc.get("shim"))}</span>'),
        ("runs per configuration", e(doc.get("repeat"))),
        ("inherited environment", e(" ".join(f"{k}={v}" for k, v in sorted((doc.get("environment") or {}).items()))
                                    or "none")))]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(title)}</title><style>{CSS}tr.faster td{{background:#d8f0d8}}"
           "tr.slower td{background:#fde9c8}</style></head><body>", f"<h1>{e(title)}</h1>",
           '<div class="meta">', _table(["", ""], meta, left=(0, 1)), "</div>",
           '<p class="note">Each configuration ran plain and under <code>LD_PRELOAD</code> alternately, with '
           "OMP_NUM_THREADS and OMP_PROC_BIND set and nothing else added. Green rows: faster with the shim; "
           "orange: slower; red: failed or different output.</p>"]
    if plots:
        out.append("<h2>Plots</h2>")
        out += [f'<figure><img src="{e(n)}" alt="{e(n)}"><figcaption class="note">{e(PLOT_CAPTIONS[n])}'
                "</figcaption></figure>" for n in plots]
    if doc.get("apps"):
        rows = [(_row_class(r, "speedup", True), [e(c) for c in row])
                for r, row in zip(doc["apps"], app_rows(doc))]
        out += ["<h2>Apps: wall time, plain and preloaded</h2>",
                _table(["app", "compiler", "bind", "threads", "plain s (median)", "preloaded s (median)",
                        "speedup", "output", "status"], rows, left=(0, 1, 2, 7, 8))]
    if doc.get("constructs"):
        rows = [(_row_class(r, "ratio", False), [e(c) for c in row])
                for r, row in zip(doc["constructs"], construct_rows(doc))]
        out += ["<h2>OpenMP constructs: overhead per construct</h2>",
                '<p class="note">Overhead = (time of reps executions of the construct around a 0.1 us delay '
                "− reps × the delay alone) / reps, the median over outer repetitions (EPCC's method; "
                "docs/bench.md).</p>",
                _table(["construct", "compiler", "bind", "threads", "runtime ns", "shim ns", "shim / runtime",
                        "status"], rows, left=(0, 1, 2, 7))]
    return "\n".join(out + ["</body></html>", ""])
