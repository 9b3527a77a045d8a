"""Simulated results beside the papers' own figures (paper_figures.json in this directory).

    python3 sim/validation/check.py RESULT.json [RESULT.json ...]

Each RESULT.json is an `andgate sim` result file; its machine is read from host.model ("sim: NAME
(...)"); results of another method than latency, or of the what-if layout, are kept apart (bucket():
only shape evaluators that ask for them read them). For every figure of kind `value` or `ratio` whose
algorithms are andgate's and were simulated at the figure's thread count, prints a Markdown row: the paper's number, the simulated one, their
quotient, and whether they agree (within AGREE of each other; a bound "≥ x" agrees when the
simulation is at least x / AGREE, "≤ x" when at most x · AGREE). Papers that report minimum times (000)
are compared with the simulated minimum, the others (002: means) with the simulated mean. Then every
shape statement (a crossover, spike or ordering; shapes.py) with what the simulation shows and a
verdict, and a count of each verdict. scripts/sim_validate.sh runs the simulations this needs.
Nothing here feeds the model: it only reads results.
"""
import json
import pathlib
import re
import sys

from shapes import best_of_set, evaluate, figures_doc, plainest

AGREE = 1.5
BOUND_MARK = {"upper": "≤ ", "lower": "≥ "}  # how a bound figure's value is shown
UNIT_NS = {"ns": 1.0, "us": 1000.0, "µs": 1000.0, "ms": 1e6}


def machine_of(doc):
    m = re.match(r"sim: (\S+)", doc["host"]["model"])
    return m.group(1) if m else None


def bucket(machine, r):
    """Where a result is kept: MACHINE for latency results, MACHINE/METHOD for another method (003's EPCC
    delay sweep), with /shared-first appended for a what-if layout (003's placement sweep): only shape
    evaluators that ask for these read them."""
    method = r.get("method", "latency")
    layout = "/shared-first" if "layout=shared-first" in r.get("settings", "") else ""
    return machine + ("" if method == "latency" else "/" + method) + layout


def find(results, algorithm, spec, threads):
    """The result of `algorithm` (a base name; `spec` may add key=value pairs it must carry) at threads,
    the plainest (the algorithm's defaults) when several carry the pairs."""
    pairs = spec.split(":", 1)[1] if spec and ":" in spec else ""
    return plainest(results, f"{algorithm}:{pairs}" if pairs else algorithm, threads)


def stat(fig, r):
    return r["min_ns"] if fig["paper"] == "000" else r.get("mean_ns", r["median_ns"])


def rows(figures, by_machine, sets=None):
    out = []
    for f in figures:
        res = by_machine.get(f.get("machine"))
        if res is None:
            continue
        if f["kind"] == "value" and isinstance(f.get("algorithm"), str) and isinstance(f.get("threads"), int):
            r = find(res, f["algorithm"], f.get("algorithm_spec"), f["threads"])
            if r is None:
                continue
            paper = f.get("value_ns_derived") or f["value"] * UNIT_NS.get(f["unit"], float("nan"))
            sim = stat(f, r)
            bound = BOUND_MARK.get(f.get("bound"), "")
            out.append(row(f, f"{f['algorithm_paper']} ({f['algorithm']}), {f['threads']} threads",
                           f"{bound}{paper:,.0f} ns", f"{sim:,.0f} ns", sim / paper))
        elif f["kind"] == "ratio" and f.get("form") == "speedup":
            a, b = f["a"], f["b"]
            if b.get("algorithm_set") and isinstance(a.get("algorithm"), str) and sets:
                out.extend(set_ratio(f, res, sets[b["algorithm_set"]]))
                continue
            if not (isinstance(a.get("algorithm"), str) and isinstance(b.get("algorithm"), str)):
                continue
            if not (isinstance(a.get("threads"), int) and isinstance(b.get("threads"), int)):
                continue
            if a.get("machine") != f["machine"] or b.get("machine") != f["machine"]:
                continue
            ra = find(res, a["algorithm"], a.get("algorithm_spec"), a["threads"])
            rb = find(res, b["algorithm"], b.get("algorithm_spec"), b["threads"])
            if ra is None or rb is None:
                continue
            sim = stat(f, rb) / stat(f, ra)
            bound = BOUND_MARK.get(f.get("bound"), "")
            out.append(row(f, f"{b['algorithm']} / {a['algorithm']} at {a['threads']} threads",
                           f"{bound}{f['value']:g}×", f"{sim:.2f}×", sim / f["value"]))
    return out


def set_ratio(f, res, algorithm_set):
    """A speedup of a over the best member of an algorithm set (002 Table IV's 'state-of-the-art')."""
    a = f["a"]
    ra = find(res, a["algorithm"], a.get("algorithm_spec"), a["threads"])
    best = best_of_set(res, algorithm_set["members"], f["b"]["threads"], key=lambda r: stat(f, r))
    if ra is None or best is None:
        return []
    sim = stat(f, best[1]) / stat(f, ra)
    return [row(f, f"best of {f['b']['algorithm_set']} ({best[0]}: {best[1]['impl'].split(':', 1)[1]}) / "
                f"{a['algorithm']} at {a['threads']} threads", f"{f['value']:g}×", f"{sim:.2f}×", sim / f["value"])]


def row(f, what, paper, sim, q):
    """One table row of figure f: machine, what, the paper's and the simulated text, sim / paper, whether
    they agree, the source."""
    return (f["machine"], what, paper, sim, q, agrees(q, f.get("bound")), f["paper"], f["where"].split(":")[0])


def agrees(q, bound):
    """sim / paper within AGREE; for a lower bound at least 1 / AGREE, for an upper bound at most AGREE."""
    low, high = 1 / AGREE, AGREE
    if bound == "lower":
        high = float("inf")
    elif bound == "upper":
        low = 0.0
    return "yes" if low <= q <= high else "no"


def main(argv):
    figures, sets = figures_doc()["figures"], figures_doc().get("algorithm_sets", {})
    by_machine = {}
    for path in argv:
        doc = json.loads(pathlib.Path(path).read_text())
        for r in doc["results"]:
            by_machine.setdefault(bucket(machine_of(doc), r), []).append(r)
    tally = {}
    print(f"| machine | figure | paper | sim | sim / paper | agrees (within {AGREE:g}×) | source |")
    print("|---|---|---:|---:|---:|---|---|")
    for m, what, p, s, q, ok, paper, where in rows(figures, by_machine, sets):
        tally[ok] = tally.get(ok, 0) + 1
        print(f"| {m} | {what} | {p} | {s} | {q:.2f} | {ok} | {paper} {where} |")
    print()
    print("| paper | machine | statement | simulated | agrees |")
    print("|---|---|---|---|---|")
    for paper, where, statement, shown, verdict in evaluate(figures, by_machine):
        tally[verdict] = tally.get(verdict, 0) + 1
        print(f"| {paper} | {where} | {statement} | {shown} | {verdict} |")
    print()
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
