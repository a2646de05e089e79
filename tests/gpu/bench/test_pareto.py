"""The accuracy-vs-time fronts (uvlab.gpu.bench.pareto), on the CPU at a tiny size.

Oracles: the float64 direct DFT written in tests/support/oracles.py (each
point's error recomputed from the gridder's own image), and fronts and
interpolations worked out by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.oracles import dft_image
from uvlab.gpu.bench import grid_data, pareto
from uvlab.gpu.bench.fronts import against_peer, front, matched, time_at
from uvlab.gpu.bench.pareto import ParetoSize, run_pareto, sweep_cases
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import get_gridder
from uvlab.gpu.image_spec import ImageSpec


def pt(alg, err, t, sky="noise", label=None, precision="double"):
    return {
        "algorithm": alg,
        "error": err,
        "total_s": t,
        "sky": sky,
        "precision": precision,
        "label": label or f"{alg} {err:g}",
    }


def test_front_keeps_only_points_no_other_beats_on_both():
    pts = [pt("a", 1e-2, 1.0), pt("a", 1e-3, 2.0), pt("a", 1e-3, 3.0), pt("a", 1e-1, 1.5)]
    pts += [pt("a", 1e-4, 4.0), pt("b", 1e-9, 0.1), pt("a", 1e-5, 1.0, sky="points")]
    # (1e-1, 1.5) is beaten by (1e-2, 1.0); (1e-3, 3.0) by (1e-3, 2.0)
    assert front(pts, "a", "noise") == [(1e-4, 4.0), (1e-3, 2.0), (1e-2, 1.0)]


def test_time_at_interpolates_log_log_and_refuses_unreachable_errors():
    fr = [(1e-4, 4.0), (1e-2, 1.0)]
    assert time_at(fr, 1e-3) == pytest.approx(2.0)  # geometric midpoint of both
    assert time_at(fr, 1e-4) == pytest.approx(4.0)
    assert time_at(fr, 1e-5) is None  # more accurate than the front reaches
    assert time_at(fr, 0.5) == 1.0  # less accurate than needed: its fastest


def test_matched_quotes_each_point_against_conv_at_its_error():
    pts = [pt("conv", 1e-4, 4.0, label="S=6"), pt("conv", 1e-2, 1.0, label="S=3")]
    pts += [pt("hybrid", 1e-3, 0.5, label="β=64"), pt("hybrid", 1e-6, 0.1, label="β=4096")]
    rows = {r["label"]: r for r in matched(pts)}
    r = rows["β=64"]
    assert r["conv_s"] == pytest.approx(2.0) and r["speedup"] == pytest.approx(4.0)
    assert r["conv_match"]["label"] == "S=6"  # the cheapest conv at least as accurate
    assert rows["β=4096"]["conv_s"] is None and rows["β=4096"]["conv_match"] is None


def test_a_peer_is_quoted_against_the_best_of_every_uvlab_front():
    pts = [pt("conv", 1e-6, 8.0, label="S=8"), pt("conv", 1e-3, 2.0, label="S=4")]
    pts += [pt("hybrid", 1e-4, 1.0, label="β=1024"), pt("hybrid", 1e-2, 0.5, label="β=16")]
    pts += [pt("cufinufft", 1e-4, 3.0, label="ε=1e-4"), pt("cufinufft", 1e-8, 9.0, label="ε=1e-8")]
    rows = {r["label"]: r for r in against_peer(pts, "cufinufft")}
    r = rows["ε=1e-4"]  # hybrid β=1024 is uvlab's fastest way to 1e-4 here
    assert r["uvlab_s"] == pytest.approx(1.0) and r["ratio"] == pytest.approx(3.0)
    assert r["uvlab_best"]["label"] == "β=1024"
    assert rows["ε=1e-8"]["uvlab_s"] is None and rows["ε=1e-8"]["ratio"] is None


def test_sweep_drops_settings_whose_numpy_grid_exceeds_the_budget():
    size = ParetoSize(256, 1, 1, 1, betas=(16, 64), nn_betas=(8, 16))
    budget = 16 * (256 * 16) ** 2  # pruned-nn and nn-os at β = 16 just fit
    labels = {c.label for c in sweep_cases(size, budget=budget)}
    assert {"pruned-nn β=16", "nn-os β=16", "hybrid β=64"} <= labels
    assert "pruned-nn β=64" not in labels
    assert len(sweep_cases(size, budget=None)) > len(sweep_cases(size, budget=budget))


def test_point_sky_is_the_exact_sum_of_its_sources():
    spec = ImageSpec(32, 1e-4)
    rng = np.random.default_rng(1)
    u, v = rng.uniform(-500, 500, (2, 50))
    vis = pareto.point_sky_vis(u, v, spec, seed=3, nsrc=2)
    lm = np.random.default_rng(3).uniform(-0.4 * 32 * 1e-4, 0.4 * 32 * 1e-4, (2, 2))
    flux = np.random.default_rng(3)
    flux.uniform(size=(2, 2))
    s = flux.uniform(0.1, 1.0, size=2)
    ref = sum(s[k] * np.exp(2j * np.pi * (u * lm[k, 0] + v * lm[k, 1])) for k in range(2))
    np.testing.assert_allclose(vis, ref, rtol=1e-13)


def test_a_run_reports_every_point_with_its_error_against_the_dft(rng):
    ant = rng.uniform(-1500, 1500, (6, 3))
    size = ParetoSize(
        32, 4, 2, 1, conv_supports=(3, 6), table_betas=(16,), betas=(16,), nn_betas=(2,)
    )
    report = run_pareto(ant, size, device="cpu", repeats=1, log=lambda *_: None)
    pts = report["points"]
    assert {p["algorithm"] for p in pts} == set(pareto.STYLE_ORDER)
    assert {p["sky"] for p in pts} == {"noise", "points"}
    for p in pts:
        assert p["total_s"] > 0 and 0 < p["error"] < 1 and p["error_central"] > 0
    # recompute one point's error from the gridder's own image and the test's DFT
    u, v = grid_data.make_uv(ant, 4, 2)
    spec = ImageSpec(32, grid_data.cell_for(u, v))
    vis = pareto.sky_vis("points", u, v, spec, np.complex128)
    params = GridParams(oversample=16)
    img = get_gridder("pruned-nn")(u, v, vis, spec, params)
    ref = dft_image(u, v, vis, spec)
    want = np.linalg.norm(img - ref) / np.linalg.norm(ref)
    got = next(p for p in pts if p["label"] == "pruned-nn β=16" and p["sky"] == "points")
    assert got["error"] == pytest.approx(want, rel=1e-6)
    # conv at S = 6 is far more accurate than nearest-cell gridding at β = 2
    err = {(p["label"], p["sky"]): p["error"] for p in pts}
    assert err[("conv ES ε=1e-05 S=6", "noise")] < 1e-3 < err[("nn-os β=2", "noise")]
    rows = report["matched"]
    assert len(rows) == len([p for p in pts if p["algorithm"] != "conv"])
    assert all(r["speedup"] is None or math.isfinite(r["speedup"]) for r in rows)
