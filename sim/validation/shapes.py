"""The papers' shape statements (paper_figures.json, kind "shape") checked against simulated results.

A shape is a crossover, a spike or an ordering with a thread count but no latency. Each entry of
EVALUATORS names the statement by its paper and the first words of its `statement`, and evaluates it
on the results of one or more machines: it returns (what the simulation shows, verdict), the verdict
"yes", "no", "partly" or "not simulated" (the results lack what the statement needs, or andgate has
no counterpart). "Equal" means within EQUAL of each other; "lower" means lower by more than that.
Nothing here feeds the model.
"""

import functools
import json
import pathlib

import delay_sweep
import placement

EQUAL = 0.10  # two overheads "the same" when within 10 % of each other
FIGURES_FILE = pathlib.Path(__file__).resolve().parent / "paper_figures.json"


@functools.lru_cache(maxsize=None)
def figures_doc():
    """paper_figures.json, read once (check.py and the evaluators here share it)."""
    return json.loads(FIGURES_FILE.read_text())


def algorithm_set(name):
    """An algorithm set of paper_figures.json ("algorithm_sets"): its members, each a paper name and specs."""
    return figures_doc()["algorithm_sets"][name]["members"]


def _impl(r):
    """The impl less its kind ("andgate:", "hw:"): the spec as simulated."""
    return r["impl"].split(":", 1)[1] if ":" in r["impl"] else r["impl"]


def matching(results, spec, threads):
    """The ok results at `threads` whose impl is `spec`'s algorithm carrying every key=value pair spec
    names (the others at any value: the defaults filled in, or any variant)."""
    name, _, params = spec.partition(":")
    want = [kv for kv in params.split(",") if kv]
    for r in results:
        n, _, p = _impl(r).partition(":")
        if n == name and r["threads"] == threads and r.get("status", "ok") == "ok" and \
                all(kv in p.split(",") for kv in want):
            yield r


def plainest(results, spec, threads):
    """The matching result with the shortest impl (the algorithm's defaults), or None."""
    return min(matching(results, spec, threads), key=lambda r: len(r["impl"]), default=None)


def lat(results, spec, threads):
    """Median of the plainest result matching `spec`, or None."""
    r = plainest(results, spec, threads)
    return r["median_ns"] if r else None


def best_of_set(results, members, threads, key=lambda r: r["median_ns"], skip=()):
    """The lowest result at `threads` of any member of an algorithm set (paper_figures.json
    "algorithm_sets"): (the member's paper name, the result), or None. A member counts every result
    matching one of its specs; members named in `skip` do not."""
    found = [(mem["paper"], r) for mem in members if mem["paper"] not in skip
             for spec in mem["specs"] for r in matching(results, spec, threads)]
    return min(found, key=lambda pr: key(pr[1]), default=None)


def counts(results, spec):
    return sorted({r["threads"] for r in results if lat(results, spec, r["threads"]) is not None})


def _verdict(oks):
    oks = [o for o in oks if o is not None]
    if not oks:
        return "not simulated"
    return "yes" if all(oks) else "no" if not any(oks) else "partly"


def _equal(a, b):
    return abs(a - b) <= EQUAL * min(a, b)


def dis_spikes(by, f):
    """Local maxima of 002's DIS (its spec in the 002-section-IV set) over consecutive counts, per machine."""
    dis = next(mem["specs"][0] for mem in algorithm_set("002-section-IV") if mem["paper"] == "DIS")
    shown, oks = [], []
    for m in f["machines"]:
        res = by.get(m)
        if not res:
            continue
        ts = counts(res, dis)
        run = [t for i, t in enumerate(ts) if t == ts[0] + i]  # the consecutive counts from the first
        if len(run) < 5:
            continue  # spikes need every count of a range
        ts = run
        v = {t: lat(res, dis, t) for t in ts}
        spikes = [t for t in ts[1:-1] if v[t] > v[t - 1] and v[t] > v[t + 1]]
        steps = [t for t in ts[1:] if v[t] > 1.15 * v[t - 1]]
        shown.append(f"{m}: local maxima {spikes or 'none'}, jumps at {steps}")
        oks.append(set(spikes) >= set(t for t in f["threads"] if ts[0] < t < ts[-1]))
    return "; ".join(shown) or "-", _verdict(oks)


