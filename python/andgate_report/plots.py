"""The report's PNG plots (matplotlib, Agg backend). Each function draws one figure into a file and
returns True, or returns False without writing when the document has nothing to draw.

  latency.png  median latency vs threads (method latency), log y; andgate solid, baselines dashed,
               hw dash-dotted; the c2c one-way median as a horizontal line; a marker where threads
               exceed cpus_usable
  cdf.png      CDF of per-episode latency (samples_ns) at one thread count, log x
  jitter.png   CPU ns per episode under injected jitter (method jitter) vs threads, or a bar chart
               when there is a single thread count
  epcc.png     EPCC barrier overhead (median_ns of method epcc) vs threads, log y
  hw.png       each hardware barrier against the best andgate algorithm at each thread count (best andgate
               median / device median, method latency; rank.hw_speedups), log y, a line at 1
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from .load import c2c_median, cpus_usable, ok_results, series_labels, thread_counts  # noqa: E402
from .rank import hw_speedups  # noqa: E402

LINESTYLE = {"andgate": "-", "baseline": "--", "hw": "-."}
MARKERS = "os^Dv<>pP*Xh"
DPI = 110


ORDER = {"andgate": 0, "baseline": 1, "hw": 2}


def _impl_styles(doc):
    """A (color, marker index) per impl, the same in every plot of the document: andgate impls first,
    then baselines, then hw, by name (tab10, or tab20 beyond 10 impls)."""
    impls = sorted({(ORDER.get(r.get("kind"), 3), r["impl"]) for r in ok_results(doc)})
    cmap = plt.get_cmap("tab20" if len(impls) > 10 else "tab10")
    return {impl: (cmap(i % cmap.N), i) for i, (_, impl) in enumerate(impls)}


class _Styler:
    """Color by impl; the marker also changes between series of one impl (wait=..., pinning=...)."""

    def __init__(self, doc):
        self.styles = _impl_styles(doc)
        self.used = {}

    def __call__(self, impl):
        color, i = self.styles.get(impl, ("0.4", 0))
        k = self.used[impl] = self.used.get(impl, -1) + 1
        return color, MARKERS[(i + k) % len(MARKERS)]


def _series(results, value):
    """{label: (kind, impl, [(threads, value)])} with one point per thread count (the smallest value
    when a label repeats at a count), ordered andgate, baseline, hw and by label."""
    labels = series_labels(results)
    series = {}
    for r in results:
        v = value(r)
        if v is None or v <= 0:
            continue
        kind, impl, pts = series.setdefault(labels[id(r)], (r.get("kind", "andgate"), r["impl"], {}))
        pts[r["threads"]] = min(v, pts.get(r["threads"], v))
    return {label: (kind, impl, sorted(pts.items()))
            for label, (kind, impl, pts) in sorted(series.items(),
                                                   key=lambda kv: (ORDER.get(kv[1][0], 3), kv[0]))}


def _thread_axis(ax, counts):
    if len(counts) > 1:
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
    ax.set_xticks(counts)
    ax.set_xticklabels([str(c) for c in counts])
    ax.set_xlabel("threads")


def _oversub_marker(ax, doc, counts):
    cpus = cpus_usable(doc)
    if counts and max(counts) > cpus:
        ax.axvline(cpus, color="0.35", linestyle=":", linewidth=1.2)
        ax.axvspan(cpus, max(counts) * 1.1, color="0.92", zorder=0)
        ax.text(cpus, 0.98, f"  threads > cpus_usable ({cpus}): oversubscribed",
                transform=ax.get_xaxis_transform(), va="top", ha="left", fontsize=8, color="0.3")


def plain_log_ticks(ax):
    """Log y ticks at 1, 2, 5 x 10^k, labelled plainly (data within a decade or two still gets numbers)."""
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def save(fig, ax, path):
    """The legend right of the axes; then the figure written to path and closed."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, bbox_inches="tight")  # a long title or legend is not cut off
    plt.close(fig)


def _line_plot(doc, results, value, path, title, ylabel, c2c_line=False, ref=None):
    """ref: (y, label) of a horizontal reference line (y ticks then at 1, 2, 5 x 10^k, plainly labelled), or
    None."""
    series = _series(results, value)
    if not series:
        return False
    counts = thread_counts(results)
    style = _Styler(doc)
    fig, ax = plt.subplots(figsize=(10, 5.8))
    for label, (kind, impl, pts) in series.items():
        color, marker = style(impl)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], LINESTYLE.get(kind, ":"), color=color,
                marker=marker, markersize=4.5, linewidth=1.6, label=f"{label} [{kind}]")
    c2c = c2c_median(doc)
    if c2c_line and c2c:
        ax.axhline(c2c, color="black", linewidth=1.0, linestyle=(0, (6, 2, 1, 2)),
                   label="core-to-core one-way (median)")
        ax.text(0.99, c2c, f"core-to-core one-way (median) {c2c:g} ns ", va="bottom", ha="right",
                fontsize=8, transform=ax.get_yaxis_transform())
    if ref:
        ax.axhline(ref[0], color="black", linewidth=1.0, linestyle=(0, (6, 2, 1, 2)), label=ref[1])
    ax.set_yscale("log")
    if ref:
        plain_log_ticks(ax)
    _thread_axis(ax, counts)
    _oversub_marker(ax, doc, counts)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", axis="y", alpha=0.1)
    save(fig, ax, path)
    return True


