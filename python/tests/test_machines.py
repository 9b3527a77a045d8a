"""Machine descriptions of `andgate sim` (sim/machines/*.json): every file validates against
sim/machines/schema.json, every number carries a source, and the topology is consistent (level counts
multiply to the hardware threads, every layer the map names exists, mesh/ring coordinates are in range and
unique). Malformed copies are refused with a message that names the field. The format is described in
sim/machines/README.md; `check_machine` holds the rules a JSON Schema cannot state."""
import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest

MACHINES = Path(__file__).resolve().parents[2] / "sim" / "machines"
SCHEMA = json.loads((MACHINES / "schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
EXPECTED = {"phytium2000", "thunderx2", "kunpeng920", "xeonphi5110p", "knl7210", "xeon8160x8",
            "opteron6272x4", "harp-broadwell", "tile64", "noc64"}
FILES = sorted(p for p in MACHINES.glob("*.json") if p.name != "schema.json")

QUANTITY_KEYS = {"value", "unit", "source", "clock", "note"}
REF = re.compile(r"\[ref:([^\]\s]+)\]")
SEED = re.compile(r"^(00[0-4]) ")
INTEGER_UNITS = {"count", "bytes", "bits", "flits"}
TIME_UNITS = {"ns", "cycles"}


def load(name):
    return json.loads((MACHINES / f"{name}.json").read_text())


# ------------------------------------------------------------------------------------------ rules


from andgate_report.load import _json_path as _path  # one JSON-path formatter for both validators


def _is_quantity(node):
    return isinstance(node, dict) and "value" in node and "unit" in node and set(node) <= QUANTITY_KEYS


def _walk(node, parts=()):
    """Yield (parts, node) for every node, depth first."""
    yield parts, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, parts + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, parts + (i,))


def _coordinates_path(parts):
    return len(parts) >= 3 and parts[:3] == ("interconnect", "coordinates", "positions")


def schema_errors(doc):
    return [f"{_path(e.absolute_path)}: {e.message}" for e in
            sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))]


def _source_errors(doc):
    errors = []
    refs = doc.get("references", {}) if isinstance(doc.get("references"), dict) else {}
    for parts, node in _walk(doc):
        # a bare number is a parameter without a source, except coordinate integers (structural data;
        # their list carries one source) and the value field of a quantity
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            if _coordinates_path(parts):
                continue
            if parts and parts[-1] == "value" and _is_quantity(_get(doc, parts[:-1])):
                continue
            errors.append(f"{_path(parts)}: number without a source "
                          f"(write {{\"value\", \"unit\", \"source\"}})")
        if isinstance(node, dict) and "value" in node and not isinstance(node.get("source"), str):
            errors.append(f"{_path(parts)}.source: quantity without a source")
        if isinstance(node, str) and parts and parts[-1] in ("source", "note", "description"):
            for key in REF.findall(node):
                if key not in refs:
                    errors.append(f"{_path(parts)}: unknown reference [ref:{key}] (add it to $.references)")
            if parts[-1] == "source":
                m = SEED.match(node)
                if m and m.group(1) not in refs:
                    errors.append(f"{_path(parts)}: seed paper {m.group(1)} cited but not in $.references")
                if node.startswith(("vendor doc: ", "literature: ")) and not REF.search(node):
                    errors.append(f"{_path(parts)}: a vendor doc or literature source must name its page "
                                  f"as [ref:KEY]")
    return errors


def _get(doc, parts):
    node = doc
    for p in parts:
        node = node[p]
    return node


def _units(levels):
    """Number of units of each level in the whole machine (global count)."""
    out, n = [], 1
    for lv in levels:
        n *= lv["count"]["value"]
        out.append(n)
    return out


def thread_units(doc, t):
    """Indices of hardware thread t at every level, outermost first (mixed radix, see README)."""
    counts = [lv["count"]["value"] for lv in doc["topology"]["levels"]]
    digits = []
    for c in reversed(counts):
        digits.append(t % c)
        t //= c
    return list(reversed(digits))


