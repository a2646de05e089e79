"""The predict benchmark logic and the ``uvlab bench predict`` command, at toy sizes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from uvlab.gpu.bench.predict_bench import (
    make_observation,
    make_sky,
    run_predict_bench,
)


def test_observation_geometry_matches_baseline_uvw(rng):
    ant = rng.normal(size=(5, 3)) * 500
    obs = make_observation(ant, ntime=3, nchan=4)
    assert obs.ant_uvw.shape == (3, 5, 3)
    assert len(obs.ant1) == 10 and obs.nrow == 30
    # per-antenna uvw differences are the baselines' uvw: u = sinH·Lx + cosH·Ly at H = −4 h
    h = np.radians(-60.0)
    bl = ant[obs.ant1[0]] - ant[obs.ant2[0]]
    u = obs.ant_uvw[0, obs.ant1[0], 0] - obs.ant_uvw[0, obs.ant2[0], 0]
    assert u == pytest.approx(np.sin(h) * bl[0] + np.cos(h) * bl[1], rel=1e-12)
    assert np.allclose(np.diff(obs.freq_hz), obs.smearing.chan_width_hz)


def test_sky_is_reproducible_and_inside_field():
    a, b = make_sky(50, seed=3), make_sky(50, seed=3)
    assert np.array_equal(a.lmn, b.lmn)
    assert np.all(np.abs(a.lmn[:, :2]) <= np.radians(1.0))
    assert np.all(a.stokes[:, 0] > 0) and not a.has_gaussians


def test_run_predict_bench_cpu_report(rng):
    ant = rng.normal(size=(4, 3)) * 300
    rep = run_predict_bench(
        ant, device="cpu", nsrc_list=(1, 3), ntime=2, nchan=3, repeats=1, log=lambda s: None
    )
    res = rep["results"]
    assert len(res) == 3 * 2 * 2
    assert {r["case"] for r in res} == {"scalar", "scalar+smear", "linear+smear"}
    for r in res:
        assert r["source_vis"] == r["nsrc"] * 12 * 3
        assert r["rate"] == pytest.approx(r["source_vis"] / r["median_s"])
        assert r["rel_err_f32_vs_f64"] < 1e-5
    checked = [r for r in res if "spot_rel_err_vs_reference" in r]
    assert len(checked) == 3 and all(r["spot_rel_err_vs_reference"] < 1e-12 for r in checked)
    json.dumps(rep)


def test_cli_bench_predict_writes_json(tmp_path, capsys):
    from uvlab.app.cli import main

    out = tmp_path / "bench.json"
    code = main(
        [
            "bench",
            "predict",
            "--device",
            "cpu",
            "--sources",
            "2",
            "--times",
            "2",
            "--chans",
            "2",
            "--repeats",
            "1",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    rep = json.loads(out.read_text())
    assert rep["array"] == "meerkat" and rep["observation"]["nant"] == 64
    assert rep["observation"]["nrow"] == 2 * 2016
    assert len(rep["results"]) == 6
    assert "src·vis/s" in capsys.readouterr().out


def test_jones_cases_match_the_brute_force_oracle_and_change_the_answer(rng):
    """The E+G cases: spot-checked against the float64 2×2 oracle; E and G change V."""
    from uvlab.gpu.bench.predict_bench import (
        JONES_CASES,
        bench_case,
        make_jones,
        make_observation,
        make_sky,
    )

    ant = rng.normal(size=(5, 3)) * 300
    rep = run_predict_bench(
        ant, device="cpu", nsrc_list=(3,), ntime=3, nchan=4, repeats=1, log=lambda s: None,
        cases=JONES_CASES,
    )  # fmt: skip
    checked = [r for r in rep["results"] if "spot_rel_err_vs_reference" in r]
    assert len(checked) == len(JONES_CASES)
    assert all(r["spot_rel_err_vs_reference"] < 1e-12 for r in checked)
    assert all(r["jones"]["beam"].startswith("airy") for r in rep["results"])
    obs, sky = make_observation(ant, 3, 4), make_sky(3)
    for kind in ("uniform", "per-antenna"):
        beam, gains = make_jones(obs, sky, kind, "scalar")
        assert beam.shape[1] == (1 if kind == "uniform" else 5)
        plain = bench_case(obs, sky, "scalar", False, np.float64, "cpu", repeats=1)[1]
        with_jones = bench_case(
            obs, sky, "scalar", False, np.float64, "cpu", repeats=1, jones=(beam, gains)
        )[1]
        assert np.abs(with_jones - plain).max() > 1e-3 * np.abs(plain).max()
