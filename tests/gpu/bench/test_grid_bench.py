"""The gridding benchmark's data and bookkeeping, on the CPU at a tiny size."""

import numpy as np

from uvlab.gpu.bench import grid_data
from uvlab.gpu.bench.grid_bench import BenchCase, BenchSize, format_table, run_grid_bench
from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.geometry import baseline_uvw
from uvlab.gpu.gridders.params import GridParams


def antennas(rng, nant=6):
    return rng.uniform(-2000, 2000, (nant, 3))


def test_make_uv_is_ms_ordered_baseline_uvw(rng):
    ant = antennas(rng)
    u, v = grid_data.make_uv(ant, 3, 2, ha_span_h=6.0, dec_deg=-40.0)
    p, q = np.triu_indices(len(ant), 1)
    ha = np.radians(15.0 * np.linspace(-3.0, 3.0, 3))
    uvw = baseline_uvw(ant[p] - ant[q], ha, np.radians(-40.0))  # (time, nbl, 3)
    k = grid_data.channel_freqs(2) / C_LIGHT
    np.testing.assert_allclose(u.reshape(3, p.size, 2), uvw[..., 0, None] * k, rtol=1e-12)
    np.testing.assert_allclose(v.reshape(3, p.size, 2), uvw[..., 1, None] * k, rtol=1e-12)


def test_cpu_bench_reports_rates_stages_and_accuracy(rng):
    conv = GridParams.from_eps(1e-6)
    cases = (BenchCase("conv", conv, 1e-6, "conv"), BenchCase("nn", GridParams(), None, "nn"))
    size = BenchSize(64, 4, 2, cases, dft_step=4)
    report = run_grid_bench(
        antennas(rng), device="cpu", sizes=[size], repeats=1, ducc=False, log=lambda *_: None
    )
    sec = report["sizes"][0]
    assert sec["nvis"] == 4 * 2 * 15
    conv_rec, nn_rec = sec["results"]
    for rec in (conv_rec, nn_rec):
        assert rec["nvis"] == sec["nvis"] and rec["grid_rate"] > 0
        assert rec["stage_s"]["grid"] > 0 and rec["total_s"] >= rec["stage_s"]["grid"]
    assert conv_rec["accuracy"]["rel_l2"] < 1e-5 < nn_rec["accuracy"]["rel_l2"]
    assert "conv" in format_table(report)
