"""andgate_report — renders andgate result JSON (andgate bench, andgate bench --preload and andgate sim
share one schema, schema.json) into an HTML report with plots, a text summary and CSV.

    python3 -m andgate_report RESULT.json [--out DIR] [--cdf-threads N] [--summary] [--validate] [--csv FILE]

Modules: load (reading, validation, defaults), rank (rankings and summary rows), summary (summary
text), plots (PNG plots), htmlpage (index.html), report (the report directory), csvout (CSV); preload
(the tables, plots, page and CSV of `andgate bench --preload` results, mode "preload"); workload (the
records of `andgate sim --workload`: their table, section, summary and Markdown), wlplots (their plots),
paper004 (004's published figures the workloads are read against).
"""
from .csvout import COLUMNS as CSV_COLUMNS, to_csv, write_csv
from .load import load, validate
from .rank import jitter_summary, latency_summary, ranking
from .report import generate
from .summary import summary_lines

__all__ = ["CSV_COLUMNS", "generate", "jitter_summary", "latency_summary", "load", "ranking",
           "summary_lines", "to_csv", "validate", "write_csv"]