def _host_tag(doc):
    return f"{doc['host'].get('model', '?')} ({doc.get('mode', '?')})"


def plot_latency(doc, path):
    return _line_plot(doc, ok_results(doc, "latency"), lambda r: r["median_ns"], path,
                      f"Barrier latency (median per episode)\n{_host_tag(doc)}",
                      "median latency per episode [ns]", c2c_line=True)


def plot_epcc(doc, path):
    return _line_plot(doc, ok_results(doc, "epcc"), lambda r: r["median_ns"], path,
                      f"EPCC barrier overhead\n{_host_tag(doc)}", "overhead per barrier [ns]")


def plot_hw(doc, path):
    """The hardware barriers in the paper's terms: how many times faster than software (the best andgate
    algorithm at the same count). Nothing to draw without hw and andgate results at a common count."""
    pairs = hw_speedups(doc)
    speedup = {id(r): s for r, s in pairs}
    return _line_plot(doc, [r for r, _ in pairs], lambda r: speedup[id(r)], path,
                      f"Hardware barriers against the best andgate algorithm\n{_host_tag(doc)}",
                      "best andgate median / device median\n(> 1: the device is faster)",
                      ref=(1.0, "as fast as the best andgate algorithm"))


def default_cdf_threads(doc):
    """The largest thread count <= cpus_usable with samples in a latency result; without one, the
    smallest thread count with samples; None when no latency result has samples."""
    counts = thread_counts([r for r in ok_results(doc, "latency") if r.get("samples_ns")])
    fitting = [c for c in counts if c <= cpus_usable(doc)]
    if fitting:
        return fitting[-1]
    return counts[0] if counts else None


def plot_cdf(doc, path, threads):
    """Samples are quantiles at evenly spaced probabilities 0, 1/(k-1), ..., 1 (common/stats.h), drawn
    as the CDF through them (linear between quantiles)."""
    results = [r for r in ok_results(doc, "latency")
               if r["threads"] == threads and len(r.get("samples_ns") or []) >= 2]
    if not results:
        return False
    labels = series_labels(results)
    results.sort(key=lambda r: (ORDER.get(r.get("kind"), 3), labels[id(r)]))
    style = _Styler(doc)
    fig, ax = plt.subplots(figsize=(10, 5.8))
    for r in results:
        xs = r["samples_ns"]
        k = len(xs)
        ps = [i / (k - 1) for i in range(k)]
        pts = [(x, p) for x, p in zip(xs, ps) if x > 0]
        color, _ = style(r["impl"])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color,
                linestyle=LINESTYLE.get(r.get("kind"), ":"), linewidth=1.6,
                label=f"{labels[id(r)]} [{r.get('kind')}]")
    c2c = c2c_median(doc)
    if c2c:
        ax.axvline(c2c, color="black", linewidth=1.0, linestyle=(0, (6, 2, 1, 2)),
                   label="core-to-core one-way (median)")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.0)
    ax.set_xlabel("latency per episode [ns]")
    ax.set_ylabel("fraction of episodes")
    over = " (oversubscribed)" if threads > cpus_usable(doc) else ""
    ax.set_title(f"Latency CDF at {threads} threads{over}\n{_host_tag(doc)}")
    ax.grid(True, which="major", alpha=0.3)
    save(fig, ax, path)
    return True


def _jitter_title(doc, results, threads=None):
    delays = {r.get("jitter_delay_ns") for r in results}
    lates = {r.get("late") for r in results}
    extra = []
    if len(delays) == 1 and None not in delays:
        extra.append(f"delay {delays.pop():g} ns")
    if len(lates) == 1 and None not in lates:
        extra.append(f"late thread {lates.pop()}")
    if threads is not None:
        extra.append(f"{threads} threads")
    tail = f" ({', '.join(extra)})" if extra else ""
    return f"CPU time per episode under jitter{tail}\n{_host_tag(doc)}"


def plot_jitter(doc, path):
    results = ok_results(doc, "jitter")
    if not results:
        return False
    counts = thread_counts(results)
    title = _jitter_title(doc, results, None if len(counts) > 1 else counts[0])
    ylabel = "CPU time per episode, all threads,\nexcluding the injected delay [ns]"
    if len(counts) > 1:
        return _line_plot(doc, results, lambda r: r["cpu_ns_per_episode"], path, title, ylabel)
    labels = series_labels(results)
    results = sorted(results, key=lambda r: (ORDER.get(r.get("kind"), 3), r["cpu_ns_per_episode"]))
    fig, ax = plt.subplots(figsize=(10, 5.8))
    colors = {"andgate": "tab:blue", "baseline": "tab:orange", "hw": "tab:green"}
    ys = [r["cpu_ns_per_episode"] for r in results]
    bars = ax.bar(range(len(results)), ys, color=[colors.get(r.get("kind"), "tab:gray") for r in results])
    for bar, r in zip(bars, results):
        if r.get("kind") == "baseline":
            bar.set_hatch("//")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([labels[id(r)] for r in results], rotation=35, ha="right", fontsize=8)
    positive = [y for y in ys if y > 0]
    if positive and max(positive) / min(positive) > 20:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    kinds = [k for k in colors if any(r.get("kind") == k for r in results)]
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=colors[k], edgecolor="black" if k == "baseline"
                             else colors[k], hatch="//" if k == "baseline" else None) for k in kinds]
    ax.legend(handles, kinds, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True
