"""`uvlab bench aliasing` on the CPU at its --quick size."""

import json

import pytest

from uvlab.app.cli import main


def test_bench_aliasing_quick_writes_its_report(tmp_path, capsys):
    out = tmp_path / "alias.json"
    assert main(["bench", "aliasing", "--device", "cpu", "--quick", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["benchmark"] == "aliasing" and report["device"] == "cpu"
    assert report["nvis"] == 2016 * 8 * 4
    assert {c["sky"] for c in report["cases"]} == {"in-field", "outside", "fold-back"}
    for case in report["cases"]:
        assert set(case["metrics"]) == {
            "pruned-nn",
            "hybrid",
            "conv",
            "nn-oversampled",
            "conv β=4096",
        }
        for m in case["metrics"].values():
            assert 0 < m["rms_central"] <= m["max_error"]
    (row,) = report["summary"]
    assert row["cases"] == 3 and f"| -30° | 16 | 3 | {row['ranking_central']} / " in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["--betas", "15"], "every β must be an even number from 2 to 1024"),
        (["--betas", "4096"], "every β must be an even number from 2 to 1024"),
        (["--npix", "7"], "--npix must be an even number ≥ 8, got 7"),
        (["--npix", "0"], "--npix must be an even number ≥ 8, got 0"),
        (["--times", "0"], "--times must be ≥ 1, got 0"),
        (["--chans", "-2"], "--chans must be ≥ 1, got -2"),
        (["--decs", "95"], "declinations must lie in [−90°, 90°]"),
        (["--seeds", "-1"], "seeds must be ≥ 0"),
    ],
)
def test_bench_aliasing_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "aliasing", "--device", "cpu", "--quick", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "uvlab bench aliasing --help" in err


def test_bench_aliasing_refuses_what_would_not_fit(capsys):
    # NumPy's pruned-nn at β = 1024 on 512² holds a 524288² fine grid: terabytes
    code = main(["bench", "aliasing", "--device", "cpu", "--npix", "512", "--betas", "1024"])
    err = capsys.readouterr().err
    assert code == 1 and "pruned-nn at β = 1024 on a 512² image (NumPy)" in err
    assert "TiB" in err
