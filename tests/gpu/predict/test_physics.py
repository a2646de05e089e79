"""Physics checks of predict against closed forms (DESIGN §1, SDP Memo 076 eqs 6–8)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu.predict import Smearing, predict_antennas, predict_rows
from uvlab.gpu.sources import SourceArrays

C = 299_792_458.0
OMEGA = 7.292_115_9e-5
DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
TOL = {np.float64: 1e-13, np.float32: 2e-6}


def one_source(l, m, stokes=(1.0, 0.0, 0.0, 0.0), alpha=0.0, nu0=1.0e9, shape=(0.0, 0.0, 0.0)):
    n = math.sqrt(1.0 - l * l - m * m)
    return SourceArrays(
        np.array([[l, m, n]]),
        np.array([stokes], dtype=float),
        np.array([alpha]),
        np.array([nu0]),
        np.array([shape], dtype=float),
    )


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", ["scalar", "linear", "circular"])
def test_phase_centre_source_gives_brightness(device, dtype, mode, rng):
    """A source at l = m = 0 gives V = B(ν) on every row and channel, smeared or not."""
    i, q, u, v = 3.0, 0.4, -0.7, 0.2
    src = one_source(0.0, 0.0, (i, q, u, v), alpha=-0.8, nu0=1.1e9)
    uvw = rng.normal(size=(37, 3)) * 3000.0
    freq = np.linspace(0.9e9, 1.7e9, 10)
    s = (freq / 1.1e9) ** -0.8
    if mode == "scalar":
        want = np.broadcast_to(i * s, (37, 10))
    elif mode == "linear":
        b = np.array([[i + q, u + 1j * v], [u - 1j * v, i - q]])
        want = np.broadcast_to(s[:, None, None] * b, (37, 10, 2, 2))
    else:
        b = np.array([[i + v, q + 1j * u], [q - 1j * u, i - v]])
        want = np.broadcast_to(s[:, None, None] * b, (37, 10, 2, 2))
    for sm in (None, Smearing(1e6, 10.0, -0.5)):
        got = predict_rows(uvw, freq, src, mode=mode, smearing=sm, dtype=dtype, device=device)
        assert np.max(np.abs(got - want)) <= TOL[dtype] * np.max(np.abs(want))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["scalar", "linear"])
def test_swapped_antennas_give_hermitian_conjugate(device, mode, rng):
    """V_qp = V_pqᴴ: swapping the antennas negates uvw (and the uvw rate)."""
    nant = 6
    ant_uvw = rng.normal(size=(2, nant, 3)) * 2000.0
    p, q = np.triu_indices(nant, k=1)
    lm = rng.uniform(-0.03, 0.03, (4, 2))
    src = SourceArrays.points(
        np.column_stack([lm, np.sqrt(1 - np.sum(lm**2, 1))]), rng.normal(size=(4, 4))
    )
    freq = np.linspace(1.0e9, 1.1e9, 5)
    for sm, method in ((None, "auto"), (Smearing(2e6, 30.0, -0.3), "direct")):
        fwd = predict_antennas(
            ant_uvw, p, q, freq, src, mode=mode, smearing=sm, device=device, method=method
        )
        back = predict_antennas(
            ant_uvw, q, p, freq, src, mode=mode, smearing=sm, device=device, method=method
        )
        if mode != "scalar":
            back = np.swapaxes(back, -1, -2)
        assert np.allclose(back, np.conj(fwd), rtol=0, atol=1e-12 * np.max(np.abs(fwd)))


def sinc(x):
    return 1.0 if x == 0 else math.sin(x) / x


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("which", ["time", "band", "both"])
def test_smearing_amplitude_is_analytic_sinc(device, dtype, which):
    """|V_smeared| / |V| of one source equals sinc of Memo 076 eqs 6 and 8, computed here."""
    l, m = 0.05, -0.03
    n = math.sqrt(1 - l * l - m * m)
    src = one_source(l, m)
    uvw = np.array([[4000.0, -2500.0, 700.0], [-300.0, 6000.0, -1200.0], [10.0, 20.0, 5.0]])
    freq = np.array([1.0e9, 1.3e9, 1.7e9])
    width, tint, dec0 = 4e6, 60.0, math.radians(-60.0)
    sm = Smearing(width, tint, dec0, time=which in ("time", "both"), band=which in ("band", "both"))
    plain = predict_rows(uvw, freq, src, dtype=dtype, device=device)
    smeared = predict_rows(uvw, freq, src, smearing=sm, dtype=dtype, device=device)
    ratio = np.abs(smeared) / np.abs(plain)
    want = np.ones((3, 3))
    for r, (u, v, w) in enumerate(uvw):
        # the baseline's motion over the integration (Earth rotation about the pole)
        du = OMEGA * (math.cos(dec0) * w - math.sin(dec0) * v)
        dv = OMEGA * math.sin(dec0) * u
        dw = -OMEGA * math.cos(dec0) * u
        for c, nu in enumerate(freq):
            if sm.band:
                want[r, c] *= sinc(math.pi * width / C * (u * l + v * m + w * (n - 1)))
            if sm.time:
                want[r, c] *= sinc(math.pi * nu / C * tint * (du * l + dv * m + dw * (n - 1)))
    assert np.min(want) < 0.9  # the smearing is substantial here
    assert np.allclose(ratio, np.abs(want), rtol={np.float64: 1e-12, np.float32: 2e-6}[dtype])


@pytest.mark.parametrize("device", DEVICES)
def test_circular_gaussian_matches_fourier_transform(device):
    """A circular Gaussian of FWHM θ: V = S·exp(−π²θ²ρ²/(4 ln 2)), ρ = |uv| in wavelengths."""
    theta = math.radians(30.0 / 3600.0)
    src = one_source(0.0, 0.0, (2.5, 0, 0, 0), shape=(theta, theta, 0.7))
    rho_m = np.array([0.0, 500.0, 1500.0, 3000.0])
    ang = np.array([0.1, 1.2, 2.5, 4.0])
    uvw = np.column_stack([rho_m * np.cos(ang), rho_m * np.sin(ang), np.full(4, 50.0)])
    freq = np.array([1.0e9, 1.4e9])
    got = predict_rows(uvw, freq, src, device=device)
    rho = rho_m[:, None] * freq[None, :] / C
    want = 2.5 * np.exp(-(math.pi**2) * theta**2 * rho**2 / (4 * math.log(2)))
    assert want.min() < 0.1
    assert np.allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pa_deg, axis", [(0.0, 1), (90.0, 0)])
def test_elliptical_gaussian_along_major_axis(device, pa_deg, axis):
    """Baselines along the major axis see θ_maj only; across it, θ_min only.

    PA is east of north: PA = 0 puts the major axis along m (north), so the
    baseline along v has u' = v; PA = 90° puts it along l (east), baseline along u.
    """
    tmaj, tmin = math.radians(40 / 3600), math.radians(10 / 3600)
    src = one_source(0.0, 0.0, shape=(tmaj, tmin, math.radians(pa_deg)))
    lengths = np.array([300.0, 1000.0, 2500.0])
    along = np.zeros((3, 3))
    along[:, axis] = lengths
    across = np.zeros((3, 3))
    across[:, 1 - axis] = lengths
    nu = 1.4e9
    k = math.pi**2 / (4 * math.log(2))
    rho = lengths * nu / C
    got_along = predict_rows(along, [nu], src, device=device)[:, 0]
    got_across = predict_rows(across, [nu], src, device=device)[:, 0]
    assert np.allclose(got_along, np.exp(-k * tmaj**2 * rho**2), rtol=1e-12)
    assert np.allclose(got_across, np.exp(-k * tmin**2 * rho**2), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_float32_keeps_phase_on_long_baselines(device, rng):
    """100 km baselines, sources 3° out, 1.7 GHz: ~3·10⁴ turns of phase, float32 still ≤ 1e-5."""
    uvw = rng.normal(size=(40, 3)) * np.array([60e3, 60e3, 10e3])
    lm = rng.uniform(-0.05, 0.05, (8, 2))
    src = SourceArrays.points(
        np.column_stack([lm, np.sqrt(1 - np.sum(lm**2, 1))]), rng.uniform(0.5, 2.0, 8)
    )
    freq = np.linspace(1.6e9, 1.7e9, 12)
    sm = Smearing(1e5, 2.0, -0.4)
    for mode in ("scalar", "linear"):
        v64 = predict_rows(uvw, freq, src, mode=mode, smearing=sm, device=device)
        v32 = predict_rows(uvw, freq, src, mode=mode, smearing=sm, dtype=np.float32, device=device)
        assert np.linalg.norm(v32 - v64) / np.linalg.norm(v64) <= 1e-5
