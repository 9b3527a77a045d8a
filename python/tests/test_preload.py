"""Tests of andgate_report on `andgate bench --preload` results (mode "preload"): validation, summary
tables, report, CSV. No timing assertions: expected values are computed from the document built here."""
import copy
import csv
import html
import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from andgate_report import generate, summary_lines, to_csv, validate  # noqa: E402
from andgate_report.__main__ import main  # noqa: E402
from andgate_report.csvout import PRELOAD_COLUMNS as CSV_COLUMNS  # noqa: E402
from andgate_report.preload import PLOTS, app_rows, construct_rows  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def app(name, cc, bind, threads, plain, shim, identical=True, error=None):
    runtime = {"gcc": "libgomp", "clang": "libomp", "cc": "pthread"}[cc]
    r = {"app": name, "compiler": cc, "runtime": runtime, "bind": bind, "threads": threads,
         "command": f"{name}-{cc}", "plain_s": plain, "preload_s": shim,
         "median_plain_s": sorted(plain)[len(plain) // 2] if plain else None,
         "median_preload_s": sorted(shim)[len(shim) // 2] if shim else None,
         "min_plain_s": min(plain) if plain else None, "min_preload_s": min(shim) if shim else None,
         "status": "failed" if error else "ok"}
    r["speedup"] = None if error else r["median_plain_s"] / r["median_preload_s"]
    if len(plain) + len(shim) >= 2:
        r["output_identical"] = identical
    if error:
        r["error"] = error
    return r


def construct(name, cc, bind, threads, rt, shim, error=None):
    r = {"construct": name, "compiler": cc, "runtime": {"gcc": "libgomp", "clang": "libomp"}[cc], "bind": bind,
         "threads": threads, "runtime_ns": rt, "shim_ns": shim, "runtime_min_ns": rt, "shim_min_ns": shim,
         "ratio": None if error or not rt or rt <= 0 else shim / rt, "status": "failed" if error else "ok"}
    if error:
        r["error"] = error
    return r


def preload_doc():
    """A matrix run: two OpenMP apps x two compilers x bound/unbound, streamcluster unbound, one failed
    configuration, one with a different output; constructs for both runtimes, one failed."""
    apps = [app("cg", cc, b, 2, [1.2, 1.3, 1.25], [0.9, 0.95, 0.92]) for cc in ("gcc", "clang")
            for b in ("true", "false")]
    apps += [app("vcode", "gcc", "true", 2, [2.0, 2.1, 2.2], [1.0, 1.1, 1.2]),
             app("vcode", "clang", "false", 4, [2.0], [], error="preloaded run 1: killed after its time limit "
                 "of 60 s: <stderr & tail>"),
             app("mg", "gcc", "false", 4, [1.0, 1.0, 1.0], [1.1, 1.1, 1.1], identical=False),
             app("streamcluster", "cc", "n/a", 2, [1.7, 1.8, 1.6], [0.5, 0.55, 0.52])]
    cons = [construct(k, cc, b, 2, 400.0, 150.0) for k in ("barrier", "for", "single", "reduction")
            for cc in ("gcc", "clang") for b in ("true", "false")]
    cons.append(construct("parallel", "clang", "true", 4, None, None, error="plain run: exit status 1"))
    cons.append(construct("for-dynamic", "gcc", "true", 2, -3.0, 20.0))
    return {"tool": "andgate", "version": "0.1.0", "mode": "preload",
            "command": "andgate bench --preload apps --repeat 3", "date": "2026-01-01T00:00:00Z",
            "host": {"model": "Test CPU <x>", "cpus_usable": 2, "cpus_online": 2},
            "shim": "/opt/andgate/lib/libandgate-preload.so", "repeat": 3, "quick": False,
            "environment": {"ANDGATE_ALGO": "dissemination"}, "apps": apps, "constructs": cons}


def single_doc():
    """The single-command form: one record without app, compiler, bind, threads."""
    r = app("x", "gcc", "true", 1, [1.0, 1.1], [0.5, 0.6])
    for k in ("app", "compiler", "runtime", "bind", "threads"):
        del r[k]
    r["command"] = "./app -t 4"
    return {"tool": "andgate", "version": "0.1.0", "mode": "preload", "command": "andgate bench --preload ./app",
            "host": {"model": "Test CPU", "cpus_usable": 2}, "repeat": 2, "apps": [r], "constructs": []}


@pytest.fixture
def doc():
    return preload_doc()


def test_valid(doc):
    assert validate(doc) == []
    assert validate(single_doc()) == []


def test_invalid_named(doc):
    bad = copy.deepcopy(doc)
    del bad["apps"][2]["threads"]
    bad["apps"][3]["bind"] = "maybe"
    bad["constructs"][0]["ratio"] = "fast"
    del bad["constructs"][1]["shim_ns"]
    errors = validate(bad)
    assert "$.apps[2].threads: required property is missing" in errors
    assert any(e.startswith("$.apps[3].bind:") for e in errors)
    assert any(e.startswith("$.constructs[0].ratio:") for e in errors)
    assert "$.constructs[1].shim_ns: required property is missing" in errors
    assert len(errors) == 4
    # a preload document needs apps and constructs, not results; bench and sim still need results and c2c
    del bad["apps"]
    assert "$.apps: required property is missing" in validate(bad)
    bench = copy.deepcopy(doc)
    bench["mode"] = "bench"
    errors = validate(bench)
    assert "$.results: required property is missing" in errors
    assert "$.host.c2c_oneway_ns: required property is missing" in errors


def test_summary_tables(doc):
    lines = summary_lines(doc)
    assert lines[0] == "inherited environment: ANDGATE_ALGO=dissemination"
    apps_at = next(i for i, line in enumerate(lines) if line.startswith("apps:"))
    cons_at = next(i for i, line in enumerate(lines) if line.startswith("constructs:"))
    assert cons_at - apps_at - 2 == len(doc["apps"])          # header row, then a row per record
    assert len(lines) - cons_at - 2 == len(doc["constructs"])
    cg = lines[apps_at + 2]
    assert cg.split()[:4] == ["cg", "gcc", "true", "2"]
    assert f"{doc['apps'][0]['speedup']:.2f}x" in cg and "identical" in cg
    assert any("DIFFERENT" in line and line.startswith("mg") for line in lines)
    assert any("FAILED: preloaded run 1: killed" in line for line in lines)
    assert any(line.startswith("streamcluster") and " n/a " in line for line in lines)
    assert any(line.startswith("barrier") and "0.38x" in line for line in lines)   # 150 / 400
    assert any(line.startswith("for-dynamic") and "\u2014" in line for line in lines)   # runtime <= 0: no ratio


def test_summary_cli(doc, tmp_path, capsys):
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    assert main([str(p), "--summary"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Test CPU <x> (preload, 2 usable CPUs)\n")
    assert "preloaded s" in out and "shim ns" in out
    assert main([str(p), "--markdown"]) == 2     # bench/sim only
    s = tmp_path / "s.json"
    s.write_text(json.dumps(single_doc()))
    assert main([str(s)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split()[:2] == ["command", "plain"] and out[3].startswith("./app -t 4")


def test_rows(doc):
    rows = app_rows(doc)
    assert len(rows) == len(doc["apps"])
    assert rows[-1][:4] == ("streamcluster", "cc", "n/a", "2")
    failed = rows[5]
    assert failed[6] == "\u2014" and failed[8].startswith("FAILED")
    crow = construct_rows(doc)
    assert crow[0][:4] == ("barrier", "gcc", "true", "2") and crow[0][6] == "0.38x"


def test_report(doc, tmp_path):
    (tmp_path / "latency.png").write_bytes(PNG_MAGIC)      # a stale bench plot
    files = generate(doc, tmp_path)
    assert files == ["index.html", *PLOTS]
    for name in PLOTS:
        data = (tmp_path / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000, name
    assert not (tmp_path / "latency.png").exists()
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert html.escape(doc["host"]["model"]) in page and "<x>" not in page
    assert "&lt;stderr &amp; tail&gt;" in page
    assert page.count("<table>") == 3                       # meta, apps, constructs
    assert page.count('class="failed"') == 3                # vcode failed, mg different, parallel failed
    assert page.count('class="faster"') == 6 + 16           # cg x4, vcode, streamcluster; 16 constructs
    assert "ANDGATE_ALGO=dissemination" in page
    for name in PLOTS:
        assert f'src="{name}"' in page


def test_report_without_constructs(tmp_path):
    files = generate(single_doc(), tmp_path)
    assert files == ["index.html", "speedup.png"]
    assert "OpenMP constructs" not in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_csv(doc):
    rows = list(csv.reader(io.StringIO(to_csv(doc))))
    assert rows[0] == list(CSV_COLUMNS)
    assert len(rows) - 1 == len(doc["apps"]) + len(doc["constructs"])
    first = dict(zip(rows[0], rows[1]))
    assert first["record"] == "app" and first["name"] == "cg" and first["unit"] == "s"
    assert float(first["speedup"]) == pytest.approx(doc["apps"][0]["speedup"]) and first["ratio"] == ""
    assert first["output_identical"] == "true"
    con = dict(zip(rows[0], rows[1 + len(doc["apps"])]))
    assert con["record"] == "construct" and con["unit"] == "ns" and float(con["ratio"]) == pytest.approx(0.375)
    failed = [dict(zip(rows[0], r)) for r in rows[1:] if r[CSV_COLUMNS.index("status")] == "failed"]
    assert len(failed) == 2 and all(f["error"] for f in failed)
