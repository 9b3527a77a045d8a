"""sim/validation: the shape evaluators (shapes.py) and the agreement rule of check.py, on results made
up here so that each verdict is known in advance."""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parents[2] / "sim" / "validation"
sys.path.insert(0, str(HERE))
import check  # noqa: E402
import shapes  # noqa: E402

FIGURES = json.loads((HERE / "paper_figures.json").read_text())["figures"]


def rec(spec, threads, ns):
    return {"impl": "andgate:" + spec, "threads": threads, "median_ns": ns, "min_ns": ns, "mean_ns": ns,
            "status": "ok"}


def shape(start):
    return next(f for f in FIGURES if f["kind"] == "shape" and f["statement"].startswith(start))


def verdict(start, by):
    f = shape(start)
    fn = next(fn for (p, s), fn in shapes.EVALUATORS if f["paper"] == p and f["statement"].startswith(s))
    return fn(by, f)[1]


TREE, GLOBAL = "stour:fanin=4,pad=line,wake=tree,line=64", "stour:fanin=4,pad=line,wake=global,line=64"


def test_wake_order_needs_every_machine_as_the_paper_says():
    as_paper = {"phytium2000": [rec(TREE, 64, 500), rec(GLOBAL, 64, 600)],
                "thunderx2": [rec(TREE, 64, 500), rec(GLOBAL, 64, 600)],
                "kunpeng920": [rec(TREE, 64, 600), rec(GLOBAL, 64, 500)]}
    assert verdict("ordering (no number", as_paper) == "yes"
    as_paper["kunpeng920"] = [rec(TREE, 64, 500), rec(GLOBAL, 64, 600)]
    assert verdict("ordering (no number", as_paper) == "partly"
    assert verdict("ordering (no number", {}) == "not simulated"


def test_dissemination_spikes_are_local_maxima_over_consecutive_counts():
    d = "dissemination:ways=1,pad=record,line=64"  # 002's DIS: the published flag records
    spiky = {t: 100 + (50 if t in (2, 4, 8, 16, 32) else 0) + t for t in range(2, 35)}
    steps = {t: 100 * (t - 1).bit_length() for t in range(2, 35)}
    for values, want in ((spiky, "yes"), (steps, "no")):
        by = {"kunpeng920": [rec(d, t, v) for t, v in values.items()]}
        assert verdict("DIS overhead spikes", by) == want
    assert verdict("DIS overhead spikes", {"kunpeng920": [rec(d, t, 1) for t in (2, 4, 8)]}) == "not simulated"


def test_hybrid_equal_up_to_60_and_lower_above_72():
    h, d = "hybrid:group=core,line=64", "dissemination:ways=1,line=64"
    good = [rec(h, 30, 100), rec(d, 30, 105), rec(h, 240, 700), rec(d, 240, 1000)]
    bad = [rec(h, 30, 100), rec(d, 30, 105), rec(h, 240, 1000), rec(d, 240, 980)]
    assert verdict("hybrid ~ dissemination", {"xeonphi5110p": good}) == "yes"
    assert verdict("hybrid ~ dissemination", {"xeonphi5110p": bad}) == "partly"


def test_fanin4_best_also_needs_stour_ahead_of_every_other_algorithm_002_compared():
    def machine(other, spec="dissemination:ways=1,pad=record,line=64"):
        return [rec(f"stour:fanin={k},pad=line,wake=numa,line=64", 64, v) for k, v in ((2, 700), (4, 600), (8, 800))] \
            + [rec(spec, 64, other)]
    ahead = {m: machine(900) for m in ("phytium2000", "thunderx2", "kunpeng920")}
    assert verdict("at 64 threads the padded", ahead) == "yes"
    ahead["thunderx2"] = machine(500)
    assert verdict("at 64 threads the padded", ahead) == "partly"
    # andgate's padded dissemination is not one of 002's seven as 002 built them: shown, not counted
    ahead["thunderx2"] = machine(500, "dissemination:ways=1,pad=line,line=64")
    assert verdict("at 64 threads the padded", ahead) == "yes"


def test_state_of_the_art_is_the_best_member_of_002s_set():
    sets = json.loads((HERE / "paper_figures.json").read_text())["algorithm_sets"]
    f = next(f for f in FIGURES if f["kind"] == "ratio" and f["b"].get("algorithm_set") and f["machine"] == "thunderx2")
    res = [rec("stour:fanin=4,pad=line,wake=numa,line=64", 64, 500),
           rec("tournament:wake=global,pad=record,line=64", 64, 900),
           rec("tournament:wake=tree,pad=line,line=64", 64, 400),  # not 002's TOUR: ignored
           rec("dtour:fanin=4,wake=global,line=64", 64, 800), rec("dtour:fanin=4,wake=tree,line=64", 64, 850)]
    (row,) = check.rows([f], {"thunderx2": res}, sets)
    assert "DTOUR" in row[1] and row[3] == "1.60×" and row[5] == "yes"  # 800 / 500 against 002's 1.8
    assert check.rows([f], {"thunderx2": res[:1]}, sets) == []  # no member simulated: no row


def test_agreement_rule_and_bounds():
    assert check.agrees(1.4, None) == "yes" and check.agrees(1.6, None) == "no"
    assert check.agrees(0.7, None) == "yes" and check.agrees(0.6, None) == "no"
    assert check.agrees(5.0, "lower") == "yes" and check.agrees(0.6, "lower") == "no"
    assert check.agrees(0.1, "upper") == "yes" and check.agrees(1.6, "upper") == "no"


