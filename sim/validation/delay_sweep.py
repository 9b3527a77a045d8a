"""003's delay sweep (003 §5.3 'Sizing the Delay for Spinning'): spin-loop delays in cycles as andgate's
wait specs on a machine's clock, and the geometric-mean overhead per delay over the thread counts (003
§5.2's geomean) from `andgate sim --method epcc` results. Used by scripts/sim_experiment.sh 003-delay
and by shapes.py's verdict on the statement. Nothing here feeds the model.

    python3 sim/validation/delay_sweep.py waits MACHINE.json 0,16,32,64      the --wait list
    python3 sim/validation/delay_sweep.py table MACHINE.json RESULT.json     the Markdown table
"""
import json
import math
import sys

DELAYS = (0, 16, 32, 64, 128, 256, 512)  # cycles: 003's 0-128 sweep, extended above its 128 limit


def ghz(machine_doc):
    return machine_doc["clock"]["core"]["value"]


def wait_spec(cycles, clock_ghz):
    """0 cycles: spin (003's 'spin', no delay); else pause:delay_ns = cycles / clock, rounded to whole ns."""
    return "spin" if cycles == 0 else f"pause:delay_ns={round(cycles / clock_ghz)}"


def cycles_of(wait, clock_ghz):
    if wait == "spin":
        return 0
    if wait.startswith("pause:delay_ns="):
        return round(int(wait.split("=", 1)[1]) * clock_ghz)
    return None


def geomeans(results, clock_ghz):
    """{impl: {cycles: geomean of mean_ns over the counts}} (counts present at every delay only), plus
    'all algorithms' (the geomean of the impls' geomeans)."""
    by = {}
    for r in results:
        c = cycles_of(r.get("wait", "spin"), clock_ghz)
        if c is None or r.get("status", "ok") != "ok":
            continue
        by.setdefault(r["impl"].removeprefix("andgate:").split(":")[0], {}).setdefault(c, {})[r["threads"]] = \
            r["mean_ns"]
    out = {}
    for impl, per in by.items():
        common = set.intersection(*(set(v) for v in per.values()))
        if common:
            out[impl] = {c: math.exp(sum(math.log(v[t]) for t in common) / len(common)) for c, v in per.items()}
    if out:
        cs = set.intersection(*(set(v) for v in out.values()))
        out["all algorithms"] = {c: math.exp(sum(math.log(v[c]) for v in out.values()) / len(out)) for c in cs}
    return out


def best(per):
    return min(per, key=per.get)


def table(g):
    cs = sorted(g["all algorithms"])
    print("| algorithm | " + " | ".join(f"{c} cycles" for c in cs) + " | best |")
    print("|---|" + "---:|" * len(cs) + "---|")
    for impl, per in g.items():
        b = per[best(per)]
        cells = " | ".join(f"{per[c]:,.0f} ({per[c] / b:.2f})" for c in cs)
        print(f"| {impl} | {cells} | {best(per)} cycles |")


def main(argv):
    if len(argv) == 3 and argv[0] == "waits":
        clock = ghz(json.load(open(argv[1])))
        print(";".join(wait_spec(int(c), clock) for c in argv[2].split(",")))
        return 0
    if len(argv) == 3 and argv[0] == "table":
        clock = ghz(json.load(open(argv[1])))
        g = geomeans(json.load(open(argv[2]))["results"], clock)
        if not g:
            print("delay_sweep.py: no spin or pause:delay_ns results in " + argv[2], file=sys.stderr)
            return 1
        table(g)
        return 0
    print(__doc__.strip().splitlines()[-2:], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
