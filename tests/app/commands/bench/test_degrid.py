"""`uvlab bench degrid` on the CPU at a tiny size: the JSON records and the table."""

from __future__ import annotations

import json

import numpy as np

from uvlab.app.cli import main
from uvlab.app.commands.bench import degrid as bench_degrid
from uvlab.gpu import ducc_engine
from uvlab.gpu.bench.degrid_bench import make_model, vis_error


def test_bench_degrid_writes_records(tmp_path, capsys, monkeypatch):
    tiny = dict(npix=64, ntime=4, nchan=2, nsub=200, nsrc=50)
    monkeypatch.setitem(bench_degrid.SIZES, ("cpu", True), tiny)
    js = tmp_path / "d.json"
    argv = ["bench", "degrid", "--device", "cpu", "--quick", "--repeats", "1"]
    assert main([*argv, "--json", str(js)]) == 0
    report = json.loads(js.read_text())
    assert report["nvis"] == 2016 * 4 * 2 and report["dft_subsample"] == 200
    for rec in report["records"]:
        assert rec["total_s"] > 0 and rec["rate_vis_per_s"] > 0
        assert rec["error"]["rel_l2"] < 1e-4  # ε = 1e-5 on both host engines
        assert "grid" in rec["stages_s"]
        assert ("ducc0" in rec) == ducc_engine.available()
    assert "degridding 64²" in capsys.readouterr().out


def test_model_and_error_helpers():
    img = make_model(32, 10)
    assert img.shape == (32, 32) and 0 < np.count_nonzero(img) <= 10 and img.min() >= 0
    ref = np.array([1.0, 2.0j, -3.0])
    err = vis_error(ref + np.array([0.0, 0.0, 0.3]), ref)
    assert np.isclose(err["max_over_peak"], 0.1)
    assert np.isclose(err["rel_l2"], 0.3 / np.sqrt(14))
