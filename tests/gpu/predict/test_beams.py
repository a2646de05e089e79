"""Analytic primary beams, beam cubes and the parallactic angle (uvlab.gpu.predict.beams).

Oracles: scipy.special.j1 for the Airy disk; the closed-form half-power and null
offsets of each model; a beam cube sampled from the Gaussian model, whose trilinear
interpolation error must stay within the bound h²/8·Σ|∂²E| and fall as h²; a
rotation by 90° that swaps the axes; the parallactic angle from vectors on the sphere.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.predict.beams import (
    COS3_BETA_S,
    airy_ratio,
    antenna_beams,
    parallactic_angle,
    sample_cube,
    voltage_pattern,
)

scipy_special = pytest.importorskip("scipy.special")


def test_airy_ratio_matches_scipy(xp):
    x = np.r_[0.0, np.geomspace(1e-6, 80.0, 2001), 3.0, 3.0 + 1e-12]
    got = airy_ratio(xp.asarray(x), xp)
    want = np.where(x == 0, 1.0, 2 * scipy_special.j1(x) / np.where(x == 0, 1, x))
    np.testing.assert_allclose(np.asarray(got.get() if xp is not np else got), want, atol=1e-7)


@pytest.mark.parametrize(("dish", "nu"), [(13.5, 1.4e9), (25.0, 0.35e9), (6.0, 8e9)])
def test_airy_half_power_and_first_null(dish, nu):
    lam = C_LIGHT / nu
    x_half = 1.616339948310703  # 2·J1(x)/x = 1/√2
    x_null = 3.831705970207512  # first zero of J1
    r = np.array([x_half, x_null]) * lam / (math.pi * dish)
    e = voltage_pattern("airy", r, nu, dish)
    assert abs(e[0] ** 2 - 0.5) < 2e-7
    assert abs(e[1]) < 1e-7
    assert voltage_pattern("airy", 0.0, nu, dish) == 1.0


@pytest.mark.parametrize("k", [1.029, 1.2])
def test_gaussian_fwhm_is_k_lambda_over_d(k):
    dish, nu = 13.5, 1.2e9
    fwhm = k * C_LIGHT / nu / dish
    e = voltage_pattern("gaussian", np.array([0.0, fwhm / 2, fwhm]), nu, dish, gaussian_k=k)
    np.testing.assert_allclose(e**2, [1.0, 0.5, 0.5**4], rtol=1e-14)


def test_cos3_is_meqtrees_wsrt_beam():
    """25 m at 1.4 GHz: the power halves at arccos(2^(−1/6))/(65e-9·ν); flat past the clip."""
    nu = 1.4e9
    r_half = math.acos(0.5 ** (1 / 6)) / (COS3_BETA_S * nu)
    assert abs(voltage_pattern("cos3", r_half, nu, 25.0) ** 2 - 0.5) < 1e-14
    assert math.degrees(2 * r_half) * 60 == pytest.approx(35.6, abs=0.1)  # WSRT's FWHM
    far = voltage_pattern("cos3", np.array([0.05, 0.1]), nu, 25.0)
    np.testing.assert_allclose(far, math.cos(1.0881) ** 3)
    # a 12.5 m dish has twice the width
    assert voltage_pattern("cos3", 2 * r_half, nu, 12.5) == pytest.approx(math.sqrt(0.5))


def test_antenna_beams_shapes():
    lmn = np.array([[0.0, 0.0, 1.0], [0.01, 0.0, math.sqrt(1 - 1e-4)]])
    freq = np.array([1e9, 2e9, 3e9])
    same = antenna_beams("airy", lmn, freq, np.full(4, 13.5))
    assert same.shape == (1, 1, 3, 2)
    mixed = antenna_beams("airy", lmn, freq, np.array([13.5, 25.0]))
    assert mixed.shape == (1, 2, 3, 2)
    np.testing.assert_allclose(mixed[0, :, :, 0], 1.0)
    # the larger dish and the higher frequency see the off-axis source fainter
    assert mixed[0, 1, 0, 1] < mixed[0, 0, 0, 1]
    assert np.all(np.diff(same[0, 0, :, 1]) < 0)
    with pytest.raises(ValueError, match="dish"):
        antenna_beams("airy", lmn, freq, np.array([13.5, -1.0]))


def gaussian_cube(step, half=0.05, freqs=(1.0e9, 1.1e9, 1.2e9)):
    axis = np.arange(-half, half + step / 2, step)
    ll, mm = np.meshgrid(axis, axis)  # cube[v, m, l]
    r = np.hypot(ll, mm)
    cube = np.stack([voltage_pattern("gaussian", r, nu, 13.5) for nu in freqs])
    lax = (axis[0], step, len(axis))
    fax = (freqs[0], freqs[1] - freqs[0], len(freqs))
    return cube, lax, fax


def test_cube_reproduces_analytic_beam_to_interpolation_error(xp):
    rng = np.random.default_rng(5)
    l, m = rng.uniform(-0.04, 0.04, (2, 400))
    nu_planes = np.array([1.0e9, 1.1e9, 1.2e9])
    errs = []
    for step in (0.004, 0.002):
        cube, lax, fax = gaussian_cube(step)
        got = sample_cube(xp.asarray(cube), lax, lax, fax, xp.asarray(l), xp.asarray(m),
                          nu_planes, xp=xp)  # fmt: skip
        got = np.asarray(got.get() if xp is not np else got)[0, 0]
        want = voltage_pattern("gaussian", np.hypot(l, m)[None], nu_planes[:, None], 13.5)
        err = np.max(np.abs(got - want))
        # bilinear error ≤ h²/8·(|E_ll| + |E_mm|) ≤ h²/8·4a, E = exp(−a·r²), a = 2 ln2/θ²
        theta = 1.029 * C_LIGHT / nu_planes.max() / 13.5
        bound = step**2 / 8 * 4 * 2 * math.log(2) / theta**2
        assert err <= bound
        errs.append(err)
    assert 3.0 < errs[0] / errs[1] < 5.0  # second order


def test_cube_interpolates_linearly_in_frequency():
    cube, lax, fax = gaussian_cube(0.002)
    l, m = np.array([0.012, -0.02]), np.array([0.004, 0.015])
    mid = sample_cube(cube, lax, lax, fax, l, m, [1.05e9])[0, 0, 0]
    lo = sample_cube(cube, lax, lax, fax, l, m, [1.0e9])[0, 0, 0]
    hi = sample_cube(cube, lax, lax, fax, l, m, [1.1e9])[0, 0, 0]
    np.testing.assert_allclose(mid, (lo + hi) / 2, rtol=1e-13)
    below = sample_cube(cube, lax, lax, fax, l, m, [0.5e9])[0, 0, 0]
    np.testing.assert_allclose(below, lo)  # outside the band: the nearest plane


def test_cube_rotation_and_extent():
    rng = np.random.default_rng(1)
    cube = rng.random((1, 21, 21))
    lax = (-0.1, 0.01, 21)
    fax = (1e9, 1.0, 1)
    l, m = rng.uniform(-0.07, 0.07, (2, 50))
    rot = sample_cube(cube, lax, lax, fax, l, m, [1e9], chi=np.array([[math.pi / 2]]))
    plain = sample_cube(cube, lax, lax, fax, -m, l, [1e9])
    np.testing.assert_allclose(rot, plain, rtol=1e-12, atol=1e-15)
    out = sample_cube(cube, lax, lax, fax, np.array([0.2, 0.0]), np.array([0.0, -0.15]), [1e9])
    np.testing.assert_array_equal(out, 0.0)
    node = sample_cube(cube, lax, lax, fax, np.array([-0.1 + 0.03]), np.array([0.05]), [1e9])
    assert node[0, 0, 0, 0] == pytest.approx(cube[0, 15, 3], rel=1e-12)


def test_parallactic_angle_against_vectors():
    rng = np.random.default_rng(3)
    ha = rng.uniform(-math.pi, math.pi, 200)
    dec = rng.uniform(-1.2, 1.2, 200)
    lat = rng.uniform(-1.3, 1.3, 200)
    # source, zenith and pole in the (H = 0 meridian, west, pole) frame
    s = np.stack([np.cos(dec) * np.cos(ha), -np.cos(dec) * np.sin(ha), np.sin(dec)], -1)
    z = np.stack([np.cos(lat), np.zeros_like(lat), np.sin(lat)], -1)
    pole = np.array([0.0, 0.0, 1.0])
    t_pole = pole - np.sum(pole * s, -1, keepdims=True) * s
    t_zen = z - np.sum(z * s, -1, keepdims=True) * s
    want = np.arctan2(np.sum(np.cross(t_zen, t_pole) * s, -1), np.sum(t_zen * t_pole, -1))
    got = parallactic_angle(ha, dec, lat)
    np.testing.assert_allclose(np.angle(np.exp(1j * (got - want))), 0.0, atol=1e-12)
    # west of the meridian (H > 0) in the north, χ > 0; at transit south of the zenith, 0
    assert parallactic_angle(0.5, 0.3, 0.6) > 0
    assert parallactic_angle(0.0, 0.3, 0.6) == 0.0


def jones_model(l, m, nu):
    """An analytic 2×2 voltage pattern: elliptical, complex diagonals and l·m leakage."""
    s = nu / 1.1e9
    g = np.exp(-((s * l / 0.03) ** 2) - (s * m / 0.02) ** 2)
    xx = g * np.exp(1j * 8.0 * l)
    yy = np.exp(-((s * l / 0.02) ** 2) - (s * m / 0.03) ** 2) * np.exp(-1j * 5.0 * m)
    xy = (0.2 + 0.1j) * g * l * m / 4e-4
    yx = (0.1 - 0.2j) * g * (l**2 - m**2) / 4e-4
    return np.stack([np.stack([xx, xy], -1), np.stack([yx, yy], -1)], -2)


def test_jones_cube_passes_the_2x2_axes_through(xp):
    """Each element of a (freq, m, l, 2, 2) cube is sampled as that element's scalar cube."""
    rng = np.random.default_rng(2)
    cube = rng.random((2, 9, 11, 2, 2)) + 1j * rng.random((2, 9, 11, 2, 2))
    lax, max_, fax = (-0.05, 0.01, 11), (-0.04, 0.01, 9), (1.0e9, 2e8, 2)
    l, m = rng.uniform(-0.06, 0.06, (2, 30))  # some outside the cube: 0
    chi = rng.uniform(-3, 3, (3, 4))
    args = (lax, max_, fax, xp.asarray(l), xp.asarray(m), xp.asarray([1.05e9, 1.3e9]))
    got = sample_cube(xp.asarray(cube), *args, chi=xp.asarray(chi), xp=xp)
    assert got.shape == (3, 4, 2, 30, 2, 2)
    for i in range(2):
        for j in range(2):
            one = sample_cube(xp.asarray(cube[..., i, j]), *args, chi=xp.asarray(chi), xp=xp)
            assert bool(xp.all(got[..., i, j] == one))
    assert bool(xp.any(got == 0)) and bool(xp.any(got != 0))


