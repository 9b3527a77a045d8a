"""One CSV row per result with the schema's scalar result fields (samples_ns, an array, and a workload
record's objects os and workload are left out: the report's workload table has them).

Columns, in this fixed order (the schema's order of result properties; the C side may emit the same):

    impl, kind, threads, wait, pinning, method, median_ns, min_ns, p99_ns, mean_ns, median_cycles,
    min_cycles, p99_cycles, cpu_ns_per_episode, episodes, describe, c2c_oneway_ns, settings, ranks,
    threads_per_rank, mpi_node (bench --mpi),
    jitter_delay_ns, late, oversubscribed, status, error

A header row comes first; quoting follows RFC 4180 (Python's csv module, "\\r\\n" line ends). A field a
result does not have is an empty cell (no defaults are filled in: a missing method is empty, not
"latency"); booleans are written true/false; numbers as in the JSON.

A preload document (andgate bench --preload) has its own columns, PRELOAD_COLUMNS: a row per app record
(record "app", plain/preloaded = median wall times, unit "s", speedup), then a row per construct record
(record "construct", plain/preloaded = runtime_ns/shim_ns, unit "ns", ratio).
"""
import csv
import io

COLUMNS = ("impl", "kind", "threads", "wait", "pinning", "method", "median_ns", "min_ns", "p99_ns",
           "mean_ns", "median_cycles", "min_cycles", "p99_cycles", "cpu_ns_per_episode", "episodes",
           "describe", "c2c_oneway_ns", "settings", "ranks", "threads_per_rank", "mpi_node", "jitter_delay_ns", "late",
           "oversubscribed", "status", "error")
PRELOAD_COLUMNS = ("record", "name", "compiler", "runtime", "bind", "threads", "command", "plain", "preloaded",
                   "unit", "speedup", "ratio", "output_identical", "status", "error")


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def write_csv(doc, f):
    """Write the CSV of doc's results to the text file object f (open it with newline="")."""
    w = csv.writer(f)
    if doc.get("mode") == "preload":
        w.writerow(PRELOAD_COLUMNS)
        rows = [dict(r, record="app", name=r.get("app"), plain=r.get("median_plain_s"),
                     preloaded=r.get("median_preload_s"), unit="s") for r in doc.get("apps", [])]
        rows += [dict(r, record="construct", name=r["construct"], plain=r.get("runtime_ns"),
                      preloaded=r.get("shim_ns"), unit="ns") for r in doc.get("constructs", [])]
        for r in rows:
            w.writerow([_cell(r.get(c)) for c in PRELOAD_COLUMNS])
        return
    w.writerow(COLUMNS)
    for r in doc.get("results", []):
        w.writerow([_cell(r.get(c)) for c in COLUMNS])


def to_csv(doc):
    buf = io.StringIO(newline="")
    write_csv(doc, buf)
    return buf.getvalue()
