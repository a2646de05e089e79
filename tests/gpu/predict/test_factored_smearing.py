"""The per-antenna path with per-baseline smearing and Gaussian factors ("weighted").

Against the float64 triple sum (uvlab.gpu.predict.reference) at the tolerances of
test_reference.py (float64 1e-12, float32 1e-5 relative): random antenna layouts with
reversed pairs and autocorrelations, points and Gaussians, time and/or bandwidth smearing,
equal or unequal channel widths and a single channel, sources near the phase centre (the
Taylor series) and far from it (sin(x)/x).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import uvlab.gpu.predict.factored_smearing as fsm
from tests.support.scenes import random_sources
from uvlab.gpu.predict import Smearing, predict_antennas, predict_reference
from uvlab.gpu.predict.baseline_factors import plan_smearing
from uvlab.gpu.predict.direct import prepare_sources
from uvlab.gpu.sources import SourceArrays

TOL = {np.float64: 1e-12, np.float32: 1e-5}


CHANNELS = {
    "uniform": (1.3e9 + 2e6 * np.arange(5), 2e6),
    "unequal": (np.array([0.95e9, 1.1e9, 1.12e9, 1.5e9]), np.array([1e6, 4e6, 0.5e6, 8e6])),
    "single": (np.array([1.42e9]), 5e6),
}


@functools.cache
def scene(seed, channels, fov, int_s, nant=7, ntime=3, nsrc=6, gaussians=True, origin=0.0):
    """(ant_uvw, ant1, ant2, freq, sources, smearing, rows) drawn from one seed."""
    rng = np.random.default_rng(seed)
    ant_uvw = rng.normal(size=(ntime, nant, 3)) * np.array([2000.0, 2000.0, 400.0])
    p, q = np.triu_indices(nant, k=1)
    ant1 = np.r_[p, q[:3], 2, 4]  # some reversed pairs and autocorrelations too
    ant2 = np.r_[q, p[:3], 2, 4]
    freq, width = CHANNELS[channels]
    src = random_sources(rng, nsrc, fov, gaussians, centre=True)
    sm = Smearing(width, int_s, math.radians(-35.0))
    ant_uvw = ant_uvw + origin
    rows = (ant_uvw[:, ant1] - ant_uvw[:, ant2]).reshape(-1, 3)
    return ant_uvw, ant1, ant2, freq, src, sm, rows


@functools.cache
def reference(seed, channels, fov, int_s, time=True, band=True, **kw):
    *_, freq, src, sm, rows = scene(seed, channels, fov, int_s, **kw)
    sm = Smearing(sm.chan_width_hz, sm.int_s, sm.dec0_rad, time=time, band=band)
    ntime = len(rows) // len(scene(seed, channels, fov, int_s, **kw)[1])
    return predict_reference(rows, freq, src, "scalar", sm).reshape(ntime, -1, len(freq))


def rel_err(a, b):
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b))


def weighted(seed, channels, fov, int_s, dtype, time=True, band=True, **kw):
    ant_uvw, ant1, ant2, freq, src, sm, _ = scene(seed, channels, fov, int_s, **kw)
    sm = Smearing(sm.chan_width_hz, sm.int_s, sm.dec0_rad, time=time, band=band)
    return predict_antennas(
        ant_uvw, ant1, ant2, freq, src, smearing=sm, dtype=dtype, device="cpu", method="weighted"
    )


# (fov rad, integration s): near the centre the sinc is a Taylor series, far out sin(x)/x
REGIMES = {"series": (0.004, 8.0), "sine": (0.1, 120.0)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("channels", list(CHANNELS))
@pytest.mark.parametrize("regime", list(REGIMES))
def test_matches_reference(dtype, channels, regime):
    fov, int_s = REGIMES[regime]
    ref = reference(3, channels, fov, int_s)
    got = weighted(3, channels, fov, int_s, dtype)
    assert got.shape == ref.shape
    assert got.dtype == (np.complex128 if dtype == np.float64 else np.complex64)
    assert rel_err(got, ref) <= TOL[dtype]


@pytest.mark.parametrize("regime", list(REGIMES))
def test_scenes_exercise_both_sinc_regimes(regime):
    """The smearing matters in both scenes, and each takes the sinc branch it is named for."""
    fov, int_s = REGIMES[regime]
    ant_uvw, _, _, freq, src, sm, rows = scene(3, "uniform", fov, int_s)
    plain = predict_reference(rows, freq, src, "scalar")
    assert rel_err(reference(3, "uniform", fov, int_s).reshape(plain.shape), plain) > 1e-3
    prep = prepare_sources(src, freq, "scalar", np.float64)
    uvw = ant_uvw - ant_uvw.mean(axis=1, keepdims=True)
    terms = fsm.antenna_terms(uvw, freq, prep.lmn, prep.stokes[:, :, 0], np.float64, -0.6, False)
    plan = plan_smearing(sm, freq, terms.span, np.float64)
    assert (plan.table is None) == (regime == "sine")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("which", [(True, False), (False, True), (False, False)])
def test_time_only_band_only_and_gaussians_only(dtype, which):
    time, band = which
    ref = reference(4, "unequal", 0.02, 60.0, time=time, band=band)
    got = weighted(4, "unequal", 0.02, 60.0, dtype, time=time, band=band)
    assert rel_err(got, ref) <= TOL[dtype]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_points_only_and_far_origin(dtype):
    """Antenna uvw about a far origin (ITRF-like 6400 km): only differences may enter."""
    kw = dict(gaussians=False, origin=6.4e6)
    ref = reference(5, "uniform", 0.01, 30.0, **kw)
    assert rel_err(weighted(5, "uniform", 0.01, 30.0, dtype, **kw), ref) <= TOL[dtype]


def test_float32_keeps_phase_on_long_baselines(rng):
    """100 km baselines, sources 3° out, 1.7 GHz: ~3·10⁴ turns, float32 still ≤ 1e-5."""
    ant_uvw = rng.normal(size=(2, 7, 3)) * np.array([60e3, 60e3, 10e3])
    p, q = np.triu_indices(7, k=1)
    src = random_sources(rng, 8, 0.1, gaussians=False, centre=True)
    freq = np.linspace(1.6e9, 1.7e9, 12)
    sm = Smearing(1e5, 2.0, -0.4)
    rows = (ant_uvw[:, p] - ant_uvw[:, q]).reshape(-1, 3)
    ref = predict_reference(rows, freq, src, "scalar", sm).reshape(2, -1, 12)
    # phases of ~1e5 rad: the float64 oracle itself rounds them to ~1e-11 (direct: 5e-12)
    for dtype, tol in ((np.float64, 1e-10), (np.float32, TOL[np.float32])):
        got = predict_antennas(ant_uvw, p, q, freq, src, smearing=sm, dtype=dtype, device="cpu")
        assert rel_err(got, ref) <= tol


def test_chunks_blocks_and_threads_agree(monkeypatch):
    """Many sources in several chunks of times, sources, channels and baseline blocks."""
    kw = dict(nant=9, ntime=5, nsrc=40)
    ant_uvw, ant1, ant2, freq, src, sm, _ = scene(6, "uniform", 0.01, 30.0, **kw)
    prep = prepare_sources(src, freq, "scalar", np.float64)
    whole = fsm.predict_factored_smeared(ant_uvw, ant1, ant2, freq, prep, sm, np.float64)
    ref = reference(6, "uniform", 0.01, 30.0, **kw)
    assert rel_err(whole, ref) <= TOL[np.float64]
    monkeypatch.setattr(fsm, "BLOCK_ELEMENTS", 64)
    monkeypatch.setattr(fsm, "SRC_CHAN_MAX", 2)
    assert fsm.chunk_shape(5, 40, 5, 9, 26, 1e9) == (5, 1, 2)
    assert fsm.chunk_shape(5, 40, 5, 9, 26, 2000) == (1, 1, 2)
    for threads in (1, 2):
        parts = fsm.predict_factored_smeared(
            ant_uvw, ant1, ant2, freq, prep, sm, np.float64, budget=2000, threads=threads
        )
        assert rel_err(parts, whole) <= 1e-14


def test_unused_antennas_and_empty_inputs():
    ant_uvw, ant1, ant2, freq, src, sm, _ = scene(7, "uniform", 0.01, 30.0)
    prep = prepare_sources(src, freq, "scalar", np.float64)
    extra = np.concatenate([ant_uvw, np.full((3, 4, 3), 1e7)], axis=1)  # never referenced
    got = fsm.predict_factored_smeared(extra, ant1, ant2, freq, prep, sm, np.float64)
    assert rel_err(got, reference(7, "uniform", 0.01, 30.0)) <= TOL[np.float64]
    none = prepare_sources(src.select(np.array([], dtype=int)), freq, "scalar", np.float64)
    zero = fsm.predict_factored_smeared(ant_uvw, ant1, ant2, freq, none, sm, np.float64)
    assert zero.shape == got.shape and not np.any(zero)
    empty = fsm.predict_factored_smeared(ant_uvw, ant1[:0], ant2[:0], freq, prep, sm, np.float64)
    assert empty.shape == (3, 0, len(freq))


def test_auto_takes_weighted_on_cpu_for_scalar_with_smearing_or_gaussians(monkeypatch):
    ant_uvw, ant1, ant2, freq, src, sm, _ = scene(8, "uniform", 0.01, 30.0)
    calls = []
    real = fsm.predict_factored_smeared

    def spy(*args, **kwargs):
        calls.append(args[5])
        return real(*args, **kwargs)

    monkeypatch.setattr(fsm, "predict_factored_smeared", spy)
    for smearing in (sm, None):  # src has Gaussians: both go the weighted way
        predict_antennas(ant_uvw, ant1, ant2, freq, src, smearing=smearing, device="cpu")
    assert calls == [sm, None]
    points = SourceArrays.points(src.lmn, src.stokes)
    predict_antennas(ant_uvw, ant1, ant2, freq, points, device="cpu")  # "gemm"
    predict_antennas(ant_uvw, ant1, ant2, freq, src, mode="linear", smearing=sm, device="cpu")
    assert len(calls) == 2
    with pytest.raises(ValueError, match=r"Stokes I .* on the CPU"):
        predict_antennas(ant_uvw, ant1, ant2, freq, src, mode="linear", method="weighted")
