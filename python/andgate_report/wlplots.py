"""The plots of workload records (workload.py), matplotlib like plots.py; each returns True, or False
without writing when there is nothing to draw.

  calls-NAME.png  per workload NAME: grouped bars of each primitive's mean ns per call (log y), one group
                  per record (implementation x threads x sched), a bar per primitive called
  makespan.png    makespan against threads (log y), a line per workload x implementation x sched policy,
                  for the workloads run at more than one thread count (the phase loop's x1, x4, x8)
"""
import re

import matplotlib.pyplot as plt

from .load import short_impl
from .plots import MARKERS, _host_tag, _oversub_marker, _thread_axis, plain_log_ticks, save
from .workload import by_workload, calls_present, label, sched_of


def calls_file(name):
    """The plot file of a workload (its name reduced to a safe file name)."""
    return f"calls-{re.sub(r'[^A-Za-z0-9_-]', '_', name)}.png"


def plot_calls(doc, name, path):
    records = by_workload(doc).get(name, [])
    calls = calls_present(records)
    if not records or not calls:
        return False
    width = 0.8 / len(calls)
    cmap = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(records) + 3), 5.8))
    for j, call in enumerate(calls):
        xs, ys = [], []
        for i, r in enumerate(records):
            c = r["workload"]["calls"].get(call, {})
            if c.get("n") and c["mean_ns"] > 0:      # a primitive never called has no mean to draw
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(c["mean_ns"])
        ax.bar(xs, ys, width, color=cmap(j % cmap.N), label=call)
    ax.set_yscale("log")
    ax.set_xticks(range(len(records)))
    ax.set_xticklabels([label(r, records) for r in records], rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("mean time per call [ns]")
    ax.set_title(f"Workload {name}: time per call of each primitive\n{_host_tag(doc)}", fontsize=10)
    ax.grid(True, axis="y", which="major", alpha=0.3)
    save(fig, ax, path)
    return True


def plot_makespan(doc, path):
    series = {}
    for name, records in by_workload(doc).items():
        if len({r["threads"] for r in records}) < 2:
            continue
        for r in records:
            key = f"{name}: {short_impl(r)} sched {sched_of(r)}"
            series.setdefault(key, {})[r["threads"]] = r["workload"]["makespan_ns"] / 1e3
    if not series:
        return False
    counts = sorted({n for pts in series.values() for n in pts})
    fig, ax = plt.subplots(figsize=(10, 5.8))
    for k, (key, pts) in enumerate(sorted(series.items())):
        xs = sorted(pts)
        ax.plot(xs, [pts[x] for x in xs], marker=MARKERS[k % len(MARKERS)], linewidth=1.6, label=key)
    ax.set_yscale("log")
    plain_log_ticks(ax)                     # makespans often lie within one decade
    _thread_axis(ax, counts)
    _oversub_marker(ax, doc, counts)
    ax.set_ylabel("makespan [us]")
    ax.set_title(f"Workload makespan against threads\n{_host_tag(doc)}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    save(fig, ax, path)
    return True


def drawers(doc):
    """[(file name, draw(path) -> bool)] of the document's workload plots."""
    out = [(calls_file(name), lambda p, name=name: plot_calls(doc, name, p)) for name in by_workload(doc)]
    return out + [("makespan.png", lambda p: plot_makespan(doc, p))]
