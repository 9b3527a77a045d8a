"""The text summary (--summary): per thread count of method latency, the best andgate impl against the
best baseline (and the best hardware barrier in sim results) and the core-to-core limit; per thread
count of method jitter, the CPU time per episode of the best andgate impl against gomp; where the run
has auto beside fixed specs, auto's worst regret (rank.auto_regret); then a line per workload record
(andgate sim --workload), labelled "workload NAME" (workload.summary_lines).

The rows come from rank.latency_summary / rank.jitter_summary; this module only words them. A preload
document (andgate bench --preload) gets preload.summary_lines: its apps and constructs tables.
"""
from . import preload
from .fmt import fmt_ns
from .rank import auto_regret, jitter_summary, latency_summary
from .workload import summary_lines as workload_lines


def _faster(ratio, who, than=""):
    if ratio >= 1:
        return f"{who} {ratio:.2f}x faster{than}"
    return f"{who} {1 / ratio:.2f}x slower{than}"


def latency_line(row):
    parts = []
    if row["best_andgate"] is not None:
        parts.append(f"best andgate {row['best_andgate']} {fmt_ns(row['andgate_ns'])} ns")
    if row["best_baseline"] is not None:
        parts.append(f"best baseline {row['best_baseline']} {fmt_ns(row['baseline_ns'])} ns")
    if row["best_hw"] is not None:
        parts.append(f"best hw {row['best_hw']} {fmt_ns(row['hw_ns'])} ns")
    if row["speedup"]:
        parts.append(_faster(row["speedup"], "andgate"))
    if row["hw_speedup"]:
        parts.append(_faster(row["hw_speedup"], "hw", " than andgate"))
    if row["andgate_c2c"] is not None:
        parts.append(f"andgate = {row['andgate_c2c']:.2f}x c2c one-way")
    over = " (oversubscribed)" if row["oversubscribed"] else ""
    return f"threads {row['threads']}{over}: " + " | ".join(parts)


def jitter_line(row):
    parts = []
    if row["best_andgate"] is not None:
        parts.append(f"best andgate {row['best_andgate']} {fmt_ns(row['andgate_cpu_ns'])} CPU ns/episode")
    if row["gomp_cpu_ns"] is not None:
        parts.append(f"gomp {fmt_ns(row['gomp_cpu_ns'])} CPU ns/episode")
    if row["gomp_ratio"]:
        r = row["gomp_ratio"]
        parts.append(f"andgate uses {r:.2f}x less CPU" if r >= 1 else f"andgate uses {1 / r:.2f}x more CPU")
    return f"jitter threads {row['threads']}: " + " | ".join(parts)


def summary_lines(doc):
    if preload.is_preload(doc):
        return preload.summary_lines(doc)
    lines = [latency_line(r) for r in latency_summary(doc)]
    lines += [jitter_line(r) for r in jitter_summary(doc)]
    regret = [r for r in auto_regret(doc) if r["regret"] is not None]
    if regret:
        worst = max(regret, key=lambda r: r["regret"])
        means = [r for r in regret if r["regret_mean"] is not None]
        wm = max(means, key=lambda r: r["regret_mean"]) if means else None
        mean_part = f"; by the mean: worst {wm['regret_mean']:.2f} at {wm['threads']} threads" if wm else ""
        lines.append(f"auto: worst regret {worst['regret']:.2f} at {worst['threads']} threads "
                     f"(chose {worst['auto']}, best fixed {worst['best']}) over {len(regret)} counts{mean_part}"
                     + (f" (each the average of {worst['seeds']} seeds)" if worst["seeds"] > 1 else ""))
    return lines + workload_lines(doc)