def mcs_above_cmb(by, f):
    shown, oks = [], []
    for m in ("phytium2000", "thunderx2", "kunpeng920"):
        res = by.get(m)
        if not res:
            continue
        for t in (16, 32, 64):
            a, b = lat(res, "mcs", t), lat(res, "combining:arity=2", t)
            if a is None or b is None:
                continue
            shown.append(f"{m} {t}: mcs {a:.0f} vs cmb {b:.0f}")
            oks.append(a > b)
    return "; ".join(shown) or "-", _verdict(oks)


def _limit(text):
    """'<16' -> counts below 16; '<=32' -> up to 32."""
    return (lambda t: t <= int(text[2:])) if text.startswith("<=") else (lambda t: t < int(text[1:]))


def equal_below(by, f):
    res = by.get(f["machine"])
    if not res:
        return "-", "not simulated"
    a, b = f["algorithm_spec"]
    inside = _limit(f["threads"])
    shown, oks = [], []
    for t in counts(res, a):
        if t < 2 or not inside(t) or lat(res, b, t) is None:
            continue
        x, y = lat(res, a, t), lat(res, b, t)
        shown.append(f"{t}: {x:.0f} / {y:.0f}")
        oks.append(_equal(x, y))
    if not shown:
        return "-", "not simulated"
    return f"{a.split('wake=')[-1]} / {b.split('wake=')[-1]}: " + ", ".join(shown), _verdict(oks)


def wake_order(by, f):
    shown, oks = [], []
    want = {"phytium2000": "tree", "thunderx2": "tree", "kunpeng920": "global"}
    for m, w in want.items():
        res = by.get(m)
        if not res:
            continue
        tree = lat(res, "stour:fanin=4,pad=line,wake=tree", 64)
        glob = lat(res, "stour:fanin=4,pad=line,wake=global", 64)
        if tree is None or glob is None:
            continue
        got = "tree" if tree < glob else "global"
        shown.append(f"{m} 64: tree {tree:.0f}, global {glob:.0f}")
        oks.append(got == w)
    return "; ".join(shown) or "-", _verdict(oks)


def _same_then_lower(res, a, b, upto, beyond, margin):
    """(shown, verdict): b equal to a at counts up to `upto`, lower than a by more than `margin` where
    beyond(t)."""
    shown, oks = [], []
    for t in counts(res, a):
        x, y = lat(res, a, t), lat(res, b, t)
        if t < 2 or y is None:
            continue
        if t <= upto:
            oks.append(_equal(x, y))
        elif beyond(t):
            oks.append(y < x * (1 - margin))
        else:
            continue
        shown.append(f"{t}: {a.split(':')[0]} {x:.0f} / {b.split(':')[0]} {y:.0f}")
    return ", ".join(shown) or "-", _verdict(oks)


def numa_scales(by, f):
    res = by.get(f["machine"])
    if not res:
        return "-", "not simulated"
    a, b = f["algorithm_spec"]  # binary tree, NUMA-aware tree: equal up to the count, NUMA lower at 64
    return _same_then_lower(res, a, b, int(f["threads"][2:]), lambda t: t == 64, 0)


def numa_offset(by, f):
    res = by.get(f["machine"])
    if not res:
        return "-", "not simulated"
    shown, oks = [], []
    for t in (4, 8, 16):
        x = lat(res, "stour:fanin=4,pad=line,wake=tree", t)
        y = lat(res, "stour:fanin=4,pad=line,wake=numa", t)
        if x is None or y is None:
            continue
        shown.append(f"{t}: numa {y:.0f} vs tree {x:.0f}")
        oks.append(y <= x * (1 + EQUAL))
    return ", ".join(shown) or "-", _verdict(oks)