def test_every_shape_statement_has_an_evaluator():
    for f in FIGURES:
        if f["kind"] == "shape":
            assert any(f["paper"] == p and f["statement"].startswith(s) for (p, s), _ in shapes.EVALUATORS), \
                f["statement"]


def delay_run(geomean_by_cycles):
    """EPCC results of one algorithm at two counts, every delay of 003's sweep on xeonphi5110p's clock"""
    out = []
    for c, ns in geomean_by_cycles.items():
        wait = "spin" if c == 0 else f"pause:delay_ns={round(c / 1.053)}"
        out += [dict(rec("hybrid", t, ns), wait=wait, method="epcc") for t in (8, 16)]
    return {"xeonphi5110p/epcc": out}


def test_delay_optimum_and_degradation():
    paper = {0: 900, 16: 850, 32: 820, 64: 800, 128: 810, 256: 1000, 512: 1500}
    assert verdict("spin-loop delay", delay_run(paper)) == "yes"
    early = {**paper, 16: 700}  # optimum at 16 cycles, still degrading above 128
    assert verdict("spin-loop delay", delay_run(early)) == "partly"
    flat = {**early, 256: 820, 512: 830}
    assert verdict("spin-loop delay", delay_run(flat)) == "no"
    assert verdict("spin-loop delay", {}) == "not simulated"
    # the latency results of the machine are not the sweep
    assert verdict("spin-loop delay", {"xeonphi5110p": delay_run(paper)["xeonphi5110p/epcc"]}) == "not simulated"


def test_harp_prototype_beats_neither_counting_nor_omp_significantly():
    def by(proto):
        return {"harp-broadwell": [rec("hw-harp-prototype", 28, proto), rec("counting:line=64", 28, 1500),
                                   rec("central:line=64", 28, 1600)]}
    assert verdict("hw-harp (as built", by(1400)) == "yes"   # within 10 % below counting
    assert verdict("hw-harp (as built", by(2300)) == "yes"   # behind, within 1.5x
    assert verdict("hw-harp (as built", by(1000)) == "no"    # beats both by a third
    assert verdict("hw-harp (as built", by(2500)) == "no"    # more than 1.5x the slower of the two
    assert verdict("hw-harp (as built", {}) == "not simulated"


def test_tile_spin_jitter_needs_closeness_to_16_and_a_break_above():
    def by(ts16, ts64, wait="backoff:max_ns=1463"):
        rs = [dict(rec("central:line=64", 16, ts16), wait=wait, method="jitter"),
              dict(rec("central:line=64", 64, ts64), wait=wait, method="jitter")]
        rs += [dict(rec("x", t, ns), impl="hw:hw-reflex", method="jitter") for t, ns in ((16, 50), (64, 150))]
        return {"tile64/jitter": rs}
    assert verdict("with one jittered arrival", by(60, 600)) == "yes"    # close at 16, 10x above vs Reflex 3x
    assert verdict("with one jittered arrival", by(1500, 1560)) == "no"  # far behind at 16, flat above
    assert verdict("with one jittered arrival", by(60, 150)) == "partly"  # close at 16, scales like Reflex
    assert verdict("with one jittered arrival", by(60, 600, wait="spin")) == "not simulated"  # not Tile Spin


def placement_run(curve, seeds=8, p99=1.0):
    """central spin EPCC results at 2-25 threads for `seeds` allocations, the what-if layout:
    curve(seed, threads) -> mean ns"""
    out = []
    for s in range(1, seeds + 1):
        for t in range(2, 26):
            ns = curve(s, t)
            out.append({"impl": "andgate:central:line=64", "threads": t, "median_ns": ns, "mean_ns": ns,
                        "p99_ns": ns * p99, "min_ns": ns, "status": "ok", "wait": "spin", "method": "epcc",
                        "settings": f"pin=cores,seed={s},layout=shared-first"})
    return {"xeonphi5110p/epcc/shared-first": out}


def test_tag_placement_needs_spread_between_allocations_a_straight_average_and_an_s():
    import math
    # each allocation an S (a logistic step around its own threads), shifted by the seed: the average is
    # straighter than any one of them
    def s_curve(s, t):
        return 100 * t + 400 * (1 / (1 + math.exp(-(t - 4 - 2 * s) / 1.5)))
    assert verdict("overhead depends on the address", placement_run(s_curve)) == "yes"
    # every allocation the same straight line, each noisy inside: nothing of the statement holds
    assert verdict("overhead depends on the address", placement_run(lambda s, t: 100.0 * t, p99=1.3)) == "no"
    # jagged allocations (a count-to-count zigzag): spread and a straight average, but no S
    def zigzag(s, t):
        return 300 + 100 * t + 150 * ((t * 7 + s * 3) % 5 - 2)
    assert verdict("overhead depends on the address", placement_run(zigzag)) == "partly"
    # fewer than 8 allocations: not enough to say
    assert verdict("overhead depends on the address", placement_run(s_curve, seeds=4)) == "not simulated"


def test_results_of_the_what_if_layout_are_kept_apart():
    r = {"method": "epcc", "settings": "pin=cores,seed=3,layout=shared-first"}
    assert check.bucket("xeonphi5110p", r) == "xeonphi5110p/epcc/shared-first"
    assert check.bucket("xeonphi5110p", {"method": "epcc", "settings": "seed=1"}) == "xeonphi5110p/epcc"
    assert check.bucket("knl7210", {"method": "latency"}) == "knl7210"