def _global_unit(doc, t, level_index):
    counts = [lv["count"]["value"] for lv in doc["topology"]["levels"]]
    digits = thread_units(doc, t)
    g = 0
    for i in range(level_index + 1):
        g = g * counts[i] + digits[i]
    return g


def layer_of(doc, a, b):
    """Latency layer between hardware threads a and b (README 'Which layer a pair uses')."""
    lm = doc["layer_map"]
    if a == b:
        return lm["self"]
    levels = doc["topology"]["levels"]
    da, db = thread_units(doc, a), thread_units(doc, b)
    first_diff = next(i for i in range(len(levels)) if da[i] != db[i])
    um = lm.get("unit_matrix")
    if um:
        k = [lv["name"] for lv in levels].index(um["level"])
        if first_diff <= k:
            return um["layers"][_global_unit(doc, a, k)][_global_unit(doc, b, k)]
    shared = "machine" if first_diff == 0 else levels[first_diff - 1]["name"]
    return lm["by_shared_level"][shared]


def check_machine(doc, name=None):
    """Every rule a JSON Schema cannot state; returns messages '<json path>: <what is wrong>'."""
    errors = _source_errors(doc)
    if name is not None and doc.get("name") != name:
        errors.append(f"$.name: '{doc.get('name')}' differs from the file name '{name}'")

    clocks = set(doc.get("clock", {}))
    for parts, node in _walk(doc):
        if _is_quantity(node):
            v, unit = node["value"], node["unit"]
            if unit in INTEGER_UNITS and isinstance(v, (int, float)) and v != int(v):
                errors.append(f"{_path(parts)}.value: {v} is not a whole number of {unit}")
            if isinstance(v, (int, float)) and v < 0:
                errors.append(f"{_path(parts)}.value: negative")
            if unit == "cycles" and node.get("clock", "core") not in clocks:
                errors.append(f"{_path(parts)}.clock: clock domain '{node.get('clock', 'core')}' is not in "
                              f"$.clock")

    topo = doc["topology"]
    levels = topo["levels"]
    names = [lv["name"] for lv in levels]
    if len(set(names)) != len(names):
        errors.append("$.topology.levels: level names repeat")
    if names[0] != "socket" or names[-2:] != ["core", "smt"]:
        errors.append("$.topology.levels: the first level must be 'socket' and the last two 'core', 'smt'")
    for i, lv in enumerate(levels):
        c = lv["count"]["value"]
        if lv["count"]["unit"] != "count" or c < 1 or c != int(c):
            errors.append(f"$.topology.levels[{i}].count: must be a positive whole count")
    product = 1
    for lv in levels:
        product *= lv["count"]["value"]
    ht = topo["hardware_threads"]["value"]
    if product != ht:
        formula = " x ".join(f"{lv['name']} {lv['count']['value']:g}" for lv in levels)
        errors.append(f"$.topology.hardware_threads: {ht:g} differs from the product of the level counts "
                      f"({formula} = {product:g})")
    units = dict(zip(names, _units(levels)))

    for i, c in enumerate(doc.get("caches", [])):
        if c["shared_by"] not in names:
            errors.append(f"$.caches[{i}].shared_by: '{c['shared_by']}' is not a topology level")

    layers = doc["latency_layers"]
    ids = [ly["id"] for ly in layers]
    if len(set(ids)) != len(ids):
        errors.append("$.latency_layers: layer ids repeat")
    for i, ly in enumerate(layers):
        q = ly["latency"] if ly["kind"] == "fixed" else ly["base"]
        if q["unit"] not in TIME_UNITS:
            errors.append(f"$.latency_layers[{i}]: latency unit must be ns or cycles, not {q['unit']}")
    known = set(ids)
    used = set()

    lm = doc["layer_map"]
    if lm["self"] not in known:
        errors.append(f"$.layer_map.self: layer '{lm['self']}' is not in $.latency_layers")
    used.add(lm["self"])
    bsl = lm.get("by_shared_level", {})
    for key, lid in bsl.items():
        if key != "machine" and key not in names[:-1]:
            errors.append(f"$.layer_map.by_shared_level.{key}: not a topology level (other than smt) "
                          f"nor 'machine'")
        if lid not in known:
            errors.append(f"$.layer_map.by_shared_level.{key}: layer '{lid}' is not in $.latency_layers")
        used.add(lid)
    um = lm.get("unit_matrix")
    matrix_level = None
    if um:
        if um["level"] not in names[:-1]:
            errors.append(f"$.layer_map.unit_matrix.level: '{um['level']}' is not a topology level "
                          f"(other than smt)")
        else:
            matrix_level = names.index(um["level"])
            n = units[um["level"]]
            rows = um["layers"]
            if len(rows) != n or any(len(r) != n for r in rows):
                errors.append(f"$.layer_map.unit_matrix.layers: must be {n:g} x {n:g} (one row and column "
                              f"per {um['level']})")
            else:
                for i in range(n):
                    for j in range(n):
                        cell = rows[i][j]
                        where = f"$.layer_map.unit_matrix.layers[{i}][{j}]"
                        if i == j and cell is not None:
                            errors.append(f"{where}: the diagonal must be null (same unit: by_shared_level)")
                        elif i != j and cell not in known:
                            errors.append(f"{where}: layer '{cell}' is not in $.latency_layers")
                        elif i != j and cell != rows[j][i]:
                            errors.append(f"{where}: not symmetric with [{j}][{i}]")
                        if i != j and cell is not None:
                            used.add(cell)
    # every innermost shared level a pair can have must map to a layer
    for k in range(-1, len(levels) - 1):
        if levels[k + 1]["count"]["value"] <= 1:
            continue            # no two threads differ first at level k+1
        key = "machine" if k < 0 else names[k]
        covered = matrix_level is not None and k < matrix_level
        if not covered and key not in bsl:
            errors.append(f"$.layer_map.by_shared_level.{key}: missing; threads sharing only a {key} "
                          f"need a layer")

    inv = doc["coherence"]["invalidation"]
    if inv["model"] == "alpha":
        alpha = inv.get("alpha", {})
        for lid, q in alpha.items():
            if lid not in known:
                errors.append(f"$.coherence.invalidation.alpha.{lid}: layer '{lid}' is not in "
                              f"$.latency_layers")
            elif not 0 <= q["value"] <= 1:
                errors.append(f"$.coherence.invalidation.alpha.{lid}: 002 bounds alpha to [0, 1]")
        for lid in sorted(used - {lm["self"]}):
            if lid not in alpha:
                errors.append(f"$.coherence.invalidation.alpha.{lid}: missing for layer '{lid}'")

    for lid in ids:
        if lid not in used:
            errors.append(f"$.latency_layers: layer '{lid}' is defined but no pair uses it")

    errors += _interconnect_errors(doc, names, units, known)
    errors += _contention_errors(doc, names, known)
    return errors


