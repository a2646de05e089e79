"""`uvlab bench worker`: the GUI worker's job, timed without Qt, reuses its cache."""

import json

from uvlab.app.cli import main


def test_worker_bench_reuses_prediction_for_imaging_only_changes(tmp_path, capsys):
    out = tmp_path / "w.json"
    argv = ["bench", "worker", "--device", "cpu", "--npix", "128", "--repeats", "1"]
    assert main([*argv, "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    runs = result["runs"]
    assert set(runs) == {"cold", "repeat", "weighting", "cell", "sky edit", "declination"}
    assert {"uvw", "predict", "grid"} <= set(runs["cold"]["timing_s"])
    # imaging-only changes skip simulation and prediction; a new declination does not
    for name in ("repeat", "weighting", "cell"):
        assert "predict" not in runs[name]["timing_s"] and "grid" in runs[name]["timing_s"]
    # a sky edit predicts (only the added source) but simulates nothing
    assert "predict" in runs["sky edit"]["timing_s"] and "uvw" not in runs["sky edit"]["timing_s"]
    assert "predict" in runs["declination"]["timing_s"]
    assert all(r["latency_s"] > 0 for r in runs.values())
    assert result["nvis"] == 180 * 2016 * 4
    assert "declination" in capsys.readouterr().out
