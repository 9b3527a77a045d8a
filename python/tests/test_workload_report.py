"""Workload records (andgate sim --workload) in the report: their own section, table and plots, kept out
of the barrier rankings, summary and --markdown pivot, and accepted by the schema. The records are made
up here in the shape sim/main.c writes, so every expected cell is known in advance."""
import copy
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from andgate_report import generate, latency_summary, ranking, summary_lines, validate  # noqa: E402
from andgate_report.__main__ import main  # noqa: E402
from andgate_report.compare import pivot_lines  # noqa: E402
from andgate_report.paper004 import TABLE_XI  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CALLS = ("lock_empty", "lock_queued", "unlock", "barrier_wait", "broadcast", "signal", "cond_wait")


def wl_record(impl, kind, threads, name="prodcons", sched="rr", makespan=1_900_000.0, scale=1.0, grants=0):
    calls = {c: {"n": 0 if c == "signal" else 10 + i, "mean_ns": 0.0 if c == "signal" else 100.0 * (i + 1) * scale}
             for i, c in enumerate(CALLS)}
    return {"impl": impl, "kind": kind, "threads": threads, "wait": "block", "pinning": "cores",
            "method": "latency", "median_ns": 95_000.0, "min_ns": 94_000.0, "p99_ns": 96_000.0,
            "cpu_ns_per_episode": 9_500.0, "episodes": 20, "oversubscribed": threads > 64,
            "os": {"sched": sched, "switches": 3, "preemptions": 1, "csa_grants": grants, "csa_expiries": 0,
                   "max_ready_wait_ns": 2500.0},
            "workload": {"name": name, "makespan_ns": makespan, "cs_ns": 18_000.0, "produced": 100,
                         "consumed": 100, "calls": calls},
            "status": "ok"}


def doc_of(results):
    return {"tool": "andgate", "version": "0.1.0", "mode": "sim", "command": "andgate sim --workload prodcons",
            "host": {"model": "sim: noc64-os", "cpus_usable": 64, "clock": "virtual",
                     "c2c_oneway_ns": {"min": 38, "median": 38}},
            "results": results}


def barrier_record(impl, threads, med):
    return {"impl": impl, "kind": "andgate", "threads": threads, "wait": "spin", "pinning": "cores",
            "method": "latency", "median_ns": med, "min_ns": med, "p99_ns": med, "cpu_ns_per_episode": med,
            "episodes": 100}


def prodcons_doc():
    return doc_of([wl_record("andgate:central:line=64", "andgate", 6),
                   wl_record("hw:hw-subutai", "hw", 6, makespan=23_500.0, scale=0.01)])


def phases_doc():
    return doc_of([wl_record("andgate:central:line=64", "andgate", n, name="phases", sched=s,
                             makespan=4e6 * n / 64, grants=n if s == "csa" else 0)
                   for n in (64, 256) for s in ("rr", "csa")])


def test_schema_accepts_workload_records_and_checks_them():
    assert validate(prodcons_doc()) == []
    bad = prodcons_doc()
    del bad["results"][0]["workload"]["makespan_ns"]
    bad["results"][1]["workload"]["calls"]["unlock"]["n"] = -1
    bad["results"][1]["os"]["sched"] = "fifo"
    errors = validate(bad)
    assert "$.results[0].workload.makespan_ns: required property is missing" in errors
    assert any(e.startswith("$.results[1].workload.calls.unlock.n:") for e in errors)
    assert any(e.startswith("$.results[1].os.sched:") for e in errors)