def _contention_errors(doc, names, known):
    """issue 12 item 1's optional contention parts: link ports, three-leg home nodes, SMT issue share
    (the C loader refuses the same, sim/machine_contention.c)."""
    errors = []
    for i, link in enumerate(doc.get("interconnect", {}).get("links", [])):
        if link["between"] not in names:
            errors.append(f"$.interconnect.links[{i}].between: '{link['between']}' is not a topology level")
        if link["transfer"]["unit"] not in TIME_UNITS:
            errors.append(f"$.interconnect.links[{i}].transfer: must be a time (ns or cycles)")
        if "count" in link and (link["count"]["unit"] != "count" or link["count"]["value"] < 1):
            errors.append(f"$.interconnect.links[{i}].count: a port needs at least one link")
    co = doc["coherence"]
    leg = co.get("three_leg")
    if leg:
        if "attach_level" in doc.get("interconnect", {}):
            errors.append("$.coherence.three_leg: for machines of fixed layers (a noc layer's via_home path "
                          "already passes the home)")
        if leg["level"] not in names:
            errors.append(f"$.coherence.three_leg.level: '{leg['level']}' is not a topology level")
        if leg["base"] not in known:
            errors.append(f"$.coherence.three_leg.base: layer '{leg['base']}' is not in $.latency_layers")
    for key in ("cold_transfer", "paused_transfer"):
        for lid, q in co.get(key, {}).items():
            if lid not in known:
                errors.append(f"$.coherence.{key}.{lid}: layer '{lid}' is not in $.latency_layers")
            elif q["unit"] not in TIME_UNITS or q["value"] <= 0:
                errors.append(f"$.coherence.{key}.{lid}: a positive time (ns or cycles)")
    smt = co.get("smt_issue")
    if smt and not (smt["share"]["unit"] == "ratio" and 0 <= smt["share"]["value"] <= 1):
        errors.append("$.coherence.smt_issue.share: a ratio in [0, 1]")
    return errors