def fanin4_best(by, f):
    shown, oks = [], []
    for m in f["machines"]:
        res = by.get(m)
        if not res:
            continue
        v = {k: lat(res, f"stour:fanin={k},pad=line,wake=numa", 64) for k in (2, 4, 8)}
        v["4 packed"] = lat(res, "stour:fanin=4,pad=packed,wake=numa", 64)
        v = {k: x for k, x in v.items() if x is not None}
        if len(v) < 2:
            continue
        best = min(v, key=v.get)
        # the statement is 002's: stour against the other algorithms 002 compared, as 002 built them
        rival = best_of_set(res, algorithm_set("002-section-IV"), 64, skip=("STOUR",))
        others = [(a, x) for a, x in _rivals(res) if not a.startswith("stour")]
        padded = min(others, key=lambda p: p[1]) if others else None
        shown.append(f"{m}: best fan-in {best} ({v[best]:.0f})" +
                     (f", best other of 002 §IV {rival[0]} {rival[1]['median_ns']:.0f}" if rival else "") +
                     (f" (of andgate's algorithms: {padded[0]} {padded[1]:.0f})" if padded else ""))
        oks.append(best == 4 and (rival is None or v[4] < rival[1]["median_ns"]))
    return "; ".join(shown) or "-", _verdict(oks)


def _rivals(res, threads=64):
    out = {}
    for r in res:
        if r["threads"] == threads and r.get("status", "ok") == "ok" and r["impl"].startswith("andgate:"):
            name = _impl(r).split(":")[0]
            if name not in out or r["median_ns"] < out[name]:
                out[name] = r["median_ns"]
    return list(out.items())


def hybrid_vs_dissem(by, f):
    res = by.get(f["machine"])
    if not res:
        return "-", "not simulated"
    th = f["threads"]
    return _same_then_lower(res, "dissemination:ways=1", "hybrid", th["similar_up_to"],
                            lambda t: t > th["hybrid_lower_above"], EQUAL)


def _lats_at(res, specs, threads):
    """The latencies of `specs` at `threads` in the results `res`, or None where one is missing."""
    v = [lat(res, s, threads) for s in specs]
    return None if None in v else v


def harp_close_to_omp(by, f):
    v = _lats_at(by.get(f["machine"], []), ("central", "tournament", "counting"), 28)
    if v is None:
        return "-", "not simulated"
    c, t_, k = v
    ok = t_ >= c * (1 - EQUAL) and k >= c * (1 - EQUAL) and t_ <= 1.5 * c and k <= 1.5 * c
    return f"central {c:.0f}, tournament {t_:.0f}, counting {k:.0f}", "yes" if ok else "no"


def harp_prototype_close(by, f):
    """000 §3.3: no configuration of the measured HARP barrier beats counting or OMP significantly — the
    prototype device (hw-harp-prototype) at 28 threads is not below either by more than EQUAL, and, as
    "~" says, within 1.5x of them (the tolerance of harp_close_to_omp)."""
    v = _lats_at(by.get(f["machine"], []), ("hw-harp-prototype", "counting", "central"), 28)
    if v is None:
        return "-", "not simulated"
    p, k, c = v
    ok = p >= (1 - EQUAL) * min(k, c) and p <= 1.5 * max(k, c)
    return f"28 threads: hw-harp-prototype {p:.0f}, counting {k:.0f}, central {c:.0f}", "yes" if ok else "no"


def delay_optimum(by, f):
    """003 §5.3: the delay sweep (`by[MACHINE/epcc]`, scripts/sim_validate.sh) has its lowest geomean over
    the algorithms at 64 cycles, and 256 and 512 cycles cost more than 128 by more than EQUAL."""
    res = by.get(f["machine"] + "/epcc")
    if not res:
        return "-", "not simulated"
    machine = pathlib.Path(__file__).resolve().parents[1] / "machines" / (f["machine"] + ".json")
    g = delay_sweep.geomeans(res, delay_sweep.ghz(json.loads(machine.read_text()))).get("all algorithms", {})
    if not {64, 128, 256, 512} <= set(g):
        return "-", "not simulated"
    b = delay_sweep.best(g)
    shown = ("geomean EPCC overhead over the algorithms and counts: " +
             ", ".join(f"{c} cycles {v:,.0f}" for c, v in sorted(g.items())) + f"; lowest at {b} cycles")
    return shown, _verdict([b == 64, g[256] > g[128] * (1 + EQUAL) and g[512] > g[128] * (1 + EQUAL)])