def test_jones_cube_reproduces_an_analytic_2x2_model(xp):
    """A cube sampled from :func:`jones_model` gives the model at the rotated directions
    (l', m') = R(χ)·(l, m), the matrices as the cube holds them, to the trilinear error,
    which falls as h²."""
    rng = np.random.default_rng(8)
    l, m = rng.uniform(-0.03, 0.03, (2, 300))
    chi = np.array([[0.0, 0.7], [-1.2, 2.5]])
    freqs = np.array([1.0e9, 1.1e9, 1.2e9])
    nu = np.array([1.0e9, 1.05e9, 1.2e9])
    c, s = np.cos(chi)[..., None], np.sin(chi)[..., None]
    lr, mr = l * c - m * s, l * s + m * c  # (time, ant, src)
    want = jones_model(lr[:, :, None], mr[:, :, None], nu[:, None])
    errs = []
    for step in (0.002, 0.001):
        axis = np.arange(-0.045, 0.045 + step / 2, step)
        ll, mm = np.meshgrid(axis, axis)
        cube = np.stack([jones_model(ll, mm, f) for f in freqs])  # (freq, m, l, 2, 2)
        lax, fax = (axis[0], step, len(axis)), (freqs[0], 1e8, 3)
        got = sample_cube(xp.asarray(cube), lax, lax, fax, xp.asarray(l), xp.asarray(m),
                          xp.asarray(nu), chi=xp.asarray(chi), xp=xp)  # fmt: skip
        got = np.asarray(got.get() if xp is not np else got)
        # 1.05 GHz lies between planes: compare the planes' own values there (linear in ν)
        lin = jones_model(lr, mr, 1.0e9) * 0.5 + jones_model(lr, mr, 1.1e9) * 0.5
        want[:, :, 1] = lin
        err = np.max(np.abs(got - want))
        print(f"h = {step}: max |E_cube − E_model| = {err:.2e}")
        assert err < 5e-3
        errs.append(err)
    assert 3.0 < errs[0] / errs[1] < 5.0  # second order
