"""Machine descriptions of `andgate sim` (sim/machines/*.json): every file validates against
sim/machines/schema.json, every number carries a source, and the topology is consistent (level counts
multiply to the hardware threads, every layer the map names exists, mesh/ring coordinates are in range and
unique). Malformed copies are refused with a message that names the field. The format is described in
sim/machines/README.md; the rules a JSON Schema cannot state are `check_machine` in machine_rules.py."""
import json

import jsonschema
import pytest

from machine_rules import (MACHINES, SCHEMA, all_errors, check_machine, hops, in_coordinates, json_path,
                           layer_of, node_at, schema_errors, walk)

EXPECTED = {"phytium2000", "thunderx2", "kunpeng920", "xeonphi5110p", "knl7210", "xeon8160x8",
            "opteron6272x4", "harp-broadwell", "tile64", "noc64"}
FILES = sorted(p for p in MACHINES.glob("*.json") if p.name != "schema.json")


def load(name):
    return json.loads((MACHINES / f"{name}.json").read_text())


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
    for parts, node in walk(doc):
        if isinstance(node, (int, float)) and not isinstance(node, bool) and not in_coordinates(parts):
            assert parts[-1] == "value", json_path(parts)
            q = node_at(doc, parts[:-1])
            assert isinstance(q.get("source"), str) and len(q["source"]) >= 8, json_path(parts)
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
        for parts, node in walk({k: v for k, v in doc.items() if k != "validation_only"}):
            if isinstance(node, str) and parts[-1] == "source":
                assert "Table XI" not in node and "3000+" not in node, json_path(parts)


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