def tile_spin_jitter(by, f):
    """001 §V, Fig. 8 (`by["tile64/jitter"]`, scripts/sim_validate.sh): the Tile Spin stand-in (central
    waiting with backoff, Tilera's spin barrier) is "performing well" with Reflex up to 16 cores — within
    1.5x of Reflex there — and "dropped severely" above while Reflex "continued to scale": its growth from
    16 to 64 cores more than 1.5x Reflex's."""
    res = [r for r in by.get(f["machine"] + "/jitter", []) if r["impl"].startswith("hw:") or
           str(r.get("wait", "")).startswith("backoff")]
    v, w = (_lats_at(res, ("hw-reflex", "central"), t) for t in (16, 64))
    if v is None or w is None:
        return "-", "not simulated"
    (r16, t16), (r64, t64) = v, w
    shown = f"Reflex 16: {r16:.0f}, 64: {r64:.0f}; Tile Spin (central, backoff) 16: {t16:.0f}, 64: {t64:.0f}"
    return shown, _verdict([t16 <= 1.5 * r16, t64 / t16 > 1.5 * (r64 / r16)])


def tag_placement(by, f):
    """003 §5.3, Fig. 6 (`by["MACHINE/epcc/shared-first"]`, scripts/sim_validate.sh: central on EPCC at 2-60
    threads, one run per seed = per allocation, the barrier's lines at one address for every count as in
    003's code): negligible spread inside an allocation (p99 / median within EQUAL), a significant one
    between allocations (max / min beyond 1 + EQUAL), the average over them (003's re-launched runs)
    straighter than any single allocation, and some allocation S-shaped (a cubic removes at least half
    of its deviation from a straight line: placement.py)."""
    sm = placement.summary(by.get(f["machine"] + "/epcc/shared-first", []))
    if sm is None:
        return "-", "not simulated"
    return placement.describe(sm), _verdict([sm["within"] <= EQUAL, sm["between"] > EQUAL,
                                             sm["r2_average"] > max(sm["r2"].values()),
                                             max(sm["s_share"].values()) >= 0.5])


def not_modeled(why):
    return lambda by, f: (why, "not simulated")


# (paper, first words of the statement) -> evaluator
EVALUATORS = [
    (("002", "DIS overhead spikes"), dis_spikes),
    (("002", "MCS overhead > CMB"), mcs_above_cmb),
    (("002", "global and binary-tree wake-up have equal"), equal_below),
    (("002", "ordering (no number other than the machines)"), wake_order),
    (("002", "binary-tree and NUMA-aware-tree wake-up have the same"), numa_scales),
    (("002", "NUMA-aware tree's extra child wake-ups"), numa_offset),
    (("002", "at 64 threads the padded static tournament"), fanin4_best),
    (("003", "hybrid ~ dissemination"), hybrid_vs_dissem),
    (("003", "spin-loop delay"), delay_optimum),
    (("003", "overhead depends on the address"), tag_placement),
    (("000", "at 28 threads on HARP, Tournament and Counting"), harp_close_to_omp),
    (("000", "hw-harp (as built"), harp_prototype_close),
    (("000", "at 4 threads UMsg/UMsgH"), not_modeled("hw-harp has one arrival path")),
    (("001", "with one jittered arrival"), tile_spin_jitter),
]


def evaluate(figures, by_machine):
    """Rows (paper, machine, statement, simulated, verdict) for every shape figure."""
    out = []
    for f in figures:
        if f["kind"] != "shape":
            continue
        ev = next((fn for (p, start), fn in EVALUATORS if f["paper"] == p and f["statement"].startswith(start)),
                  None)
        shown, verdict = ev(by_machine, f) if ev else ("-", "not simulated")
        where = f.get("machine") or ", ".join(f.get("machines", [])) or "-"
        out.append((f["paper"], where, f["statement"], shown, verdict))
    return out
