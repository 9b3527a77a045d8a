"""Tests of andgate_report: validation, report generation, summary, CSV. No timing assertions: the
numbers come from the stored fixture and expected values are computed from it here."""
import copy
import csv
import html
import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from andgate_report import (CSV_COLUMNS, generate, jitter_summary, latency_summary, load,  # noqa: E402
                            summary_lines, to_csv, validate)
from andgate_report.__main__ import main  # noqa: E402
from andgate_report.load import load_schema  # noqa: E402
from andgate_report.plots import default_cdf_threads  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "bench_small.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PLOTS = ("latency.png", "cdf.png", "jitter.png", "epcc.png")


@pytest.fixture
def doc():
    return load(FIXTURE)


def sim_doc():
    """A simulator result: virtual clock, andgate impls and one hardware barrier, no baselines, no
    c2c median (0), samples on some results only, no epcc or jitter."""
    def res(impl, kind, n, med, samples=None):
        r = {"impl": impl, "kind": kind, "threads": n, "wait": "spin", "pinning": "compact",
             "method": "latency", "median_ns": med, "min_ns": med * 0.9, "p99_ns": med * 1.4,
             "cpu_ns_per_episode": med * n, "episodes": 1000}
        if samples:
            r["samples_ns"] = samples
        return r
    return {"tool": "andgate", "version": "0.1.0", "mode": "sim", "command": "andgate sim --machine phi",
            "host": {"model": "sim: Xeon Phi 7250 (model)", "cpus_usable": 64, "clock": "virtual",
                     "c2c_oneway_ns": {"min": 0, "median": 0}},
            "results": [res("andgate:dissemination:ways=1", "andgate", 16, 900.0, [700, 850, 900, 1000, 1300]),
                        res("andgate:dissemination:ways=1", "andgate", 64, 1500.0),
                        res("andgate:stour:fanin=4", "andgate", 64, 1300.0),
                        res("hw:barwait", "hw", 16, 40.0, [35, 38, 40, 44, 60]),
                        res("hw:barwait", "hw", 64, 55.0)]}


# ---- validation ---------------------------------------------------------------------------------

def test_fixture_validates(doc, capsys):
    assert validate(doc) == []
    assert main([str(FIXTURE), "--validate"]) == 0
    assert capsys.readouterr().out.strip() == "valid"


def test_fixture_is_realistic(doc):
    """The fixture covers what the brief asks of it (so the other tests exercise every path)."""
    r = doc["results"]
    assert {x["method"] for x in r} == {"latency", "epcc", "jitter"}
    assert {x["threads"] for x in r} == {1, 2, 4, 8}
    assert doc["host"]["cpus_usable"] == 2
    assert all(x["oversubscribed"] == (x["threads"] > 2) for x in r)
    assert {"pthread", "gomp", "llvm-omp", "std::barrier", "ck:mcs"} <= {x["impl"] for x in r}
    assert [x for x in r if x.get("status") == "failed" and x.get("error")]
    assert all(x.get("samples_ns") for x in r if x["method"] == "latency" and x.get("status") == "ok")


def test_missing_required_field_is_named(doc, tmp_path, capsys):
    bad = copy.deepcopy(doc)
    del bad["results"][3]["median_ns"]
    errors = validate(bad)
    assert len(errors) == 1
    assert errors[0].startswith("$.results[3].median_ns:")
    del bad["host"]["cpus_usable"]
    assert any(e.startswith("$.host.cpus_usable:") for e in validate(bad))

    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main([str(path), "--validate"]) == 1
    out = capsys.readouterr().out
    assert "$.results[3].median_ns" in out and "valid" != out.strip()


