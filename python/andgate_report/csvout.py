"""One CSV row per result with the schema's scalar result fields (samples_ns, an array, is left out).

Columns, in this fixed order (the schema's order of result properties; the C side may emit the same):

    impl, kind, threads, wait, pinning, method, median_ns, min_ns, p99_ns, mean_ns, median_cycles,
    min_cycles, p99_cycles, cpu_ns_per_episode, episodes, describe, c2c_oneway_ns, settings,
    jitter_delay_ns, late, oversubscribed, status, error

A header row comes first; quoting follows RFC 4180 (Python's csv module, "\\r\\n" line ends). A field a
result does not have is an empty cell (no defaults are filled in: a missing method is empty, not
"latency"); booleans are written true/false; numbers as in the JSON.
"""
import csv
import io

COLUMNS = ("impl", "kind", "threads", "wait", "pinning", "method", "median_ns", "min_ns", "p99_ns",
           "mean_ns", "median_cycles", "min_cycles", "p99_cycles", "cpu_ns_per_episode", "episodes",
           "describe", "c2c_oneway_ns", "settings", "jitter_delay_ns", "late", "oversubscribed", "status", "error")


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def write_csv(doc, f):
    """Write the CSV of doc's results to the text file object f (open it with newline="")."""
    w = csv.writer(f)
    w.writerow(COLUMNS)
    for r in doc.get("results", []):
        w.writerow([_cell(r.get(c)) for c in COLUMNS])


def to_csv(doc):
    buf = io.StringIO(newline="")
    write_csv(doc, buf)
    return buf.getvalue()
