"""Joined-polarisation CLEAN (gpu/deconvolution/joined.py's JoinedPolarizations, the driver).

Oracles: the sky the visibilities were made of (two point sources with known I, Q, U, V;
a third unpolarised), the noise added to each polarisation's visibilities imaged by the
float64 direct DFT, Högbom on one plane (a plane beside all-zero ones joined is Högbom),
the search image and σ written here with NumPy, each polarisation's own data minus its
own model (Cotton–Schwab), and NumPy against CuPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle, major_cycle_pair
from uvlab.gpu.deconvolution.driver import run_clean
from uvlab.gpu.deconvolution.hogbom import hogbom
from uvlab.gpu.deconvolution.joined import JoinedMajor, JoinedPolarizations, joined_hogbom
from uvlab.gpu.deconvolution.noise import robust_sigma
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

POLS = ("I", "Q", "U", "V")
#: (di, dj, (I, Q, U, V)): a bright weakly polarised source, a polarised one, an unpolarised one.
SOURCES = [
    (0, 0, (1.0, 0.03, -0.02, 0.015)),
    (-14, 12, (0.4, 0.12, 0.08, 0.0)),
    (11, 9, (0.25, 0.0, 0.0, 0.0)),
]
#: σ of each visibility's noise, per polarisation (their images' σ ≈ 0.01 Jy/beam).
SIGMA_VIS = 1.5
WEAK = 0  # the weakly polarised source


@pytest.fixture(scope="module")
def scene():
    """(spec, per-pol (u, v, vis, weight), dirty (4, N, N), PSFs (4, 2N, 2N), noise images)."""
    u, v, _ = layout_uv("meerkat", n_times=6, hours=8.0)
    spec = meerkat_spec(u, v, 64)
    rng = np.random.default_rng(29)
    data, dirty, psf, noise = [], [], [], []
    for p in range(4):
        vis = sky_vis(u, v, spec, [(di, dj, s[p]) for di, dj, s in SOURCES])
        n = SIGMA_VIS * (rng.normal(size=u.size) + 1j * rng.normal(size=u.size))
        w = np.ones(u.size)
        if p in (2, 3):  # U and V lose some rows (their correlations flagged): own PSFs
            w[rng.random(u.size) < 0.2] = 0.0
        data.append((u, v, vis + n, w))
        dirty.append(dirty_dft(u, v, w * (vis + n), spec) / w.sum())
        psf.append(dirty_dft(u, v, w.astype(complex), ImageSpec(128, spec.cell_rad)) / w.sum())
        noise.append(dft_image(u, v, w * n, spec) / w.sum())
    return spec, data, np.stack(dirty), np.stack(psf), np.stack(noise)


def _at(model, spec, di, dj):
    c = spec.npix // 2
    return model[..., c + dj, c + di]


def _box(model, spec, di, dj):
    """The sum over the 3×3 pixels around a source (noise moves some components by one)."""
    c = spec.npix // 2
    return model[..., c + dj - 1 : c + dj + 2, c + di - 1 : c + di + 2].sum(axis=(-1, -2))


#: The stop level of the flux tests (Jy/beam, on the search image: ~4σ of each image's noise).
STOP = 0.04


def _check_fluxes(model, spec, noise):
    """Each source's I, Q, U, V: the truth plus the noise image there, to the stop level.

    After the stop every polarisation's residual is ≤ STOP at every pixel (the search
    image bounds each), so that much of a source may stay uncleaned; σ more for what
    CLEAN's noise-shifted components leave outside the box.
    """
    for di, dj, iquv in SOURCES:
        want = np.asarray(iquv) + _at(noise, spec, di, dj)
        np.testing.assert_allclose(_box(model, spec, di, dj), want, rtol=0, atol=STOP + 0.01)


def test_the_search_image_is_the_root_sum_of_squares_normalised_as_radler():
    rng = np.random.default_rng(1)
    stack = rng.normal(size=(4, 5, 5))
    iquv = JoinedPolarizations(POLS)
    assert iquv.factor == 1.0 and iquv.nplanes == 4
    np.testing.assert_allclose(iquv.search(stack), np.sqrt((stack**2).sum(axis=0)), rtol=1e-15)
    np.testing.assert_allclose(iquv.linear(stack), stack.sum(axis=0), rtol=1e-15)
    # XX = YY = I for an unpolarised source: the search image reads I
    xx_yy = JoinedPolarizations(("xx", "yy"))
    assert xx_yy.factor == 0.5 and xx_yy.names == ("XX", "YY")
    flat = np.full((2, 3, 3), 0.7)
    np.testing.assert_allclose(xx_yy.search(flat), 0.7, rtol=1e-15)
    np.testing.assert_allclose(xx_yy.linear(flat), 0.7, rtol=1e-15)
    assert JoinedPolarizations(("RR", "RL", "LR", "LL")).factor == 0.5
    assert JoinedPolarizations(("Q", "U")).factor == 1.0
    for bad in (("I",), ("I", "i")):
        with pytest.raises(ValueError, match="two or more"):
            JoinedPolarizations(bad)


def test_a_plane_joined_with_empty_ones_is_hogbom(scene):
    _, _, dirty, psf, _ = scene
    stack = np.zeros_like(dirty[:2])
    stack[0] = dirty[0]
    out = joined_hogbom(stack, psf[:2], JoinedPolarizations(("I", "Q")), gain=0.2, niter=150)
    ref = hogbom(dirty[0], psf[0], gain=0.2, niter=150, active_max=None)
    np.testing.assert_array_equal(out.comp_j, ref.comp_j)
    np.testing.assert_array_equal(out.comp_i, ref.comp_i)
    np.testing.assert_allclose(out.comp_flux[:, 0], ref.comp_flux, rtol=1e-12, atol=1e-15)
    assert not out.comp_flux[:, 1].any() and not out.model[1].any()
    np.testing.assert_allclose(out.residual[0], ref.residual, atol=1e-12)
    np.testing.assert_allclose(out.peak, ref.peak, atol=1e-12)


def test_every_polarisation_recovers_its_flux_at_the_same_pixels(scene):
    spec, _, dirty, psf, noise = scene
    pols = JoinedPolarizations(POLS)
    out = joined_hogbom(dirty, psf, pols, gain=0.1, niter=3000, threshold=STOP)
    assert out.stop_reason == "threshold" and out.comp_flux.shape == (out.iterations, 4)
    cleaned = set(zip(out.comp_j.tolist(), out.comp_i.tolist(), strict=True))
    for p in range(4):  # every polarisation's components on the joined pixels only
        j, i = np.nonzero(out.model[p])
        assert set(zip(j.tolist(), i.tolist(), strict=True)) <= cleaned
    c = spec.npix // 2
    assert all((c + dj, c + di) in cleaned for di, dj, _ in SOURCES)
    _check_fluxes(out.model, spec, noise)
    search = np.sqrt((out.residual**2).sum(axis=0))
    assert search.max() == pytest.approx(out.peak[-1], rel=1e-12) and out.peak[-1] <= STOP
    assert np.abs(out.residual).max() <= STOP


def test_the_weak_q_is_found_at_i_where_cleaning_q_alone_looks_elsewhere(scene):
    spec, _, dirty, psf, noise = scene
    c = spec.npix // 2
    weak = (c + SOURCES[WEAK][1], c + SOURCES[WEAK][0])
    q_true = SOURCES[WEAK][2][1]
    sigma = float(noise[1].std())
    assert q_true < 4 * sigma  # the weak Q is not above Q's own noise peaks
    alone = hogbom(dirty[1], psf[1], gain=0.1, niter=1000, threshold=STOP, active_max=None)
    cells = set(zip(alone.comp_j.tolist(), alone.comp_i.tolist(), strict=True))
    near = {(weak[0] + a, weak[1] + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
    assert alone.iterations > 0 and not cells & near  # Q alone misses the weak source ...
    sources = {(c + dj, c + di) for di, dj, _ in SOURCES}
    assert cells - sources  # ... and puts components on noise
    out = joined_hogbom(dirty, psf, JoinedPolarizations(POLS), gain=0.1, niter=3000,
                        threshold=STOP)  # fmt: skip
    assert (int(out.comp_j[0]), int(out.comp_i[0])) == weak  # I's peak leads
    q_joined = out.model[1][weak]
    assert abs(q_joined - (q_true + noise[1][weak])) <= 0.3 * q_true


def test_auto_threshold_sigma_is_the_linear_sums_and_the_stop_the_search_images(scene):
    _, _, dirty, psf, _ = scene
    pols = JoinedPolarizations(POLS)
    opts = CleanOptions(niter=5000, mgain=1.0, auto_threshold=4.0)  # one cycle: σ of the dirty
    out = run_clean(dirty, psf, opts, joined=pols)
    level = 4.0 * robust_sigma(dirty.sum(axis=0), psf.sum(axis=0))
    assert out.stop_reason == "auto-threshold" and out.cycles == 1
    assert out.peak[-1] <= level < out.peak[-2]
    np.testing.assert_allclose(out.peak[-1], np.sqrt((out.residual**2).sum(axis=0)).max())


def test_cotton_schwab_residuals_are_each_polarisations_data_minus_its_model(scene):
    spec, data, _, psf, noise = scene
    grid, degrid_fn = major_cycle_pair("conv", GridParams.from_eps(1e-9), np)
    major = JoinedMajor(MajorCycle(u, v, vis, w, spec, grid, degrid_fn) for u, v, vis, w in data)
    opts = CleanOptions("cotton-schwab", niter=2000, gain=0.1, mgain=0.7, threshold_jy=STOP)
    out = run_clean(None, psf, opts, major=major, joined=JoinedPolarizations(POLS))
    assert out.done and out.majors >= 2 and out.model.shape == (4, 64, 64)
    for p, (u, v, vis, w) in enumerate(data):
        model = out.model[p]
        j, i = np.nonzero(model)
        l, m = spec.l_axis()[i], spec.m_axis()[j]
        predicted = np.exp(2j * np.pi * (np.outer(u, l) + np.outer(v, m))) @ model[j, i]
        want = dft_image(u, v, w * (vis - predicted), spec) / w.sum()
        assert np.abs(out.residual[p] - want).max() <= 1e-7
    _check_fluxes(out.model, spec, noise)


@pytest.mark.gpu
def test_cupy_equals_numpy(scene):
    import cupy

    _, _, dirty, psf, _ = scene
    pols = JoinedPolarizations(POLS)
    opts = CleanOptions(niter=400, gain=0.1, mgain=0.7, threshold_jy=STOP)
    cpu = run_clean(dirty, psf, opts, joined=pols)
    gpu = run_clean(cupy.asarray(dirty), cupy.asarray(psf), opts, joined=pols)
    np.testing.assert_array_equal(to_numpy(gpu.comp_j), cpu.comp_j)
    np.testing.assert_array_equal(to_numpy(gpu.comp_i), cpu.comp_i)
    np.testing.assert_allclose(to_numpy(gpu.model), cpu.model, rtol=0, atol=1e-10)
    np.testing.assert_allclose(to_numpy(gpu.residual), cpu.residual, rtol=0, atol=1e-10)
