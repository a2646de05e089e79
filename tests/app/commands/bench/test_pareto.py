"""`uvlab bench pareto` on the CPU at a tiny size: the JSON points, the table, the PNG."""

from __future__ import annotations

import json

from uvlab.app.cli import main
from uvlab.app.commands.bench import pareto as bench_pareto
from uvlab.gpu.bench.pareto import STYLE_ORDER

TINY = dict(
    npix=32, ntime=4, nchan=2, dft_step=1, conv_supports=(3, 6), table_betas=(16,),
    betas=(16,), nn_betas=(2,),
)  # fmt: skip


def test_bench_pareto_writes_points_matched_rows_and_a_plot(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(bench_pareto.SIZES, ("cpu", True), TINY)
    js, png = tmp_path / "p.json", tmp_path / "p.png"
    argv = ["bench", "pareto", "--device", "cpu", "--quick", "--repeats", "1"]
    assert main([*argv, "--json", str(js), "--png", str(png)]) == 0
    report = json.loads(js.read_text())
    keys = {"algorithm", "params", "sky", "total_s", "grid_s", "error", "error_central"}
    assert report["points"] and all(keys <= set(p) for p in report["points"])
    assert {p["algorithm"] for p in report["points"]} == set(STYLE_ORDER)
    assert report["peer"] == []  # no cuFINUFFT on the CPU
    hybrid = [r for r in report["matched"] if r["algorithm"] == "hybrid"]
    assert hybrid and all("conv_s" in r and "conv_match" in r for r in hybrid)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    out = capsys.readouterr().out
    assert "conv ms @err" in out and "hybrid β=16" in out