def test_workload_section_table_and_plot(tmp_path):
    files = generate(prodcons_doc(), tmp_path)
    # no barrier plots for records that are not barrier episodes; one calls plot; one thread count: no makespan
    assert files == ["index.html", "calls-prodcons.png"]
    assert (tmp_path / "calls-prodcons.png").read_bytes().startswith(PNG_MAGIC)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "Workloads (andgate sim --workload)" in page and "<h3>prodcons</h3>" in page
    assert 'src="calls-prodcons.png"' in page
    assert "Latency (method latency" not in page          # no barrier ranking of workload records
    assert "÷ best baseline" not in page                  # nor the rankings' legend
    # makespan in us, a mean and a count per primitive called; signal (never called) has no column
    assert "<td>1,900</td>" in page and "<td>23.5</td>" in page
    assert "barrier_wait mean ns" in page and "signal mean ns" not in page
    # 004 Table XI beside the 6-thread records: SW against the paper's SW column, Subutai against Subutai's
    row, call, sw, hw = TABLE_XI[3]
    assert call == "barrier_wait" and row in page
    assert f"400 ({400 / sw:.3f})" in page and f"4.00 ({4 / hw:.3f})" in page


def test_phases_makespan_plot_and_csa_counters(tmp_path):
    doc = phases_doc()
    files = generate(doc, tmp_path)
    assert files == ["index.html", "calls-phases.png", "makespan.png"]
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'src="makespan.png"' in page and "csa_grants" in page
    assert "Table XI" not in page                     # the paper's table is prodcons's
    # a later report of another workload removes the stale plots of this one
    assert generate(prodcons_doc(), tmp_path) == ["index.html", "calls-prodcons.png"]
    assert not (tmp_path / "makespan.png").exists() and not (tmp_path / "calls-phases.png").exists()


def test_barrier_views_leave_workload_records_out():
    doc = prodcons_doc()
    doc["results"].append(barrier_record("andgate:dissemination", 8, 500.0))
    assert [n for n, _, _ in ranking(doc, "latency")] == [8]
    assert [r["threads"] for r in latency_summary(doc)] == [8]
    assert pivot_lines(doc) == ["| impl | 8 |", "|---|---:|", "| andgate:dissemination | 500 |"]


def test_pivot_rows_name_the_wait_when_a_file_has_several():
    doc = prodcons_doc()
    doc["results"] = [dict(barrier_record("andgate:central", 8, 500.0), wait="spin"),
                      dict(barrier_record("andgate:central", 8, 1500.0), wait="backoff:max_ns=1463")]
    assert pivot_lines(doc)[2:] == ["| andgate:central (spin) | 500 |",
                                    "| andgate:central (backoff:max_ns=1463) | 1,500 |"]


def test_summary_labels_workload_records():
    lines = summary_lines(phases_doc())
    assert len(lines) == 4 and all(line.startswith("workload phases central:line=64 threads ") for line in lines)
    # rows by impl, threads, sched: 64 csa, 64 rr, 256 csa, 256 rr
    assert "threads 256 (oversubscribed) sched csa" in lines[2] and "CSA grants 256, expiries 0" in lines[2]
    assert "CSA grants" not in lines[3]
    assert "critical sections 18.0 us | barrier_wait 400 ns x 13" in lines[0]


def test_markdown_prints_the_workload_table(tmp_path, capsys):
    path = tmp_path / "wl.json"
    path.write_text(json.dumps(prodcons_doc()))
    assert main([str(path), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| impl | 8" not in out and "| impl |\n" not in out   # no empty barrier pivot
    assert "workload prodcons" in out
    assert "| hw:hw-subutai | 6 | rr | no | 23.5 | 18.0 | 100 | 100 | 1.00 | 10 |" in out
    mixed = prodcons_doc()
    mixed["results"].append(barrier_record("andgate:dissemination", 8, 500.0))
    path.write_text(json.dumps(mixed))
    assert main([str(path), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| impl | 8 |") and "workload prodcons" in out


def test_failed_workload_record_is_listed_as_failed(tmp_path):
    doc = copy.deepcopy(prodcons_doc())
    doc["results"].append({"impl": "hw:hw-subutai", "kind": "hw", "threads": 128, "wait": "block",
                           "pinning": "cores", "median_ns": 0, "min_ns": 0, "p99_ns": 0,
                           "cpu_ns_per_episode": 0, "episodes": 0, "status": "failed",
                           "error": "hw-subutai: 128 participants exceed the device"})
    assert validate(doc) == []
    generate(doc, tmp_path)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "Failed runs" in page and "128 participants exceed the device" in page
