"""The report tool's command line (python3 -m andgate_report) on bad input: every refusal is one line on
stderr and a non-zero exit status, never a traceback: 2 for a bad command line (argparse's errors, an
output that cannot be written), 1 for a result file that cannot be read or is not valid."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from andgate_report.__main__ import main  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "bench_small.json"


def refused(capsys, argv, status):
    """main(argv) ends with `status` and one line on stderr; that line"""
    with pytest.raises(SystemExit) as ex:
        sys.exit(main(argv))
    assert ex.value.code == status, ex.value.code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv", [[], ["--bogus", str(FIXTURE)], [str(FIXTURE), "--floor"],
                                  [str(FIXTURE), "--cdf-threads", "x"], [str(FIXTURE), "--method", "nope"]])
def test_bad_usage_is_one_line(capsys, argv):
    err = refused(capsys, argv, 2)
    assert err.startswith("python3 -m andgate_report: ") and "--help lists the options" in err, err


@pytest.mark.parametrize("data", [b"\xff\xfe", b"{not json", b""])
def test_unreadable_result_is_one_line(capsys, tmp_path, data):
    bad = tmp_path / "bad.json"
    bad.write_bytes(data)
    assert refused(capsys, [str(bad)], 1).startswith(f"{bad}: ")
    assert refused(capsys, [str(FIXTURE), "--compare", str(bad)], 1).startswith(f"{bad}: ")


@pytest.mark.parametrize("option,name", [("--out", "file/x"), ("--csv", "file/x.csv"), ("--csv", "."),
                                         ("--out", "file")])
def test_unwritable_output_is_one_line(capsys, tmp_path, option, name):
    (tmp_path / "file").write_text("a regular file\n")
    err = refused(capsys, [str(FIXTURE), f"{option}={tmp_path / name}"], 2)
    assert err.startswith(f"python3 -m andgate_report: {option} {tmp_path / name}: cannot write"), err
    assert (tmp_path / "file").read_text() == "a regular file\n"