def test_wrong_type_is_named(doc, tmp_path, capsys):
    bad = copy.deepcopy(doc)
    bad["results"][0]["threads"] = "two"
    bad["results"][5]["kind"] = "vendor"
    errors = validate(bad)
    assert any(e.startswith("$.results[0].threads:") and "integer" in e for e in errors)
    assert any(e.startswith("$.results[5].kind:") for e in errors)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    # rendering refuses an invalid document, in one line: the first error and how many more
    capsys.readouterr()
    assert main([str(path), "--out", str(tmp_path / "r")]) == 1
    assert not (tmp_path / "r" / "index.html").exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a valid andgate result: $.results[" in err, err
    assert f"(and {len(errors) - 1} more: --validate lists them)" in err, err


def test_negative_latency_is_refused_negative_epcc_is_not(doc, tmp_path, capsys):
    """A latency or jitter time is last departure minus last arrival (>= 0); an EPCC overhead is the
    difference of two timings, which noise can make negative"""
    r = doc["results"]
    lat = next(i for i, x in enumerate(r) if x["method"] == "latency" and x.get("status") == "ok")
    jit = next(i for i, x in enumerate(r) if x["method"] == "jitter" and x.get("status") == "ok")
    epcc = next(i for i, x in enumerate(r) if x["method"] == "epcc" and x.get("status") == "ok")
    bad = copy.deepcopy(doc)
    bad["results"][lat]["median_ns"] = -3.5
    bad["results"][lat]["samples_ns"][0] = -1.0
    bad["results"][jit]["min_ns"] = -0.5
    errors = validate(bad)
    assert any(e.startswith(f"$.results[{lat}].median_ns:") for e in errors), errors
    assert any(e.startswith(f"$.results[{lat}].samples_ns[0]:") for e in errors), errors
    assert any(e.startswith(f"$.results[{jit}].min_ns:") for e in errors), errors
    assert len(errors) == 3, errors
    path = tmp_path / "neg.json"
    path.write_text(json.dumps(bad))
    assert main([str(path), "--validate"]) == 1
    assert f"$.results[{lat}].median_ns" in capsys.readouterr().out

    ok = copy.deepcopy(doc)
    for k in ("median_ns", "min_ns", "p99_ns"):
        ok["results"][epcc][k] = -2.0
    assert validate(ok) == []


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_json_numbers_are_refused(doc, tmp_path, capsys, literal):
    """Python's json module reads NaN and Infinity; they are not JSON, and no writer of ours makes them"""
    text = json.dumps(doc).replace('"median_ns": ' + json.dumps(doc["results"][0]["median_ns"]),
                                   '"median_ns": ' + literal, 1)
    assert literal in text
    path = tmp_path / "nan.json"
    path.write_text(text)
    assert main([str(path), "--validate"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{literal} is not JSON" in err, err


# ---- report ---------------------------------------------------------------------------------------

def test_report_files(doc, tmp_path):
    out = tmp_path / "report"
    files = generate(doc, out)
    assert files == ["index.html", *PLOTS]
    for name in PLOTS:
        data = (out / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000, name
    assert (out / "index.html").stat().st_size > 0


def test_index_html_content(doc, tmp_path):
    generate(doc, tmp_path)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    # plots by relative path
    for name in PLOTS:
        assert f'src="{name}"' in page
    # command, date, host
    assert html.escape(doc["command"]) in page and doc["date"] in page
    assert html.escape(doc["host"]["model"]) in page
    # one ranking table per method and thread count
    assert page.count("<table>") >= 1 + 1 + 4 + 3 + 2 + 1   # meta, host, latency, epcc, jitter, failed
    for n in (1, 2, 4, 8):
        assert f"<h3>{n} thread" in page
    assert "oversubscribed (4 threads on 2 usable CPUs)" in page
    assert "÷ best baseline" in page and "÷ c2c one-way" in page
    # escaped impl names and each baseline's settings, stated once
    for r in doc["results"]:
        assert html.escape(r["impl"]) in page
    settings = {r["impl"]: r["settings"] for r in doc["results"] if r["kind"] == "baseline"}
    assert "Baselines and their default settings" in page
    for impl, text in settings.items():
        assert page.count(html.escape(text)) == 1, impl
    assert any(c in "".join(settings.values()) for c in "<&'")  # the fixture exercises escaping
    # best rows highlighted: one best andgate and one best baseline row per table with both
    assert page.count('class="best-andgate"') == 4 + 3 + 2
    assert page.count('class="best-baseline"') == 4 + 3 + 2
    # failed results listed with their error
    failed = [r for r in doc["results"] if r.get("status") == "failed"]
    assert "Failed runs" in page
    for r in failed:
        assert html.escape(r["error"]) in page


def test_html_escapes_strings(doc, tmp_path):
    evil = copy.deepcopy(doc)
    evil["command"] = "andgate bench <script>alert(1)</script>"
    evil["results"][1]["impl"] = "andgate:<b>x</b>&y"
    evil["results"][1]["describe"] = '"><img src=x>'
    assert validate(evil) == []
    generate(evil, tmp_path)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "<b>x</b>" not in page and '"><img' not in page
    assert "&lt;script&gt;" in page and "andgate:&lt;b&gt;x&lt;/b&gt;&amp;y" in page


def test_cdf_threads(doc, tmp_path, capsys):
    assert default_cdf_threads(doc) == 2            # largest <= cpus_usable with samples
    assert main([str(FIXTURE), "--out", str(tmp_path), "--cdf-threads", "4"]) == 0
    assert "at 4 threads" in (tmp_path / "index.html").read_text(encoding="utf-8")
    assert main([str(FIXTURE), "--out", str(tmp_path), "--cdf-threads", "3"]) == 0
    assert "no latency samples at 3 threads" in capsys.readouterr().err
    assert "at 2 threads" in (tmp_path / "index.html").read_text(encoding="utf-8")
    for bad in ("-3", "x", "5000"):   # a bad count is a bad command line: one line, exit 2
        with pytest.raises(SystemExit) as ex:
            main([str(FIXTURE), "--cdf-threads", bad])
        assert ex.value.code == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_jitter_single_thread_count_is_a_bar_chart(doc, tmp_path):
    one = copy.deepcopy(doc)
    one["results"] = [r for r in one["results"] if not (r["method"] == "jitter" and r["threads"] != 2)]
    files = generate(one, tmp_path)
    assert "jitter.png" in files
    assert (tmp_path / "jitter.png").read_bytes().startswith(PNG_MAGIC)


def test_sim_document_renders(tmp_path, capsys):
    sim = sim_doc()
    assert validate(sim) == []
    files = generate(sim, tmp_path)
    assert files == ["index.html", "latency.png", "cdf.png", "hw.png"]     # no jitter, no epcc
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "hw:barwait" in page and 'class="best-hw"' in page
    assert "Baselines and their default settings" not in page
    assert default_cdf_threads(sim) == 16
    rows = latency_summary(sim)
    assert [r["best_baseline"] for r in rows] == [None, None]
    assert rows[1]["best_andgate"] == "stour:fanin=4" and rows[1]["best_hw"] == "hw:barwait"
    assert rows[1]["speedup"] is None and rows[1]["andgate_c2c"] is None
    assert rows[1]["hw_speedup"] == pytest.approx(1300.0 / 55.0)
    path = tmp_path / "sim.json"
    path.write_text(json.dumps(sim))
    assert main([str(path), "--summary"]) == 0
    assert "best hw hw:barwait" in capsys.readouterr().out


def test_hw_plot(doc, tmp_path):
    """hw.png: each device against the best andgate median at the same count; none without devices"""
    from andgate_report.rank import hw_speedups
    sim = sim_doc()
    got = [(r["impl"], r["threads"], s) for r, s in hw_speedups(sim)]
    assert got == [("hw:barwait", 16, pytest.approx(900.0 / 40.0)), ("hw:barwait", 64, pytest.approx(1300.0 / 55.0))]
    generate(sim, tmp_path)
    data = (tmp_path / "hw.png").read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 1000
    assert 'src="hw.png"' in (tmp_path / "index.html").read_text(encoding="utf-8")
    # a device at a count with no andgate result is not compared; a bench document has no devices
    sim["results"].append(dict(sim["results"][-1], threads=128))
    assert [r["threads"] for r, _ in hw_speedups(sim)] == [16, 64]
    assert hw_speedups(doc) == [] and "hw.png" not in generate(doc, tmp_path / "bench")


def test_auto_regret(tmp_path, capsys):
    """auto against the best fixed spec of the same wait at each count: the table, the summary line"""
    from andgate_report.rank import auto_regret
    sim = sim_doc()
    base = dict(sim["results"][1])
    sim["results"] += [dict(base, impl="andgate:tune:block=8,rounds=3 (auto)", median_ns=1950.0,
                            describe="tune:block=8,rounds=3 wait=spin chose=dtour:fanin=4"),
                       dict(base, impl="andgate:central (auto)", threads=16, median_ns=900.0),
                       dict(base, impl="andgate:central (auto)", wait="pause", median_ns=10.0),
                       # tune asked for by name picks among the fixed specs: never the best fixed one
                       dict(base, impl="andgate:tune:block=8,rounds=3", median_ns=1000.0)]
    assert validate(sim) == []
    rows = auto_regret(sim)
    # 16: auto ties the only fixed spec; 64: 1950 / stour's 1300; the pause row has nothing to compare
    assert [(r["threads"], r["best"], r["regret"]) for r in rows] == [
        (16, "dissemination:ways=1", pytest.approx(1.0)), (64, "stour:fanin=4", pytest.approx(1.5))]
    # what tune chose, from the record's description
    assert [r["auto"] for r in rows] == ["central (auto)", "tune:block=8,rounds=3 (auto) -> dtour:fanin=4"]
    generate(sim, tmp_path)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "auto against the best fixed algorithm" in page and "worst regret 1.50" in page
    path = tmp_path / "sim.json"
    path.write_text(json.dumps(sim))
    assert main([str(path), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "auto: worst regret 1.50 at 64 threads (chose tune:block=8,rounds=3 (auto) -> dtour:fanin=4," in out
    # by the mean where the records have one: auto's mean over the smallest fixed mean, whichever spec has it
    for i, r in enumerate(sim["results"]):
        r["mean_ns"] = 1500.0 if r["impl"].endswith("(auto)") else (1000.0 if i % 2 else 1200.0)
    # 16: its one fixed spec has 1200; 64: the smallest fixed mean is 1000, not the best median's
    assert [r["regret_mean"] for r in auto_regret(sim)] == [pytest.approx(1.25), pytest.approx(1.5)]
    path.write_text(json.dumps(sim))
    assert main([str(path), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "auto: worst regret 1.50 at 64 threads" in out and "by the mean: worst 1.50 at 64 threads" in out
    assert auto_regret(sim_doc()) == []


def test_auto_regret_over_seeds(capsys, tmp_path):
    """andgate sim --seed 1-2: each record averaged over the allocations before auto meets the best fixed"""
    from andgate_report.rank import auto_regret
    sim = sim_doc()
    base = dict(sim["results"][1], threads=8)
    rows = []
    # seed 1: dissemination was lucky (100, the best fixed); seed 2: unlucky (140); stour 110 in both;
    # tune 112 and 114 with different choices
    for seed, dis, tune, pick in ((1, 100.0, 112.0, "stour:fanin=4"), (2, 140.0, 114.0, "dissemination:ways=1")):
        settings = f"pin=cores,work_ns=0,seed={seed}"
        rows += [dict(base, impl="andgate:dissemination:ways=1", median_ns=dis, mean_ns=dis, settings=settings),
                 dict(base, impl="andgate:stour:fanin=4", median_ns=110.0, mean_ns=110.0, settings=settings),
                 dict(base, impl="andgate:tune:block=8 (auto)", median_ns=tune, mean_ns=tune, settings=settings,
                      describe=f"tune:block=8 wait=spin chose={pick}")]
    sim["results"] = rows
    assert validate(sim) == []
    [row] = auto_regret(sim)
    # averaged: dissemination 120, stour 110 (the best), tune 113
    assert row["best"] == "stour:fanin=4" and row["regret"] == pytest.approx(113 / 110)
    assert row["seeds"] == 2 and row["regret_mean"] == pytest.approx(113 / 110)
    assert row["auto"].endswith("-> dissemination:ways=1 | stour:fanin=4")
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps(sim))
    assert main([str(path), "--summary"]) == 0
    assert "(each the average of 2 seeds)" in capsys.readouterr().out
    # one seed alone: the lucky draw is the best fixed
    sim["results"] = rows[:3]
    assert auto_regret(sim)[0]["regret"] == pytest.approx(1.12) and auto_regret(sim)[0]["seeds"] == 1


def test_stale_plot_removed(doc, tmp_path):
    generate(doc, tmp_path)
    generate(sim_doc(), tmp_path)
    assert not (tmp_path / "epcc.png").exists()
    generate(doc, tmp_path)   # and the other way: the sim's hw.png goes
    assert (tmp_path / "epcc.png").exists() and not (tmp_path / "hw.png").exists()


# ---- summary ------------------------------------------------------------------------------------

def _expected_latency(doc, n):
    at_n = [r for r in doc["results"] if r["method"] == "latency" and r["threads"] == n
            and r.get("status", "ok") == "ok"]
    ag = min((r for r in at_n if r["kind"] == "andgate"), key=lambda r: r["median_ns"])
    base = min((r for r in at_n if r["kind"] == "baseline"), key=lambda r: r["median_ns"])
    return ag, base


def test_latency_summary_rows(doc):
    rows = latency_summary(doc)
    assert [r["threads"] for r in rows] == [1, 2, 4, 8]
    c2c = doc["host"]["c2c_oneway_ns"]["median"]
    for row in rows:
        ag, base = _expected_latency(doc, row["threads"])
        assert row["best_andgate"] == ag["impl"].removeprefix("andgate:")
        assert row["andgate_ns"] == ag["median_ns"]
        assert row["best_baseline"] == base["impl"]
        assert row["baseline_ns"] == base["median_ns"]
        assert row["speedup"] == pytest.approx(base["median_ns"] / ag["median_ns"])
        assert row["andgate_c2c"] == pytest.approx(ag["median_ns"] / c2c)
        assert row["oversubscribed"] == (row["threads"] > 2)
    # the failed ck:mcs run at 8 threads is not a candidate
    assert rows[3]["best_baseline"] != "ck:mcs"


def test_jitter_summary_rows(doc):
    rows = jitter_summary(doc)
    jit = [r for r in doc["results"] if r["method"] == "jitter"]
    assert [r["threads"] for r in rows] == sorted({r["threads"] for r in jit})
    for row in rows:
        at_n = [r for r in jit if r["threads"] == row["threads"]]
        ag = min((r for r in at_n if r["kind"] == "andgate"), key=lambda r: r["cpu_ns_per_episode"])
        gomp = next(r for r in at_n if r["impl"] == "gomp")
        assert row["best_andgate"] == ag["impl"].removeprefix("andgate:")
        assert row["andgate_cpu_ns"] == ag["cpu_ns_per_episode"]
        assert row["gomp_cpu_ns"] == gomp["cpu_ns_per_episode"]
        assert row["gomp_ratio"] == pytest.approx(gomp["cpu_ns_per_episode"] / ag["cpu_ns_per_episode"])


def test_summary_text(doc, capsys):
    lines = summary_lines(doc)
    ag, base = _expected_latency(doc, 2)
    line2 = next(line for line in lines if line.startswith("threads 2:"))
    assert ag["impl"].removeprefix("andgate:") in line2 and base["impl"] in line2
    assert f"{base['median_ns'] / ag['median_ns']:.2f}x faster" in line2
    assert "c2c" in line2
    assert any(line.startswith("jitter threads 2:") and "gomp" in line for line in lines)
    assert main([str(FIXTURE), "--summary"]) == 0
    assert "threads 2:" in capsys.readouterr().out


# ---- CSV ----------------------------------------------------------------------------------------

def test_csv_columns_match_schema():
    props = load_schema()["properties"]["results"]["items"]["properties"]
    scalar = [k for k, v in props.items() if v.get("type") != "array" and "$ref" not in v]   # os, workload: objects
    assert list(CSV_COLUMNS) == scalar


def test_csv_rows(doc, tmp_path):
    rows = list(csv.reader(io.StringIO(to_csv(doc))))
    assert rows[0] == list(CSV_COLUMNS)
    assert len(rows) - 1 == len(doc["results"])
    first = dict(zip(rows[0], rows[1]))
    r0 = doc["results"][0]
    assert first["impl"] == r0["impl"] and float(first["median_ns"]) == r0["median_ns"]
    assert first["oversubscribed"] == "false"
    failed = [dict(zip(rows[0], row)) for row in rows[1:] if row[CSV_COLUMNS.index("status")] == "failed"]
    assert failed and failed[0]["error"]
    path = tmp_path / "out.csv"
    assert main([str(FIXTURE), "--csv", str(path)]) == 0
    with open(path, newline="", encoding="utf-8") as f:
        assert len(list(csv.reader(f))) == len(doc["results"]) + 1


# ---- --compare (sim against bench) --------------------------------------------------------------

def test_compare_matches_impl_threads_method(tmp_path, capsys):
    sim = sim_doc()
    bench = copy.deepcopy(sim)
    bench["mode"] = "bench"
    for r in bench["results"]:
        r["median_ns"] *= 2            # bench twice as slow: sim / bench = 0.5 everywhere
    bench["results"][1]["status"] = "failed"   # dropped from the table
    bench["results"][2]["threads"] = 32        # no partner in the sim file
    from andgate_report.compare import compare_rows
    rows = compare_rows(bench, sim)
    assert [(r[0], r[1]) for r in rows] == [("andgate:dissemination:ways=1", 16), ("hw:barwait", 16),
                                            ("hw:barwait", 64)]
    assert all(abs(r[5] - 0.5) < 1e-12 for r in rows)
    b, s = tmp_path / "b.json", tmp_path / "s.json"
    b.write_text(json.dumps(bench))
    s.write_text(json.dumps(sim))
    assert main([str(b), "--compare", str(s)]) == 0
    out = capsys.readouterr().out
    assert "| sim / bench |" in out and "| geometric mean | | | | 0.50x |" in out


def test_compare_floor_subtracts_the_one_thread_median(tmp_path, capsys):
    sim = sim_doc()
    bench = copy.deepcopy(sim)
    bench["mode"] = "bench"
    one = copy.deepcopy(bench["results"][0])      # dissemination at 1 thread: 30 ns of harness
    one["threads"], one["median_ns"] = 1, 30.0
    bench["results"].append(one)
    for r in bench["results"][:-1]:
        r["median_ns"] += 30.0                     # the same 30 ns on top of every episode
    from andgate_report.compare import compare_rows
    rows = compare_rows(bench, sim, floor=True)
    # only the impl with a 1-thread result is compared, and then exactly as the simulation has it
    assert [(r[0], r[1]) for r in rows] == [("andgate:dissemination:ways=1", 16),
                                            ("andgate:dissemination:ways=1", 64)]
    assert all(abs(r[5] - 1.0) < 1e-12 for r in rows)
    assert all(abs(r[5] - 1.0) > 1e-3 for r in compare_rows(bench, sim) if r[1] > 1)
    b, s = tmp_path / "b.json", tmp_path / "s.json"
    b.write_text(json.dumps(bench))
    s.write_text(json.dumps(sim))
    assert main([str(b), "--compare", str(s), "--floor"]) == 0
    assert "| bench median less its 1-thread ns |" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main([str(b), "--floor"])
    assert e.value.code == 2


def test_markdown_pivot(tmp_path, capsys):
    s = tmp_path / "s.json"
    s.write_text(json.dumps(sim_doc()))
    assert main([str(s), "--markdown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| impl | 16 | 64 |"
    assert "| andgate:stour:fanin=4 | \u2014 | 1,300 |" in out
    assert "| hw:barwait | 40.0 | 55.0 |" in out


def test_markdown_pivot_of_another_method(tmp_path, capsys):
    doc = sim_doc()
    doc["results"][0]["method"] = "jitter"      # one jitter record: the jitter table holds it alone
    s = tmp_path / "s.json"
    s.write_text(json.dumps(doc))
    assert main([str(s), "--markdown", "--method", "jitter"]) == 0
    out = capsys.readouterr().out.splitlines()
    r = doc["results"][0]
    assert out[0] == f"| impl | {r['threads']} |" and len(out) == 3 and out[2].startswith(f"| {r['impl']} |")
