"""Generating the report directory: the plots (plots.py) and index.html (htmlpage.py).

    generate(doc, out_dir, cdf_threads=None) -> list of the file names written into out_dir

Files: index.html, latency.png, cdf.png, jitter.png, epcc.png, hw.png (a plot is left out when the
document has nothing for it: no jitter results, no epcc results, no samples_ns, no hardware barrier beside
an andgate algorithm); for workload records (andgate sim --workload) calls-NAME.png per workload and
makespan.png (wlplots.py); for a preload document
(andgate bench --preload) index.html, speedup.png, constructs.png (preload.py).
"""
import sys
from pathlib import Path

from . import htmlpage, plots, preload, wlplots
from .load import ok_results


def pick_cdf_threads(doc, requested=None, warn=True):
    """requested when some latency result at that count has samples; otherwise (with a warning when
    one was requested) plots.default_cdf_threads(doc)."""
    if requested is not None:
        if any(r["threads"] == requested and r.get("samples_ns") for r in ok_results(doc, "latency")):
            return requested
        fallback = plots.default_cdf_threads(doc)
        if warn:
            print(f"andgate_report: no latency samples at {requested} threads; CDF at {fallback} "
                  "threads instead", file=sys.stderr)
        return fallback
    return plots.default_cdf_threads(doc)


def generate(doc, out_dir, cdf_threads=None):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if preload.is_preload(doc):
        drawers = [("speedup.png", lambda p: preload.plot_speedup(doc, p)),
                   ("constructs.png", lambda p: preload.plot_constructs(doc, p))]
    else:
        cdf = pick_cdf_threads(doc, cdf_threads)
        drawers = [("latency.png", lambda p: plots.plot_latency(doc, p)),
                   ("cdf.png", lambda p: cdf is not None and plots.plot_cdf(doc, p, cdf)),
                   ("jitter.png", lambda p: plots.plot_jitter(doc, p)),
                   ("epcc.png", lambda p: plots.plot_epcc(doc, p)),
                   ("hw.png", lambda p: plots.plot_hw(doc, p))] + wlplots.drawers(doc)
    written = []
    for name, draw in drawers:
        if draw(out / name):
            written.append(name)
    # a stale plot from an earlier run (of either kind) would contradict this report
    ours = {"latency.png", "cdf.png", "jitter.png", "epcc.png", "hw.png", "makespan.png", *preload.PLOTS}
    ours |= {p.name for p in out.glob("calls-*.png")}
    for name in ours - set(written):
        if (out / name).exists():
            (out / name).unlink()
    page = preload.render(doc, written) if preload.is_preload(doc) else htmlpage.render(doc, written, cdf)
    (out / "index.html").write_text(page, encoding="utf-8")
    return ["index.html"] + written