def _interconnect_errors(doc, names, units, known):
    errors = []
    ic = doc.get("interconnect")
    noc_layers = [ly["id"] for ly in doc["latency_layers"] if ly["kind"] == "noc"]
    has_coords = ic is not None and "coordinates" in ic
    if not noc_layers and not has_coords:
        return errors
    if ic is None:
        return [f"$.interconnect: required by noc layer(s) {noc_layers}"]
    for field in ("attach_level", "dims", "coordinates", "hop"):
        if field not in ic:
            errors.append(f"$.interconnect.{field}: required when a layer is of kind noc or coordinates "
                          f"are given")
    if errors:
        return errors
    if ic["attach_level"] not in names:
        return [f"$.interconnect.attach_level: '{ic['attach_level']}' is not a topology level"]
    dims = [d["value"] for d in ic["dims"]]
    kind = ic["kind"]
    want = 2 if kind in ("mesh", "concentrated-mesh") else 1
    if len(dims) != want:
        errors.append(f"$.interconnect.dims: a {kind} has {want} dimension(s)")
        return errors
    positions = ic["coordinates"]["positions"]
    n = units[ic["attach_level"]]
    if len(positions) != n:
        errors.append(f"$.interconnect.coordinates.positions: {len(positions)} positions for {n:g} "
                      f"{ic['attach_level']} units")
    seen = {}
    for i, p in enumerate(positions):
        where = f"$.interconnect.coordinates.positions[{i}]"
        if len(p) != want:
            errors.append(f"{where}: needs {want} coordinate(s)")
            continue
        if any(c >= d for c, d in zip(p, dims)):
            errors.append(f"{where}: {p} is outside dims {[int(d) for d in dims]}")
        if tuple(p) in seen:
            errors.append(f"{where}: {p} repeats position of unit {seen[tuple(p)]}")
        seen.setdefault(tuple(p), i)
    if units[ic["attach_level"]] > 1 and ic.get("bidirectional") is None:
        errors.append("$.interconnect.bidirectional: required with coordinates")
    return errors


def all_errors(doc, name=None):
    errs = schema_errors(doc)
    if errs:                    # rules below assume the shape the schema guarantees
        return errs + [e for e in _source_errors(doc) if e not in errs]
    return check_machine(doc, name)


def hops(doc, u, v):
    """Hops between attach units u and v (README 'NoC layers')."""
    ic = doc["interconnect"]
    a, b = ic["coordinates"]["positions"][u], ic["coordinates"]["positions"][v]
    if len(a) == 2:
        return abs(a[0] - b[0]) + abs(a[1] - b[1])
    n = ic["dims"][0]["value"]
    d = (b[0] - a[0]) % n
    return min(d, n - d) if ic.get("bidirectional", True) else d


# ------------------------------------------------------------------------------------------ tests


