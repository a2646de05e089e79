"""2×2 Jones primary beams in every predict entry that takes beams, against the oracle.

The oracle (uvlab.gpu.predict.jones_reference) sums E_p·X_s·E_qᴴ with 2×2 ``@`` per row,
channel and source in float64, X_s from the plain float64 triple sum. The direct sum of
:func:`uvlab.gpu.predict.direct.direct_rows` (through ``predict_antennas`` and
``predict_rows``) must agree to 1e-12 (float64) or 1e-5 (float32) relative, for random
complex beams that differ per antenna and per time, linear and circular feeds, points
and Gaussians, with smearing; a beam the same everywhere (folded into E·B·Eᴴ) too. A
diagonal Jones beam xx = yy = E is the scalar beam E; "scalar" mode is refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.scenes import jones_scene
from uvlab.gpu.predict import Smearing, predict_antennas, predict_rows
from uvlab.gpu.predict.beams import power_beam
from uvlab.gpu.predict.jones_reference import predict_jones_reference

TOL = {np.float64: 1e-12, np.float32: 1e-5}
FREQ = 1.3e9 + 3e6 * np.arange(3)
SMEAR = Smearing(2e6, 30.0, math.radians(-30.0))


scene = jones_scene


def jones(rng, shape):
    """Random complex 2×2 beams: a strong diagonal and a leakage of ~0.3."""
    z = rng.standard_normal((*shape, 2, 2)) + 1j * rng.standard_normal((*shape, 2, 2))
    return np.eye(2) + 0.3 * z


def rel_err(a, b):
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["linear", "circular"])
@pytest.mark.parametrize(
    ("lead", "gauss", "smear", "method"),
    [
        ("time-ant", True, True, "auto"),
        ("time-ant", False, False, "gemm"),  # routed to "direct"
        ("ant", False, True, "direct"),
        ("time", True, False, "auto"),
        ("uniform", True, True, "direct"),  # folded into E·B·Eᴴ
        ("uniform", False, False, "gemm"),
    ],
)
def test_predict_antennas_matches_oracle(lead, gauss, smear, method, mode, dtype):
    ant_uvw, ant1, ant2, src = scene(3, gauss)
    ntime, nant = ant_uvw.shape[:2]
    dims = {"time-ant": (ntime, nant), "ant": (1, nant), "time": (ntime, 1), "uniform": (1, 1)}
    rng = np.random.default_rng(11)
    beam = jones(rng, (*dims[lead], len(FREQ), src.nsrc))
    sm = SMEAR if smear else None
    want = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, mode, sm, beam)
    got = predict_antennas(
        ant_uvw, ant1, ant2, FREQ, src, mode=mode, smearing=sm, dtype=dtype, device="cpu",
        method=method, beam=beam,
    )  # fmt: skip
    assert got.shape == want.shape == (ntime, len(ant1), len(FREQ), 2, 2)
    err = rel_err(got, want)
    print(f"{lead} {mode} {np.dtype(dtype).name}: {err:.2e}")
    assert err < TOL[dtype]
    # the leakage matters: the diagonal part alone is far off
    diag = beam * np.eye(2)
    plain = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, mode, sm, diag)
    assert rel_err(plain, want) > 1e-2


def test_jones_beams_with_jones_gains():
    """E inside the source sum, G outside: G_p·(Σ E_p·X·E_qᴴ)·G_qᴴ."""
    ant_uvw, ant1, ant2, src = scene(5, gaussians=True)
    ntime, nant = ant_uvw.shape[:2]
    rng = np.random.default_rng(3)
    beam = jones(rng, (ntime, nant, len(FREQ), src.nsrc))
    gains = jones(rng, (ntime, nant, len(FREQ)))
    want = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, "linear", SMEAR, beam, gains)
    got = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, mode="linear", smearing=SMEAR,
                           device="cpu", beam=beam, gains=gains)  # fmt: skip
    assert rel_err(got, want) < 1e-12


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_predict_rows_matches_oracle(mode, dtype):
    """Rows in any order with their own (t, p, q) into a (time, ant) Jones beam, in chunks."""
    ant_uvw, ant1, ant2, src = scene(6, gaussians=True)
    ntime, nant = ant_uvw.shape[:2]
    rng = np.random.default_rng(4)
    beam = jones(rng, (ntime, nant, len(FREQ), src.nsrc))
    want = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, mode, SMEAR, beam)
    t, b = np.meshgrid(np.arange(ntime), np.arange(len(ant1)), indexing="ij")
    order = rng.permutation(t.size)
    t, b = t.ravel()[order], b.ravel()[order]
    p, q = ant1[b], ant2[b]
    uvw = ant_uvw[t, p] - ant_uvw[t, q]
    got = predict_rows(uvw, FREQ, src, mode=mode, smearing=SMEAR, dtype=dtype, device="cpu",
                       chunk_rows=7, row_beam=(beam, t, p, q))  # fmt: skip
    assert rel_err(got, want[t, b]) < TOL[dtype]


def test_diagonal_jones_is_the_scalar_beam():
    """xx = yy = E, xy = yx = 0 gives what the scalar beam E gives, to rounding."""
    ant_uvw, ant1, ant2, src = scene(7, gaussians=True)
    ntime, nant = ant_uvw.shape[:2]
    rng = np.random.default_rng(5)
    shape = (ntime, nant, len(FREQ), src.nsrc)
    e = 0.5 + rng.random(shape) + 0.3j * rng.standard_normal(shape)
    diag = e[..., None, None] * np.eye(2)
    for mode in ("linear", "circular"):
        kw = dict(mode=mode, smearing=SMEAR, device="cpu", method="direct")
        scalar = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, beam=e, **kw)
        full = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, beam=diag, **kw)
        err = np.max(np.abs(full - scalar)) / np.max(np.abs(scalar))
        print(f"{mode}: max |diag − scalar| / max = {err:.1e}")
        assert err < 1e-14


def test_scalar_mode_and_factored_methods_refuse_jones():
    ant_uvw, ant1, ant2, src = scene(3)
    ntime, nant = ant_uvw.shape[:2]
    beam = jones(np.random.default_rng(0), (ntime, nant, len(FREQ), src.nsrc))
    with pytest.raises(ValueError, match="mode 'linear' or 'circular'"):
        predict_antennas(ant_uvw, ant1, ant2, FREQ, src, beam=beam, device="cpu")
    with pytest.raises(ValueError, match="mode 'linear' or 'circular'"):
        predict_antennas(ant_uvw, ant1, ant2, FREQ, src, beam=beam[:1, :1], device="cpu")
    with pytest.raises(ValueError, match="not by method 'weighted'"):
        predict_antennas(ant_uvw, ant1, ant2, FREQ, src, mode="linear", beam=beam,
                         device="cpu", method="weighted")  # fmt: skip
    rows = ant_uvw[0, ant1] - ant_uvw[0, ant2]
    zero = np.zeros(len(rows), dtype=int)
    with pytest.raises(ValueError, match="mode 'linear' or 'circular'"):
        predict_rows(rows, FREQ, src, device="cpu", row_beam=(beam, zero, ant1, ant2))
    with pytest.raises(ValueError, match=r"beam must be .*\[, 2, 2\]"):
        predict_antennas(ant_uvw, ant1, ant2, FREQ, src, mode="linear", device="cpu",
                         beam=np.ones((ntime, nant, len(FREQ), src.nsrc, 2, 3)))  # fmt: skip


def test_power_beam_is_half_the_frobenius_norm():
    rng = np.random.default_rng(1)
    e = jones(rng, (4, 5))
    want = 0.5 * np.einsum("...ij,...ij->...", e, np.conj(e)).real  # ½·tr(E·Eᴴ)
    np.testing.assert_allclose(power_beam(e, jones=True), want, rtol=1e-14)
    s = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    np.testing.assert_allclose(power_beam(s[..., None, None] * np.eye(2), jones=True),
                               np.abs(s) ** 2, rtol=1e-14)  # fmt: skip
    np.testing.assert_allclose(power_beam(s, jones=False), np.abs(s) ** 2, rtol=1e-14)
    # an unpolarised source through two alike antennas: Stokes I = ½(XX + YY) = A·I
    b = 2.5 * np.eye(2)
    vis = e @ b @ np.conj(np.swapaxes(e, -1, -2))
    np.testing.assert_allclose(0.5 * (vis[..., 0, 0] + vis[..., 1, 1]).real,
                               2.5 * power_beam(e, jones=True), rtol=1e-13)  # fmt: skip


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("mode", "lead"), [("linear", "time-ant"), ("circular", "uniform")])
def test_gpu_matches_numpy_with_jones_beams(mode, lead, dtype):
    """CuPy's array-module sum (per-row Jones) and the folded uniform beam on the RawKernel,
    against NumPy and the oracle."""
    import cupy

    ant_uvw, ant1, ant2, src = scene(8, gaussians=True)
    ntime, nant = ant_uvw.shape[:2]
    rng = np.random.default_rng(9)
    lead_shape = (ntime, nant) if lead == "time-ant" else (1, 1)
    beam = jones(rng, (*lead_shape, len(FREQ), src.nsrc))
    want = predict_jones_reference(ant_uvw, ant1, ant2, FREQ, src, mode, SMEAR, beam)
    kw = dict(mode=mode, smearing=SMEAR, dtype=dtype)
    gpu = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, device="gpu", beam=beam, **kw)
    cpu = predict_antennas(ant_uvw, ant1, ant2, FREQ, src, device="cpu", beam=beam, **kw)
    assert rel_err(gpu, want) < TOL[dtype]
    assert rel_err(gpu, cpu) < 2 * TOL[dtype]
    t, b = np.meshgrid(np.arange(ntime), np.arange(len(ant1)), indexing="ij")
    t, b = t.ravel(), b.ravel()
    uvw = ant_uvw[t, ant1[b]] - ant_uvw[t, ant2[b]]
    tt = t if lead == "time-ant" else np.zeros_like(t)
    pp, qq = (ant1[b], ant2[b]) if lead == "time-ant" else (tt, tt)
    rows = predict_rows(uvw, FREQ, src, device="gpu", host=False,
                        row_beam=(cupy.asarray(beam), tt, pp, qq), **kw)  # fmt: skip
    assert isinstance(rows, cupy.ndarray)
    assert rel_err(rows.get(), want[t, b]) < TOL[dtype]
