"""Command line: python3 -m andgate_report RESULT.json [--out DIR] [--cdf-threads N] [--summary]
[--validate] [--csv FILE] [--compare OTHER.json [--floor]] [--markdown [--method M]]

The file is always validated against schema.json first; an invalid file is refused (its errors printed
to stderr, exit 1) whatever else was asked. --validate alone prints "valid" and exits 0 for a valid
file, or prints each error with its JSON path and exits 1. With no action (--out, --summary, --csv,
--validate) the summary is printed.

A file that cannot be read (missing, not UTF-8, not JSON) is refused like an invalid one: one line,
exit 1. A bad command line, and an --out or --csv that cannot be written, get one line and exit 2.
"""
import argparse
import sys

from .compare import compare_lines, pivot_lines
from .csvout import write_csv
from .load import c2c_median, load, validate
from .report import generate
from .summary import summary_lines
from .workload import markdown_lines as workload_markdown


def _load_valid(path, errors_to_stdout):
    """The document at path, or None after printing why it cannot be read or is not valid."""
    try:
        doc = load(path)
    except (OSError, ValueError) as err:   # ValueError: not JSON (json.JSONDecodeError), not UTF-8 text
        print(f"{path}: {err}", file=sys.stderr)
        return None
    errors = validate(doc)
    if errors and errors_to_stdout:  # --validate: every error, one a line, on stdout
        for msg in errors:
            print(msg)
    elif errors:                     # a refusal: one line, the first error and how many follow
        more = f" (and {len(errors) - 1} more: --validate lists them)" if len(errors) > 1 else ""
        print(f"{path}: not a valid andgate result: {errors[0]}{more}", file=sys.stderr)
    return None if errors else doc


class _Parser(argparse.ArgumentParser):
    """argparse refusing a bad command line as the andgate commands do: one line on stderr, exit 2
    (argparse's own error() prints the whole usage first)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} ({self.prog} --help lists the options)\n")


def _written(prog, option, path, write):
    """True after write(); False after one line saying why the output at path (a user's --out or --csv)
    could not be written: a bad path is bad usage, not a traceback."""
    try:
        write()
        return True
    except OSError as err:
        where = "" if str(err.filename or path) == str(path) else f" ({err.filename})"
        print(f"{prog}: {option} {path}: cannot write{where}: {err.strerror or err}", file=sys.stderr)
        return False


def _write_csv(doc, path):
    with open(path, "w", newline="", encoding="utf-8") as f:
        write_csv(doc, f)


def _thread_count(text):
    """--cdf-threads: a thread count, 1..4096 as the commands take them (0: the default)"""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 4096:
        raise argparse.ArgumentTypeError(f"expected a thread count in 0..4096, got '{text}'")
    return n


def _parser():
    ap = _Parser(prog="python3 -m andgate_report",
                 description="Render an andgate bench/sim/bench --preload result JSON.")
    ap.add_argument("result", help="result JSON written by andgate bench (also --preload) or andgate sim")
    ap.add_argument("--out", metavar="DIR", help="write index.html and PNG plots into DIR")
    ap.add_argument("--cdf-threads", type=_thread_count, metavar="N",
                    help="thread count of the latency CDF plot (default: the largest thread count "
                         "<= cpus_usable that has samples)")
    ap.add_argument("--summary", action="store_true", help="print the best andgate vs best baseline "
                    "per thread count")
    ap.add_argument("--validate", action="store_true", help="validate against schema.json")
    ap.add_argument("--csv", metavar="FILE", help="write one CSV row per result")
    ap.add_argument("--compare", metavar="OTHER", help="print a Markdown table of this file's medians "
                    "against OTHER's (e.g. andgate sim on host against andgate bench) with their ratios")
    ap.add_argument("--floor", action="store_true", help="with --compare: subtract from each of this file's "
                    "medians its impl's 1-thread median (the harness's stamps and call path, which a simulated "
                    "episode does not contain)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table of the medians of one "
                    "method (--method): a row per impl, a column per thread count; then a table per workload "
                    "(andgate sim --workload records)")
    ap.add_argument("--method", default="latency", choices=("latency", "epcc", "jitter"),
                    help="the method of --markdown's table (default latency)")
    return ap


def main(argv=None):
    ap = _parser()
    args = ap.parse_args(argv)
    if args.floor and not args.compare:
        ap.error("--floor goes with --compare")

    doc = _load_valid(args.result, args.validate)
    if doc is None:
        return 1
    if args.validate:
        print("valid")

    if (args.compare or args.markdown or args.cdf_threads) and doc["mode"] == "preload":
        print(f"{args.result}: --compare, --markdown and --cdf-threads are for bench and sim results, "
              "not preload results", file=sys.stderr)
        return 2
    if args.compare:
        other = _load_valid(args.compare, False)
        if other is None:
            return 1
        for line in compare_lines(doc, other, args.floor):
            print(line)
    if args.markdown:
        barrier = pivot_lines(doc, args.method)
        # a document of workload records alone has no barrier table: print only the workloads'
        for line in (barrier if len(barrier) > 2 else []) + workload_markdown(doc):
            print(line)
    summary = args.summary or not (args.out or args.csv or args.validate or args.compare or args.markdown)
    files = []
    if args.out and not _written(ap.prog, "--out", args.out,
                                 lambda: files.extend(generate(doc, args.out, args.cdf_threads))):
        return 2
    if args.out:
        print(f"wrote {', '.join(files)} to {args.out}", file=sys.stderr)
    if args.csv and not _written(ap.prog, "--csv", args.csv, lambda: _write_csv(doc, args.csv)):
        return 2
    if summary:
        c2c = c2c_median(doc)
        c2c_text = f", c2c one-way median {c2c:g} ns" if c2c else ", no c2c one-way median"
        print(f"{doc['host']['model']} ({doc['mode']}, {doc['host']['cpus_usable']} usable CPUs"
              f"{'' if doc['mode'] == 'preload' else c2c_text})")
        for line in summary_lines(doc):
            print(line)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:            # e.g. piped into head
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