def test_all_machines_present():
    names = {p.stem for p in FILES}
    assert EXPECTED <= names, f"missing: {sorted(EXPECTED - names)}"


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"].endswith("2020-12/schema")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_machine_validates(path):
    doc = json.loads(path.read_text())
    assert schema_errors(doc) == []
    assert check_machine(doc, path.stem) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_number_has_a_source(path):
    doc = json.loads(path.read_text())
    count = 0
    for parts, node in _walk(doc):
        if isinstance(node, (int, float)) and not isinstance(node, bool) and not _coordinates_path(parts):
            assert parts[-1] == "value", _path(parts)
            q = _get(doc, parts[:-1])
            assert isinstance(q.get("source"), str) and len(q["source"]) >= 8, _path(parts)
            count += 1
    assert count >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_pair_has_a_layer_and_every_layer_a_pair(path):
    doc = json.loads(path.read_text())
    n = int(doc["topology"]["hardware_threads"]["value"])
    ids = {ly["id"] for ly in doc["latency_layers"]}
    seen = set()
    probe = range(n) if n <= 64 else sorted(set(range(0, n, 7)) | {0, 1, n - 1})
    for a in probe:
        for b in range(n):
            lid = layer_of(doc, a, b)
            assert lid in ids, (a, b, lid)
            seen.add(lid)
    assert seen == ids


def test_layer_examples():
    phy = load("phytium2000")         # threads = (((panel*2 + group)*4 + core)
    assert layer_of(phy, 0, 0) == "eps"
    assert layer_of(phy, 0, 3) == "L0"      # same core group
    assert layer_of(phy, 0, 4) == "L1"      # same panel, other group
    assert layer_of(phy, 0, 8) == "L2"      # panel 0 - panel 1 (002 Table I)
    assert layer_of(phy, 0, 63) == "L8"     # panel 0 - panel 7
    assert layer_of(phy, 8, 16) == layer_of(phy, 16, 8) == "L4"     # panels 1, 2: 1 XOR 2 = 3
    tx2 = load("thunderx2")           # thread = (socket*32 + core)*4 + smt
    assert [layer_of(tx2, 0, b) for b in (1, 4, 128)] == ["smt", "L0", "L1"]
    kp = load("kunpeng920")
    assert [layer_of(kp, 0, b) for b in (1, 4, 32)] == ["L0", "L1", "L2"]
    xeon = load("xeon8160x8")         # thread = (socket*24 + core)*2 + smt
    assert [layer_of(xeon, 0, 48 * s) for s in range(8)] == [
        "smt", "upi1", "upi2", "upi2", "upi1", "upi2", "upi2", "upi1"]
    opt = load("opteron6272x4")       # die of thread t = t // 8
    assert [layer_of(opt, 0, b) for b in (1, 2, 8, 16, 32)] == ["module", "die", "ht1", "ht1", "ht2"]


def test_noc_distances():
    knl = load("knl7210")
    pos = knl["interconnect"]["coordinates"]["positions"]
    assert max(hops(knl, 0, v) for v in range(len(pos))) <= 10
    knc = load("xeonphi5110p")
    assert hops(knc, 0, 59) == 1 and hops(knc, 0, 30) == 30 and hops(knc, 10, 50) == 20
    tile = load("tile64")
    assert hops(tile, 0, 63) == 14 and hops(tile, 9, 18) == 2


def test_validation_only_figures_are_not_model_inputs():
    # published barrier-derived figures live under validation_only, apart from the model's parameters
    for name in ("harp-broadwell", "noc64"):
        doc = load(name)
        assert "validation_only" in doc
        for parts, node in _walk({k: v for k, v in doc.items() if k != "validation_only"}):
            if isinstance(node, str) and parts[-1] == "source":
                assert "Table XI" not in node and "3000+" not in node, _path(parts)


# ------------------------------------------------------------------- malformed copies are refused


def refused(doc, *needles):
    errs = all_errors(doc, doc.get("name"))
    assert errs, "malformed copy accepted"
    text = "\n".join(errs)
    for needle in needles:
        assert needle in text, f"{needle!r} not named in:\n{text}"
    return errs


def test_missing_field_is_refused():
    doc = load("kunpeng920")
    del doc["clock"]
    refused(doc, "'clock' is a required property")
    doc = load("kunpeng920")
    del doc["topology"]["levels"][1]["count"]
    refused(doc, "$.topology.levels[1]", "'count' is a required property")


