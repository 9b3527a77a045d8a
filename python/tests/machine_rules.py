"""The rules of a machine description of `andgate sim` (sim/machines/*.json) that a JSON Schema cannot
state, and reference implementations of the pair-to-layer and hop-count rules (sim/machines/README.md).
`all_errors` is schema.json and then `check_machine`; both return messages '<json path>: <what is
wrong>'. Used by test_machines.py and by tests/info_measure.sh on what `andgate info --measure` writes."""
import json
import re
from pathlib import Path

import jsonschema

from andgate_report.load import _json_path as json_path  # one JSON-path formatter for both validators

MACHINES = Path(__file__).resolve().parents[2] / "sim" / "machines"
SCHEMA = json.loads((MACHINES / "schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

QUANTITY_KEYS = {"value", "unit", "source", "clock", "note"}
REF = re.compile(r"\[ref:([^\]\s]+)\]")
SEED = re.compile(r"^(00[0-4]) ")
INTEGER_UNITS = {"count", "bytes", "bits", "flits"}
TIME_UNITS = {"ns", "cycles"}


def _is_quantity(node):
    return isinstance(node, dict) and "value" in node and "unit" in node and set(node) <= QUANTITY_KEYS


def walk(node, parts=()):
    """Yield (parts, node) for every node, depth first."""
    yield parts, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from walk(v, parts + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, parts + (i,))


def in_coordinates(parts):
    return len(parts) >= 3 and parts[:3] == ("interconnect", "coordinates", "positions")


def schema_errors(doc):
    return [f"{json_path(e.absolute_path)}: {e.message}" for e in
            sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))]


def _source_errors(doc):
    errors = []
    refs = doc.get("references", {}) if isinstance(doc.get("references"), dict) else {}
    for parts, node in walk(doc):
        # a bare number is a parameter without a source, except coordinate integers (structural data;
        # their list carries one source) and the value field of a quantity
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            if in_coordinates(parts):
                continue
            if parts and parts[-1] == "value" and _is_quantity(node_at(doc, parts[:-1])):
                continue
            errors.append(f"{json_path(parts)}: number without a source "
                          f"(write {{\"value\", \"unit\", \"source\"}})")
        if isinstance(node, dict) and "value" in node and not isinstance(node.get("source"), str):
            errors.append(f"{json_path(parts)}.source: quantity without a source")
        if isinstance(node, str) and parts and parts[-1] in ("source", "note", "description"):
            for key in REF.findall(node):
                if key not in refs:
                    errors.append(f"{json_path(parts)}: unknown reference [ref:{key}] (add it to $.references)")
            if parts[-1] == "source":
                m = SEED.match(node)
                if m and m.group(1) not in refs:
                    errors.append(f"{json_path(parts)}: seed paper {m.group(1)} cited but not in $.references")
                if node.startswith(("vendor doc: ", "literature: ")) and not REF.search(node):
                    errors.append(f"{json_path(parts)}: a vendor doc or literature source must name its page "
                                  f"as [ref:KEY]")
    return errors


def node_at(doc, parts):
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
    errors += _quantity_errors(doc)

    levels = doc["topology"]["levels"]
    names = [lv["name"] for lv in levels]
    errors += _topology_errors(doc["topology"])
    units = dict(zip(names, _units(levels)))
    for i, c in enumerate(doc.get("caches", [])):
        if c["shared_by"] not in names:
            errors.append(f"$.caches[{i}].shared_by: '{c['shared_by']}' is not a topology level")

    layers = doc["latency_layers"]
    errors += _latency_layer_errors(layers)
    ids = [ly["id"] for ly in layers]
    known = set(ids)
    map_errors, used = _layer_map_errors(doc["layer_map"], levels, units, known)
    errors += map_errors
    errors += _alpha_errors(doc["coherence"]["invalidation"], known, used - {doc["layer_map"]["self"]})
    for lid in ids:
        if lid not in used:
            errors.append(f"$.latency_layers: layer '{lid}' is defined but no pair uses it")

    errors += _interconnect_errors(doc, names, units, known)
    errors += _contention_errors(doc, names, known)
    return errors


