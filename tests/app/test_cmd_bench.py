"""`uvlab bench aliasing` on the CPU at its --quick size."""

import json

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


def test_bench_aliasing_refuses_odd_beta(capsys):
    assert main(["bench", "aliasing", "--device", "cpu", "--betas", "15"]) == 2
    assert "even" in capsys.readouterr().out