def test_number_without_source_is_refused():
    doc = load("thunderx2")
    doc["clock"]["core"] = 2.5
    refused(doc, "$.clock.core", "number without a source")
    doc = load("thunderx2")
    del doc["latency_layers"][2]["latency"]["source"]
    refused(doc, "$.latency_layers[2]", "source")
    doc = load("thunderx2")
    doc["latency_layers"][3]["latency"]["source"] = "measured somewhere"
    refused(doc, "$.latency_layers[3].latency.source")


def test_vendor_source_without_page_is_refused():
    doc = load("thunderx2")
    doc["topology"]["levels"][2]["count"]["source"] = "vendor doc: the product brief"
    refused(doc, "$.topology.levels[2].count.source", "[ref:KEY]")
    doc = load("thunderx2")
    doc["topology"]["levels"][2]["count"]["source"] = "vendor doc: brief [ref:nowhere]"
    refused(doc, "unknown reference [ref:nowhere]")


def test_inconsistent_count_is_refused():
    doc = load("phytium2000")
    doc["topology"]["hardware_threads"]["value"] = 65
    refused(doc, "$.topology.hardware_threads", "product of the level counts")
    doc = load("xeon8160x8")
    doc["topology"]["levels"][1]["count"]["value"] = 28
    refused(doc, "$.topology.hardware_threads", "socket 8 x core 28 x smt 2 = 448")


def test_unknown_or_missing_layer_is_refused():
    doc = load("kunpeng920")
    doc["layer_map"]["by_shared_level"]["sccl"] = "L9"
    refused(doc, "$.layer_map.by_shared_level.sccl", "'L9' is not in $.latency_layers")
    doc = load("kunpeng920")
    del doc["layer_map"]["by_shared_level"]["ccl"]
    refused(doc, "$.layer_map.by_shared_level.ccl: missing")
    doc = load("phytium2000")
    doc["layer_map"]["unit_matrix"]["layers"][2][5] = "L42"
    refused(doc, "$.layer_map.unit_matrix.layers[2][5]")
    doc = load("phytium2000")
    doc["layer_map"]["unit_matrix"]["layers"].pop()
    refused(doc, "$.layer_map.unit_matrix.layers: must be 8 x 8")
    doc = load("thunderx2")
    doc["coherence"]["invalidation"]["alpha"]["Lx"] = doc["coherence"]["invalidation"]["alpha"].pop("L1")
    refused(doc, "$.coherence.invalidation.alpha.Lx", "$.coherence.invalidation.alpha.L1: missing")


def test_bad_coordinates_are_refused():
    doc = load("knl7210")
    doc["interconnect"]["coordinates"]["positions"][3] = [6, 0]
    refused(doc, "$.interconnect.coordinates.positions[3]", "outside dims")
    doc = load("tile64")
    doc["interconnect"]["coordinates"]["positions"][5] = [0, 0]
    refused(doc, "$.interconnect.coordinates.positions[5]", "repeats position of unit 0")
    doc = load("xeonphi5110p")
    doc["interconnect"]["coordinates"]["positions"].pop()
    refused(doc, "$.interconnect.coordinates.positions: 59 positions for 60 core units")
    doc = load("noc64")
    del doc["interconnect"]["hop"]
    refused(doc, "$.interconnect.hop: required")


def test_unknown_clock_domain_is_refused():
    doc = load("noc64")
    doc["interconnect"]["hop"]["router"]["clock"] = "uncore"
    refused(doc, "$.interconnect.hop.router.clock", "'uncore'")


def test_name_must_match_file():
    doc = load("tile64")
    assert check_machine(doc, "tile64") == []
    assert any(e.startswith("$.name") for e in check_machine(doc, "tile-64"))


def test_contention_parts_are_checked():
    doc = load("xeon8160x8")
    doc["interconnect"]["links"][0]["between"] = "quadrant"
    doc["coherence"]["three_leg"]["base"] = "upi9"
    doc["coherence"]["smt_issue"]["share"]["value"] = 1.5
    refused(doc, "$.interconnect.links[0].between", "$.coherence.three_leg.base", "$.coherence.smt_issue.share")
