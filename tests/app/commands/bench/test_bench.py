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


def test_bench_aliasing_rx_quick_writes_its_report_and_plot(tmp_path, capsys):
    # --quick keeps Muscat's β = 128; a 32² image keeps NumPy's pruned-nn grid at 4096²
    out, png = tmp_path / "rx.json", tmp_path / "rx.png"
    argv = ["bench", "aliasing", "--rx", "--device", "cpu", "--quick", "--npix", "32"]
    assert main([*argv, "--json", str(out), "--png", str(png)]) == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["benchmark"] == "aliasing-rx" and report["device"] == "cpu"
    assert (report["npix"], report["beta"], report["quick"]) == (32, 128, True)
    assert report["xs"] == [0, 4, 7, 12, 14, 15]
    assert "PSWF S=6 table, sigma=1, beta=128" in report["setting"]
    (scan,) = report["scans"]
    assert scan["nvis"] == 2016 * 8 * 4 and scan["dec_deg"] == -30.0
    assert set(scan["r"]) == {"pruned-nn", "hybrid", "conv", "conv exact"}
    assert all(len(r) == 6 and min(r) >= 0 for r in scan["r"].values())
    assert set(scan["ranking"]) >= {"holds", "of", "fails_at"} and scan["ranking"]["of"] == 6
    assert "| algorithm | X = 0 |" in text and f"wrote {png}" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--png", "x.png"], "--png plots R(X): use it with --rx"),
        (["--rx", "--betas", "16", "32"], "--rx takes one β"),
    ],
)
def test_bench_aliasing_rx_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "aliasing", "--device", "cpu", "--quick", *args])
    assert exc.value.code == 2 and message in capsys.readouterr().err
