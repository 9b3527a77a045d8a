"""Simulated results beside the papers' own figures (paper_figures.json in this directory).

    python3 sim/validation/check.py RESULT.json [RESULT.json ...]

Each RESULT.json is an `andgate sim` result file; its machine is read from host.model ("sim: NAME
(...)"). For every figure of kind `value` or `ratio` whose algorithms are andgate's and were simulated
at the figure's thread count, prints a Markdown row: the paper's number, the simulated one, their
quotient. Papers that report minimum times (000) are compared with the simulated minimum, the others
(002: means) with the simulated mean. Nothing here feeds the model: it only reads results.
"""
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
UNIT_NS = {"ns": 1.0, "us": 1000.0, "µs": 1000.0, "ms": 1e6}


def machine_of(doc):
    m = re.match(r"sim: (\S+)", doc["host"]["model"])
    return m.group(1) if m else None


def find(results, algorithm, spec, threads):
    """The result of `algorithm` (a base name; `spec` may add key=value pairs it must carry) at threads."""
    want = [kv for kv in (spec.split(":", 1)[1].split(",") if spec and ":" in spec else []) if kv]
    best = None
    for r in results:
        impl = r["impl"].split(":", 1)[1] if ":" in r["impl"] else r["impl"]
        name, _, params = impl.partition(":")
        have = params.split(",") if params else []
        if name == algorithm and r["threads"] == threads and r.get("status", "ok") == "ok" and \
                all(kv in have for kv in want):
            # prefer the plainest match (the algorithm's defaults) when several carry the pairs
            if best is None or len(r["impl"]) < len(best["impl"]):
                best = r
    return best


def stat(fig, r):
    return r["min_ns"] if fig["paper"] == "000" else r.get("mean_ns", r["median_ns"])


def rows(figures, by_machine):
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
            out.append((f["machine"], f"{f['algorithm_paper']} ({f['algorithm']}), {f['threads']} threads",
                        f"{paper:,.0f} ns", f"{sim:,.0f} ns", sim / paper, f["paper"], f["where"].split(":")[0]))
        elif f["kind"] == "ratio" and f.get("form") == "speedup":
            a, b = f["a"], f["b"]
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
            bound = {"upper": "≤ ", "lower": "≥ "}.get(f.get("bound"), "")
            out.append((f["machine"], f"{b['algorithm']} / {a['algorithm']} at {a['threads']} threads",
                        f"{bound}{f['value']:g}×", f"{sim:.2f}×", sim / f["value"], f["paper"],
                        f["where"].split(":")[0]))
    return out


def main(argv):
    figures = json.loads((HERE / "paper_figures.json").read_text())["figures"]
    by_machine = {}
    for path in argv:
        doc = json.loads(pathlib.Path(path).read_text())
        by_machine.setdefault(machine_of(doc), []).extend(doc["results"])
    print("| machine | figure | paper | sim | sim / paper | source |")
    print("|---|---|---:|---:|---:|---|")
    for m, what, p, s, q, paper, where in rows(figures, by_machine):
        print(f"| {m} | {what} | {p} | {s} | {q:.2f} | {paper} {where} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
