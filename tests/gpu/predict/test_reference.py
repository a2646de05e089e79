"""Every predict path against the float64 triple sum (uvlab.gpu.predict.reference).

Random arrays, sources (points and Gaussians, random Stokes and spectral
indices) and frequencies; every mode with smearing off and on; float64 to
1e-12 and float32 to 1e-5 relative; NumPy and CuPy (``gpu`` marker).
"""

from __future__ import annotations

import cmath
import functools
import math

import numpy as np
import pytest

from tests.support.scenes import random_sources
from uvlab.gpu.predict import Smearing, predict_antennas, predict_reference, predict_rows
from uvlab.gpu.sources import SourceArrays

C = 299_792_458.0
TOL = {np.float64: 1e-12, np.float32: 1e-5}
DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@functools.cache
def config(
    seed: int, uniform: bool, nrow: int = 20, nchan: int = 11, nsrc: int = 5, gaussians: bool = True
):
    """(uvw, freq, sources, smearing) drawn from one seed; uniform=False for random channels."""
    rng = np.random.default_rng(seed)
    uvw = rng.normal(size=(nrow, 3)) * np.array([1500.0, 1500.0, 300.0])
    freq = 1.2e9 + 2e6 * np.arange(nchan) if uniform else np.sort(rng.uniform(0.9e9, 1.7e9, nchan))
    width = 2e6 if uniform else rng.uniform(0.5e6, 5e6, nchan)
    sm = Smearing(width, 16.0, math.radians(-40.0))
    return uvw, freq, random_sources(rng, nsrc, gaussians=gaussians), sm


@functools.cache
def reference(seed, uniform, mode, smear, **kw):
    uvw, freq, src, sm = config(seed, uniform, **kw)
    return predict_reference(uvw, freq, src, mode, sm if smear else None)


def rel_err(a, b):
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b))


def test_reference_single_term_by_hand():
    """One source, one row, one channel, written out independently of the module."""
    l, m = 0.03, -0.02
    n = math.sqrt(1 - l * l - m * m)
    src = SourceArrays.points([[l, m, n]], [[2.0, 0.3, -0.4, 0.1]], [-0.8], [1.0e9])
    u, v, w, nu = 1234.5, -987.6, 55.5, 1.4e9
    s = (nu / 1.0e9) ** -0.8
    phase = cmath.exp(2j * math.pi * nu / C * (u * l + v * m + w * (n - 1)))
    got = predict_reference([[u, v, w]], [nu], src, "linear")[0, 0]
    want = s * phase * np.array([[2.3, -0.4 + 0.1j], [-0.4 - 0.1j, 1.7]])
    assert np.allclose(got, want, rtol=1e-14, atol=0)
    assert predict_reference([[u, v, w]], [nu], src, "scalar")[0, 0] == pytest.approx(2 * s * phase)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["scalar", "linear", "circular"])
@pytest.mark.parametrize("smear", [False, True])
@pytest.mark.parametrize("uniform", [True, False])
def test_rows_match_reference(device, dtype, mode, smear, uniform):
    uvw, freq, src, sm = config(7, uniform)
    ref = reference(7, uniform, mode, smear)
    got = predict_rows(
        uvw, freq, src, mode=mode, smearing=sm if smear else None, dtype=dtype, device=device
    )
    assert got.shape == ref.shape
    assert got.dtype == (np.complex128 if dtype == np.float64 else np.complex64)
    assert rel_err(got, ref) <= TOL[dtype]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("smear", [(True, False), (False, True)])
def test_time_only_and_band_only(device, dtype, smear):
    uvw, freq, src, sm = config(8, True)
    one = Smearing(sm.chan_width_hz, sm.int_s, sm.dec0_rad, time=smear[0], band=smear[1])
    ref = predict_reference(uvw, freq, src, "linear", one)
    assert rel_err(ref, predict_reference(uvw, freq, src, "linear")) > 1e-3  # it matters
    got = predict_rows(uvw, freq, src, mode="linear", smearing=one, dtype=dtype, device=device)
    assert rel_err(got, ref) <= TOL[dtype]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_many_rows_and_sources(device, dtype):
    """More rows than a GPU thread block and more sources than a shared-memory tile."""
    kw = dict(nrow=150, nchan=3, nsrc=70, gaussians=True)
    uvw, freq, src, sm = config(9, True, **kw)
    ref = reference(9, True, "scalar", True, **kw)
    got = predict_rows(
        uvw, freq, src, mode="scalar", smearing=sm, dtype=dtype, device=device, chunk_rows=64
    )
    assert rel_err(got, ref) <= TOL[dtype]


def test_smearing_and_gaussians_matter():
    """The configurations used above are not trivially close to the plain point-source sum."""
    uvw, freq, src, _ = config(7, True)
    points = SourceArrays.points(src.lmn, src.stokes, src.spectral_index, src.ref_freq)
    plain = predict_reference(uvw, freq, points, "scalar")
    gauss = predict_reference(uvw, freq, src, "scalar")
    assert rel_err(gauss, plain) > 1e-2
    assert rel_err(reference(7, True, "scalar", True), gauss) > 1e-2


def antenna_config(seed, nant=7, ntime=3, nchan=9, nsrc=6):
    rng = np.random.default_rng(seed)
    ant_uvw = rng.normal(size=(ntime, nant, 3)) * np.array([2000.0, 2000.0, 400.0])
    p, q = np.triu_indices(nant, k=1)
    # some reversed pairs and autocorrelations too
    ant1 = np.r_[p, q[:3], 2, 4]
    ant2 = np.r_[q, p[:3], 2, 4]
    freq = 1.3e9 + 1.5e6 * np.arange(nchan)
    src = random_sources(rng, nsrc, gaussians=False)
    return ant_uvw, ant1, ant2, freq, src


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["scalar", "linear", "circular"])
@pytest.mark.parametrize("method", ["auto", "gemm", "fused", "direct"])
def test_antennas_match_reference(device, dtype, mode, method):
    if method == "fused" and mode != "scalar":
        pytest.skip("fused is scalar only")
    ant_uvw, ant1, ant2, freq, src = antenna_config(11)
    rows = (ant_uvw[:, ant1] - ant_uvw[:, ant2]).reshape(-1, 3)
    ref = predict_reference(rows, freq, src, mode).reshape(
        (ant_uvw.shape[0], len(ant1)) + ((len(freq),) if mode == "scalar" else (len(freq), 2, 2))
    )
    got = predict_antennas(
        ant_uvw, ant1, ant2, freq, src, mode=mode, dtype=dtype, device=device, method=method
    )
    assert got.shape == ref.shape
    assert rel_err(got, ref) <= TOL[dtype]


@pytest.mark.parametrize("device", DEVICES)
def test_antennas_with_smearing_use_rows(device):
    ant_uvw, ant1, ant2, freq, src = antenna_config(12, nsrc=4)
    sm = Smearing(1.5e6, 8.0, -0.6)
    rows = (ant_uvw[:, ant1] - ant_uvw[:, ant2]).reshape(-1, 3)
    ref = predict_reference(rows, freq, src, "circular", sm).reshape(
        ant_uvw.shape[0], len(ant1), len(freq), 2, 2
    )
    got = predict_antennas(
        ant_uvw, ant1, ant2, freq, src, mode="circular", smearing=sm, device=device
    )
    assert rel_err(got, ref) <= 1e-12
    with pytest.raises(ValueError, match="point sources and no smearing"):
        predict_antennas(ant_uvw, ant1, ant2, freq, src, smearing=sm, device=device, method="gemm")