def _quantity_errors(doc):
    """Quantities: whole numbers of whole units, none negative, cycles of a clock domain $.clock defines."""
    errors = []
    clocks = set(doc.get("clock", {}))
    for parts, node in walk(doc):
        if _is_quantity(node):
            v, unit = node["value"], node["unit"]
            if unit in INTEGER_UNITS and isinstance(v, (int, float)) and v != int(v):
                errors.append(f"{json_path(parts)}.value: {v} is not a whole number of {unit}")
            if isinstance(v, (int, float)) and v < 0:
                errors.append(f"{json_path(parts)}.value: negative")
            if unit == "cycles" and node.get("clock", "core") not in clocks:
                errors.append(f"{json_path(parts)}.clock: clock domain '{node.get('clock', 'core')}' is not in "
                              f"$.clock")
    return errors


def _topology_errors(topo):
    """Levels socket ... core, smt of distinct names and positive whole counts, whose product is the
    hardware threads (thread_units reads a thread's units as the digits of that mixed radix)."""
    errors = []
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
    product = _units(levels)[-1]
    ht = topo["hardware_threads"]["value"]
    if product != ht:
        formula = " x ".join(f"{lv['name']} {lv['count']['value']:g}" for lv in levels)
        errors.append(f"$.topology.hardware_threads: {ht:g} differs from the product of the level counts "
                      f"({formula} = {product:g})")
    return errors


def _latency_layer_errors(layers):
    errors = []
    ids = [ly["id"] for ly in layers]
    if len(set(ids)) != len(ids):
        errors.append("$.latency_layers: layer ids repeat")
    for i, ly in enumerate(layers):
        q = ly["latency"] if ly["kind"] == "fixed" else ly["base"]
        if q["unit"] not in TIME_UNITS:
            errors.append(f"$.latency_layers[{i}]: latency unit must be ns or cycles, not {q['unit']}")
    return errors


def _layer_map_errors(lm, levels, units, known):
    """The layer map names only known layers, by_shared_level only levels a pair can share last, and
    every such level has a layer. Returns (errors, the set of layers some pair uses)."""
    errors, used = [], {lm["self"]}
    names = [lv["name"] for lv in levels]
    if lm["self"] not in known:
        errors.append(f"$.layer_map.self: layer '{lm['self']}' is not in $.latency_layers")
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
            errors += _unit_matrix_errors(um, units[um["level"]], known, used)
    # every innermost shared level a pair can have must map to a layer
    for k in range(-1, len(levels) - 1):
        if levels[k + 1]["count"]["value"] <= 1:
            continue            # no two threads differ first at level k+1
        key = "machine" if k < 0 else names[k]
        covered = matrix_level is not None and k < matrix_level
        if not covered and key not in bsl:
            errors.append(f"$.layer_map.by_shared_level.{key}: missing; threads sharing only a {key} "
                          f"need a layer")
    return errors, used


def _unit_matrix_errors(um, n, known, used):
    """An n x n matrix over the units of its level: null diagonal, known layers, symmetric. Adds the
    layers of its cells off the diagonal to used."""
    errors = []
    rows = um["layers"]
    if len(rows) != n or any(len(r) != n for r in rows):
        return [f"$.layer_map.unit_matrix.layers: must be {n:g} x {n:g} (one row and column "
                f"per {um['level']})"]
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
    return errors


def _alpha_errors(inv, known, pair_layers):
    """Under the alpha invalidation model: an alpha in 002's [0, 1] for every layer in pair_layers (the
    layers between two distinct threads), and none for an unknown layer."""
    errors = []
    if inv["model"] != "alpha":
        return errors
    alpha = inv.get("alpha", {})
    for lid, q in alpha.items():
        if lid not in known:
            errors.append(f"$.coherence.invalidation.alpha.{lid}: layer '{lid}' is not in "
                          f"$.latency_layers")
        elif not 0 <= q["value"] <= 1:
            errors.append(f"$.coherence.invalidation.alpha.{lid}: 002 bounds alpha to [0, 1]")
    for lid in sorted(pair_layers):
        if lid not in alpha:
            errors.append(f"$.coherence.invalidation.alpha.{lid}: missing for layer '{lid}'")
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
