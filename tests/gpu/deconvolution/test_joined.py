"""Joined-channel CLEAN (gpu/deconvolution/joined.py and the driver with ``joined``).

Oracles: the sky the visibilities were made of (two points with different spectra, each
channel's flux known), the float64 direct DFT of each channel's V − V_model (Cotton–Schwab's
residuals), the single-channel Högbom (one channel joined is Högbom), a least-squares
polynomial fitted here with NumPy, and NumPy against CuPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle, major_cycle_pair
from uvlab.gpu.deconvolution.driver import iter_clean, run_clean
from uvlab.gpu.deconvolution.hogbom import hogbom
from uvlab.gpu.deconvolution.joined import JoinedChannels, JoinedMajor, joined_hogbom
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.deconvolution.spectral_fit import SpectralFit
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

FREQ = np.array([1.1e9, 1.3e9, 1.5e9, 1.7e9])
#: (di, dj, S at 1.4 GHz, spectral index α).
SOURCES = [(0, 0, 1.0, -0.7), (-14, 12, 0.5, 1.2)]


def _flux(s0, alpha):
    return s0 * (FREQ / 1.4e9) ** alpha


@pytest.fixture(scope="module")
def scene():
    """Per channel: (u, v, vis, weight), the dirty images (C, N, N), the PSFs (C, 2N, 2N)."""
    u0, v0, _ = layout_uv("meerkat", n_times=8, hours=8.0)
    spec = meerkat_spec(u0 * FREQ.max() / 1.4e9, v0 * FREQ.max() / 1.4e9, 64)
    data, dirty, psf = [], [], []
    for c, f in enumerate(FREQ):
        u, v = u0 * f / 1.4e9, v0 * f / 1.4e9
        vis = sky_vis(u, v, spec, [(di, dj, _flux(s, a)[c]) for di, dj, s, a in SOURCES])
        w = np.full(u.size, 1.0 + 0.25 * c)  # unequal channel weights
        data.append((u, v, vis, w))
        dirty.append(dirty_dft(u, v, w * vis, spec) / w.sum())
        psf.append(dirty_dft(u, v, w.astype(complex), ImageSpec(128, spec.cell_rad)) / w.sum())
    weights = tuple(float(d[3].sum()) for d in data)
    return spec, data, np.stack(dirty), np.stack(psf), weights


def _at(model, spec, di, dj):
    c = spec.npix // 2
    return model[..., c + dj, c + di]


def test_one_channel_joined_is_hogbom(scene):
    _, _, dirty, psf, _ = scene
    one = joined_hogbom(dirty[:1], psf[:1], JoinedChannels((1.0,)), gain=0.2, niter=150)
    ref = hogbom(dirty[0], psf[0], gain=0.2, niter=150, active_max=None)
    np.testing.assert_array_equal(one.comp_j, ref.comp_j)
    np.testing.assert_array_equal(one.comp_i, ref.comp_i)
    np.testing.assert_allclose(one.comp_flux[:, 0], ref.comp_flux, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(one.residual[0], ref.residual, atol=1e-12)
    np.testing.assert_allclose(one.peak, ref.peak, atol=1e-12)


def test_every_channel_recovers_its_own_flux_and_the_mfs_residual_goes_down(scene):
    spec, _, dirty, psf, weights = scene
    ch = JoinedChannels(weights)
    out = joined_hogbom(dirty, psf, ch, gain=0.1, niter=3000, threshold=1e-4)
    assert out.stop_reason == "threshold" and out.comp_flux.shape == (out.iterations, 4)
    for di, dj, s, a in SOURCES:  # to ~1e-3: what the MFS peaks cannot see stays (docs)
        np.testing.assert_allclose(_at(out.model, spec, di, dj), _flux(s, a), rtol=4e-3)
    mfs = ch.mean(out.residual)
    assert np.abs(mfs).max() == pytest.approx(out.peak[-1]) and out.peak[-1] <= 1e-4
    w = np.asarray(weights) / np.sum(weights)  # the MFS mean, here
    np.testing.assert_allclose(mfs, np.tensordot(w, out.residual, 1), atol=1e-15)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_every_component_spectrum_is_the_polynomial_fitted_to_its_channel_values(scene, k):
    _, _, dirty, psf, weights = scene
    fit = SpectralFit(FREQ, weights, k)
    out = joined_hogbom(dirty, psf, JoinedChannels(weights, fit), gain=0.1, niter=40)
    x = FREQ / fit.ref_freq_hz - 1.0
    for row in out.comp_flux:  # of degree k − 1: its own least-squares fit
        terms = P.polyfit(x, row, k - 1, w=np.sqrt(weights))
        np.testing.assert_allclose(P.polyval(x, terms), row, atol=1e-12 * np.abs(row).max())
    if k == 1:
        assert np.ptp(out.comp_flux, axis=1).max() <= 1e-15 * np.abs(out.comp_flux).max()
        first = 0.1 * out.peak[0]  # the MFS peak, the weighted mean of the channels' values
        assert abs(out.comp_flux[0, 0]) == pytest.approx(first, rel=1e-12)


def test_cotton_schwab_residuals_are_each_channels_data_minus_its_model(scene):
    spec, data, _, psf, weights = scene
    grid, degrid_fn = major_cycle_pair("conv", GridParams.from_eps(1e-9), np)
    major = JoinedMajor(MajorCycle(u, v, vis, w, spec, grid, degrid_fn) for u, v, vis, w in data)
    opts = CleanOptions("cotton-schwab", niter=2000, gain=0.1, mgain=0.7, threshold_jy=1e-4)
    out = run_clean(None, psf, opts, major=major, joined=JoinedChannels(weights))
    assert out.done and out.majors >= 2 and out.model.shape == (4, 64, 64)
    for c, (u, v, vis, w) in enumerate(data):
        model = out.model[c]
        j, i = np.nonzero(model)
        l, m = spec.l_axis()[i], spec.m_axis()[j]
        predicted = np.exp(2j * np.pi * (np.outer(u, l) + np.outer(v, m))) @ model[j, i]
        want = dft_image(u, v, w * (vis - predicted), spec) / w.sum()
        assert np.abs(out.residual[c] - want).max() <= 1e-7 * np.abs(dirty_peak(data, c)) + 1e-12
    for di, dj, s, a in SOURCES:
        np.testing.assert_allclose(_at(out.model, spec, di, dj), _flux(s, a), rtol=4e-3)


def dirty_peak(data, c):
    return np.abs(data[c][2]).max()


def test_chunks_and_cycles_make_the_same_clean(scene):
    _, _, dirty, psf, weights = scene
    opts = CleanOptions(niter=300, gain=0.1, mgain=0.6)
    ch = JoinedChannels(weights, SpectralFit(FREQ, weights, 2))
    whole = run_clean(dirty, psf, opts, joined=ch)
    chunked = list(iter_clean(dirty, psf, opts, joined=ch, chunk=7))
    assert len(chunked) > whole.cycles + 2
    np.testing.assert_array_equal(chunked[-1].model, whole.model)
    np.testing.assert_array_equal(chunked[-1].comp_flux, whole.comp_flux)
    assert whole.cycles >= 2 and whole.stop_reason == "niter"


def test_auto_mask_and_boxes_take_the_mfs_image(scene):
    _, _, dirty, psf, weights = scene
    box = (44 - 2, 18 - 2, 44 + 2, 18 + 2)  # around the second source only
    out = run_clean(dirty, psf, CleanOptions(niter=500, mask_boxes=(box,)),
                    joined=JoinedChannels(weights))  # fmt: skip
    assert out.iterations > 0 and (np.abs(out.comp_j - 44) <= 2).all()
    assert (np.abs(out.comp_i - 18) <= 2).all() and np.count_nonzero(out.model[:, 32, 32]) == 0
    auto = run_clean(dirty, psf, CleanOptions(niter=500, auto_mask=3.0, auto_threshold=1.0),
                     joined=JoinedChannels(weights))  # fmt: skip
    assert auto.stop_reason in ("auto-threshold", "niter") and auto.iterations > 0


@pytest.mark.gpu
def test_cupy_equals_numpy(scene):
    import cupy

    spec, data, dirty, psf, weights = scene
    ch = JoinedChannels(weights, SpectralFit(FREQ, weights, 2))
    opts = CleanOptions(niter=400, gain=0.1, mgain=0.7, threshold_jy=1e-4)
    cpu = run_clean(dirty, psf, opts, joined=ch)
    gpu = run_clean(cupy.asarray(dirty), cupy.asarray(psf), opts, joined=ch)
    np.testing.assert_array_equal(to_numpy(gpu.comp_j), cpu.comp_j)
    np.testing.assert_allclose(to_numpy(gpu.model), cpu.model, rtol=0, atol=1e-10)
    np.testing.assert_allclose(to_numpy(gpu.residual), cpu.residual, rtol=0, atol=1e-10)
    cs = CleanOptions("cotton-schwab", niter=300, gain=0.2, mgain=0.7)

    def majors(xp):
        g, d = major_cycle_pair("conv", GridParams.from_eps(1e-9), xp)
        return JoinedMajor(
            MajorCycle(*(xp.asarray(a) for a in (u, v, vis, w)), spec, g, d)
            for u, v, vis, w in data
        )

    cpu = run_clean(None, psf, cs, major=majors(np), joined=ch)
    gpu = run_clean(None, cupy.asarray(psf), cs, major=majors(cupy), joined=ch)
    # the major cycles' gridders differ between devices at ~1e-9 (test_cotton_schwab.py's)
    assert gpu.majors == cpu.majors and gpu.iterations == cpu.iterations
    np.testing.assert_allclose(to_numpy(gpu.model), cpu.model, rtol=0, atol=1e-9)
    scale = np.abs(cpu.residual).max()
    np.testing.assert_allclose(to_numpy(gpu.residual), cpu.residual, rtol=0, atol=1e-8 * scale)
