"""scripts/omp_testsuite.py's report: which runs it prints (a different result; the same pass, but three times
as long and a second more under the shim) and the result file it writes (every run, its result and seconds).
The suites themselves need the distribution's sources and take an hour; they are not run here."""
import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "omp_testsuite.py"
SHIM = "/x/libandgate-preload.so"


@pytest.fixture(scope="module")
def suite():
    spec = importlib.util.spec_from_file_location("omp_testsuite", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def results(runs):
    """{(test, mode, shim or ''): (result, output, seconds)} from {test: (alone, under the shim)}"""
    res = {}
    for rel, (alone, under) in runs.items():
        res[(rel, "t4", "")] = alone
        res[(rel, "t4", SHIM)] = under
    return res


def test_report_prints_differences_and_slow_runs(suite, tmp_path, capsys):
    runs = {
        "same.c": ((0, "", 1.0), (0, "", 1.1)),
        "slow.c": ((0, "", 2.0), (0, "", 54.0)),           # 27x and 52 s more: printed
        "short.c": ((0, "", 0.01), (0, "", 0.2)),          # 20x, but under a second more: not printed
        "third.c": ((0, "", 1.0), (0, "", 2.9)),           # 1.9 s more, but under 3x: not printed
        "differs.c": ((0, "", 1.0), ("timeout", "", 60.0)),
        "fails.c": ((1, "x", 0.1), (1, "x", 9.0)),         # failed both ways: the same result, no time compared
    }
    differ, fail = suite.report("libomp", str(tmp_path), runs, ["t4"], SHIM, results(runs))
    out = capsys.readouterr().out.splitlines()
    assert (differ, fail) == (1, 1)
    assert out == ["DIFFER differs.c [t4]: alone 0, shim timeout: ''",
                   "SLOWER slow.c [t4]: alone 2.00 s, shim 54.00 s"], out
    written = json.loads((tmp_path / "results-libomp.json").read_text())
    assert len(written) == 2 * len(runs)
    assert written["slow.c t4 shim"] == {"result": 0, "seconds": 54.0}
    assert written["differs.c t4 shim"] == {"result": "timeout", "seconds": 60.0}


def test_relative_shim_made_absolute(suite, tmp_path, monkeypatch):
    """The test programs run in their own directories, where a relative LD_PRELOAD would name nothing and
    the runs "under the shim" would run without it."""
    (tmp_path / "shim.so").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    a, modes = suite.options(["libomp", "--shim", "shim.so", "--modes", "t4"])
    assert a.shim == str(tmp_path / "shim.so") and modes == ["t4"]


def test_missing_shim_is_a_usage_error(suite, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        suite.options(["libomp", "--shim", str(tmp_path / "none.so")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not exist" in err[0], err
