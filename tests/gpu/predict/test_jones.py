"""E and G in every predict path, against brute-force 2×2 products per row (float64).

The oracle (uvlab.gpu.predict.jones_reference) sums E_p·X_s·E_qᴴ over sources with 2×2
``@`` per row, channel and source, X_s from the float64 triple sum, then applies
G_p·V·G_qᴴ. Every fast path (NumPy "gemm", "weighted", "direct"; CuPy "gemm" and
"direct" under the gpu marker) must agree to 1e-12 (float64) or 1e-5 (float32)
relative, with per-antenna, per-time and complex beams, scalar and 2×2 gains, points
and Gaussians, with and without smearing, and a source exactly at the phase centre.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.scenes import jones_scene, random_sources
from uvlab.gpu.predict import Smearing, predict_antennas
from uvlab.gpu.predict.beams import antenna_beams
from uvlab.gpu.predict.gains import apply_gains, random_gains
from uvlab.gpu.predict.jones_reference import predict_jones_reference
from uvlab.gpu.sources import SourceArrays

TOL = {np.float64: 1e-12, np.float32: 1e-5}
FREQ = 1.3e9 + 3e6 * np.arange(3)


scene = jones_scene


def beams(kind, src, ntime, nant, rng):
    """Beams of a kind: analytic per antenna, or random complex per time and antenna."""
    if kind == "airy":
        dish = np.array([13.5, 13.5, 25.0, 6.0, 13.5])[:nant]
        return antenna_beams("airy", src.lmn, FREQ, dish)
    if kind == "uniform":  # one beam for all: (1, 1, chan, src), folded into the fluxes
        return antenna_beams("gaussian", src.lmn, FREQ, 13.5, gaussian_k=0.3)
    if kind == "real":  # real, per time and antenna: multiplied inside build_k on the GPU
        return 0.5 + rng.random((ntime, nant, len(FREQ), src.nsrc))
    shape = (ntime, nant, len(FREQ), src.nsrc)
    return 0.5 + rng.random(shape) + 0.3j * rng.standard_normal(shape)


def rel_err(a, b):
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b))


CASES = [
    # (mode, method, gaussians, smearing, beam kind, gain kind)
    ("scalar", "gemm", False, False, "airy", "scalar"),
    ("scalar", "gemm", False, False, "complex", None),
    ("scalar", "weighted", True, True, "complex", "scalar"),
    ("scalar", "weighted", False, True, "airy", None),
    ("scalar", "direct", True, True, "complex", "scalar"),
    ("linear", "gemm", False, False, "complex", "jones"),
    ("circular", "gemm", False, False, "airy", "scalar"),
    ("linear", "direct", True, True, "complex", "jones"),
    ("circular", "direct", False, True, "airy", "jones"),
    ("linear", "direct", True, True, "uniform", None),
    ("scalar", "direct", False, False, "uniform", "scalar"),
    ("scalar", "weighted", True, True, "uniform", None),
    ("linear", "gemm", False, False, "uniform", None),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("mode", "method", "gauss", "smear", "bkind", "gkind"), CASES)
def test_paths_match_brute_force_jones(mode, method, gauss, smear, bkind, gkind, dtype):
    ant_uvw, ant1, ant2, src = scene(3, gauss)
    ntime, nant = ant_uvw.shape[:2]
    rng = np.random.default_rng(7)
    beam = beams(bkind, src, ntime, nant, rng)
    gains = None
    if gkind == "scalar":
        gains = random_gains(np.arange(ntime) * 60.0, nant, len(FREQ), amp_rms=0.2,
                             phase_rms_rad=0.5, corr_time_s=100.0, seed=1)  # fmt: skip
    elif gkind == "jones":
        shape = (ntime, nant, len(FREQ), 2, 2)
        gains = 1.0 + 0.3 * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
    sm = Smearing(2e6, 30.0, math.radians(-30.0)) if smear else None
    want = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, mode, sm, beam, gains)
    got = predict_antennas(
        ant_uvw, ant1, ant2, FREQ, src, mode=mode, smearing=sm, dtype=dtype, device="cpu",
        method=method, beam=beam, gains=gains,
    )  # fmt: skip
    assert got.shape == want.shape
    assert rel_err(got, want) < TOL[dtype]
    # the beams and gains matter: without them the answer is far off
    plain = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, mode=mode, smearing=sm,
                             device="cpu", method=method)  # fmt: skip
    assert rel_err(plain, want) > 1e-3


def test_beam_is_the_product_of_voltages():
    """One source, two antennas: V = E_p·conj(E_q)·I·exp(2πiτ·ν/c), written out."""
    lmn = np.array([[0.01, -0.02, math.sqrt(1 - 0.01**2 - 0.02**2)]])
    src = SourceArrays.points(lmn, [[2.5, 0, 0, 0]])
    ant_uvw = np.array([[[100.0, -50.0, 3.0], [-20.0, 40.0, -1.0]]])
    e = np.array([0.9 + 0.1j, 0.6 - 0.2j]).reshape(1, 2, 1, 1) * np.ones((1, 2, 3, 1))
    got = predict_antennas(ant_uvw, [0], [1], FREQ, src, beam=e, device="cpu")
    l, m, n = src.lmn[0]
    tau = 120.0 * l - 90.0 * m + 4.0 * (n - 1)
    k = src.stokes[0, 0] * np.exp(2j * np.pi * FREQ / 299_792_458.0 * tau)
    np.testing.assert_allclose(got[0, 0], (0.9 + 0.1j) * np.conj(0.6 - 0.2j) * k, rtol=1e-12)


def test_apply_gains_scalar_and_jones_agree():
    """Scalar gains g and Jones g·I give the same 2×2 visibilities."""
    rng = np.random.default_rng(2)
    vis = rng.standard_normal((2, 3, 4, 2, 2)) + 1j * rng.standard_normal((2, 3, 4, 2, 2))
    g = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    a1, a2 = np.array([0, 0, 1]), np.array([1, 2, 2])
    s = apply_gains(vis.copy(), g, a1, a2)
    j = apply_gains(vis.copy(), g[..., None, None] * np.eye(2), a1, a2)
    np.testing.assert_allclose(s, j, rtol=1e-13)
    np.testing.assert_allclose(s[1, 2, 3], g[1, 1, 3] * np.conj(g[1, 2, 3]) * vis[1, 2, 3])


def test_bad_shapes_are_refused():
    ant_uvw, ant1, ant2, src = scene(3)
    with pytest.raises(ValueError, match="beam must be"):
        predict_antennas(ant_uvw, ant1, ant2, FREQ, src, beam=np.ones((1, 1, 2, 4)), device="cpu")
    with pytest.raises(ValueError, match="gains"):
        predict_antennas(ant_uvw, ant1, ant2, FREQ, src, gains=np.ones((1, 3, 3)), device="cpu")
    with pytest.raises(ValueError, match="2×2 gains need"):
        predict_antennas(
            ant_uvw, ant1, ant2, FREQ, src, gains=np.ones((1, 5, 3, 2, 2)), device="cpu"
        )


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("mode", "smear"), [("scalar", False), ("linear", False), ("scalar", True), ("circular", True)]
)
@pytest.mark.parametrize("bkind", ["complex", "uniform", "real", "airy"])
def test_gpu_matches_numpy_with_jones(mode, smear, dtype, bkind):
    """CuPy "gemm" (beams times build_k's operands) and "direct" (per-row beams read by
    the row kernel; a uniform beam folded into its fluxes) against NumPy and the oracle."""
    ant_uvw, ant1, ant2, src = scene(4, gaussians=smear)
    ntime, nant = ant_uvw.shape[:2]
    rng = np.random.default_rng(9)
    beam = beams(bkind, src, ntime, nant, rng)
    gains = random_gains(np.arange(ntime) * 60.0, nant, len(FREQ), amp_rms=0.1,
                         phase_rms_rad=0.3, seed=2)  # fmt: skip
    sm = Smearing(2e6, 30.0, math.radians(-30.0)) if smear else None
    want = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, mode, sm, beam, gains)
    kw = dict(mode=mode, smearing=sm, dtype=dtype, beam=beam, gains=gains)
    gpu = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, device="gpu", **kw)
    cpu = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, device="cpu", **kw)
    assert rel_err(gpu, want) < TOL[dtype]
    assert rel_err(gpu, cpu) < 2 * TOL[dtype]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize(("pol", "jones", "gtime"), [(1, 1, 3), (4, 1, 1), (4, 4, 3), (4, 4, 1)])
def test_cuda_gains_kernel_equals_the_array_reference(dtype, pol, jones, gtime):
    import cupy

    from uvlab.gpu.predict.cuda_gains import apply_gains_cuda
    from uvlab.gpu.predict.gains import apply_gains

    rng = np.random.default_rng(4)
    nant, ntime, nchan = 5, 3, 4
    p, q = np.triu_indices(nant, 1)
    vshape = (ntime, len(p), nchan) + ((2, 2) if pol == 4 else ())
    gshape = (gtime, nant, nchan) + ((2, 2) if jones == 4 else ())
    vis = (rng.standard_normal(vshape) + 1j * rng.standard_normal(vshape)).astype(dtype)
    g = rng.standard_normal(gshape) + 1j * rng.standard_normal(gshape)
    want = apply_gains(vis.astype(np.complex128), g, p, q, np)
    got = apply_gains_cuda(cupy.asarray(vis), cupy.asarray(g), p, q).get()
    tol = 1e-5 if dtype == np.complex64 else 1e-13
    assert np.abs(got - want).max() <= tol * np.abs(want).max()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["scalar", "linear"])
@pytest.mark.parametrize("bkind", ["real", "complex"])
def test_row_kernel_beams_across_tiles_and_channel_blocks(mode, dtype, bkind):
    """The row kernel reads each row's E_p, E_q itself: 150 sources (three shared-memory
    tiles), 40 channels (two or three channel blocks), 2 × 28 rows per time, Gaussians and
    smearing, against the NumPy array sum (the oracle of the test above), through
    predict_antennas and through predict_rows with per-row indices (the MS path)."""
    from uvlab.gpu.predict import predict_rows

    rng = np.random.default_rng(11)
    ntime, nant, nsrc = 3, 8, 150
    freq = 1.2e9 + 1e6 * np.arange(40)
    ant_uvw = rng.normal(size=(ntime, nant, 3)) * np.array([2000.0, 2000.0, 300.0])
    p, q = np.triu_indices(nant, k=1)
    src = random_sources(rng, nsrc, 0.03, True, centre=True)
    shape = (ntime, nant, len(freq), nsrc)
    beam = 0.5 + rng.random(shape)
    if bkind == "complex":
        beam = beam + 0.3j * rng.standard_normal(shape)
    sm = Smearing(1e6, 8.0, math.radians(-40.0))
    kw = dict(mode=mode, smearing=sm, dtype=dtype, beam=beam, method="direct")
    want = predict_antennas(ant_uvw, p, q, freq, src, device="cpu", **kw)
    got = predict_antennas(ant_uvw, p, q, freq, src, device="gpu", **kw)
    assert rel_err(got, want) < TOL[dtype]
    rows = (ant_uvw[:, p] - ant_uvw[:, q]).reshape(-1, 3)
    t = np.repeat(np.arange(ntime), len(p))
    row_beam = (beam, t, np.tile(p, ntime), np.tile(q, ntime))
    by_rows = predict_rows(rows, freq, src, mode=mode, smearing=sm, dtype=dtype, device="gpu",
                           row_beam=row_beam, chunk_rows=50)  # fmt: skip
    assert rel_err(by_rows.reshape(want.shape), want) < TOL[dtype]
