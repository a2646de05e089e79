"""Joined multiscale CLEAN (``joined_multiscale`` in gpu/deconvolution/multiscale.py, the driver).

The scene: three channels (1.0, 1.4, 1.8 GHz) of MeerKAT's inner baselines, 1 h, each with
its own PSF and weight, holding a Gaussian of 14 × 9 pixels (FWHM) with spectral index
−0.8, a point with index +1 and a 3 mJy point, plus thermal noise of σ = 1 mJy/beam in
every channel; dirty images and PSFs by the float64 direct DFT, the Gaussian's
visibilities in closed form. Oracles: each channel's true flux, the noise's σ, plain
multiscale CLEAN (one channel joined is it), per-channel multiscale CLEAN of the same
images, least-squares polynomials fitted here, the float64 DFT of each channel's
V − V_model, and NumPy against CuPy.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle, major_cycle_pair
from uvlab.gpu.deconvolution.driver import run_clean
from uvlab.gpu.deconvolution.joined import JoinedChannels, JoinedMajor, JoinedPolarizations
from uvlab.gpu.deconvolution.multiscale import joined_multiscale, multiscale
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.deconvolution.spectral_fit import SpectralFit
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

FREQ = np.array([1.0e9, 1.4e9, 1.8e9])
NPIX = 64
#: The Gaussian: S at 1.4 GHz, α, FWHM (pixels) along l and m, at the centre.
GAUSS = (2.0, -0.8, (14.0, 9.0))
#: Points: (di, dj, S at 1.4 GHz, α).
POINTS = [(14, -10, 0.5, 1.0), (-16, 14, 0.003, 0.0)]
SIGMA = 1e-3
SCALES = (0.0, 6.0, 12.0, 24.0)


def _flux(s, alpha):
    return s * (FREQ / 1.4e9) ** alpha


def _vis(u, v, spec, gauss_jy, points):
    """The Gaussian (``gauss_jy``) and points ``(di, dj, Jy)``: exact visibilities."""
    sl, sm = np.asarray(GAUSS[2]) * spec.cell_rad / np.sqrt(8.0 * np.log(2.0))
    return gauss_jy * np.exp(-2.0 * np.pi**2 * ((sl * u) ** 2 + (sm * v) ** 2)) + sky_vis(
        u, v, spec, points
    )


@pytest.fixture(scope="module")
def scene():
    u0, v0, _ = layout_uv("meerkat", n_times=4, hours=1.0)
    keep = np.hypot(u0, v0) <= 0.25 * np.hypot(u0, v0).max()
    u0, v0 = u0[keep], v0[keep]
    spec = meerkat_spec(u0 * FREQ.max() / 1.4e9, v0 * FREQ.max() / 1.4e9, NPIX)
    rng = np.random.default_rng(29)
    data, dirty, psf = [], [], []
    for c, f in enumerate(FREQ):
        u, v = u0 * f / 1.4e9, v0 * f / 1.4e9
        points = [(di, dj, _flux(s, a)[c]) for di, dj, s, a in POINTS]
        vis = _vis(u, v, spec, _flux(*GAUSS[:2])[c], points)
        w = np.full(u.size, 1.0 + 0.25 * c)  # unequal channel weights
        noise = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
        noise *= SIGMA / (dirty_dft(u, v, w * noise, spec) / w.sum()).std()
        data.append((u, v, vis + noise, w))
        dirty.append(dirty_dft(u, v, w * (vis + noise), spec) / w.sum())
        psf.append(dirty_dft(u, v, w.astype(complex), ImageSpec(2 * NPIX, spec.cell_rad)) / w.sum())
    total = _flux(*GAUSS[:2]) + sum(_flux(s, a) for _, _, s, a in POINTS)
    return SimpleNamespace(
        spec=spec, data=data, dirty=np.stack(dirty), psf=np.stack(psf), total=total,
        weights=tuple(float(d[3].sum()) for d in data),
    )  # fmt: skip


def _disc(di, dj, radius):
    yy, xx = np.mgrid[:NPIX, :NPIX] - NPIX // 2
    return np.hypot(yy - dj, xx - di) <= radius


#: Where the bright point is (4 pixels about it), and the Gaussian (20 about the centre, not
#: the point's): ~4σ of its minor axis.
POINT = _disc(*POINTS[0][:2], 4)
EXTENDED = _disc(0, 0, 20) & ~POINT


@pytest.mark.parametrize("small_scale_bias", [None, 0.0])
def test_one_channel_joined_is_plain_multiscale(scene, small_scale_bias):
    kw = dict(scales=SCALES, niter=300, threshold=3 * SIGMA, small_scale_bias=small_scale_bias)
    one = joined_multiscale(scene.dirty[1:2], scene.psf[1:2], JoinedChannels((2.0,)), **kw)
    ref = multiscale(scene.dirty[1], scene.psf[1], **kw)
    assert one.iterations == ref.iterations > 50 and one.stop_reason == ref.stop_reason
    for name in ("comp_j", "comp_i", "comp_scale", "peak", "rms"):
        np.testing.assert_array_equal(getattr(one, name), getattr(ref, name))
    assert len(set(ref.comp_scale)) >= 2  # more than one scale was used
    np.testing.assert_array_equal(one.comp_flux[:, 0], ref.comp_flux)
    np.testing.assert_array_equal(one.model[0], ref.model)
    np.testing.assert_array_equal(one.residual[0], ref.residual)


def test_two_equal_correlations_joined_are_plain_multiscale(scene):
    """XX = YY (an unpolarised sky): √((XX² + YY²)/2) is |XX|, to rounding."""
    stack = np.stack([scene.dirty[1]] * 2)
    psfs = np.stack([scene.psf[1]] * 2)
    kw = dict(scales=SCALES, niter=300, threshold=3 * SIGMA)
    two = joined_multiscale(stack, psfs, JoinedPolarizations(("XX", "YY")), **kw)
    ref = multiscale(scene.dirty[1], scene.psf[1], **kw)
    assert two.iterations == ref.iterations
    np.testing.assert_array_equal(two.comp_j, ref.comp_j)
    np.testing.assert_array_equal(two.comp_scale, ref.comp_scale)
    scale = np.abs(scene.dirty[1]).max()
    for p in range(2):
        np.testing.assert_allclose(two.model[p], ref.model, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(two.residual[p], ref.residual, rtol=0, atol=1e-12 * scale)


@pytest.fixture(scope="module")
def cleans(scene):
    """(joined, [per channel]) multiscale CLEANs to 1σ of their own residuals."""
    opts = CleanOptions(niter=3000, mgain=0.8, auto_threshold=1.0, multiscale=True,
                        multiscale_scales=SCALES)  # fmt: skip
    joined = run_clean(scene.dirty, scene.psf, opts, joined=JoinedChannels(scene.weights))
    alone = [run_clean(d, p, opts) for d, p in zip(scene.dirty, scene.psf, strict=True)]
    return joined, alone


def test_every_channel_recovers_its_flux_with_a_residual_near_the_noise(scene, cleans):
    joined, _ = cleans
    assert joined.stop_reason == "auto-threshold" and joined.comp_flux.shape[1] == 3
    np.testing.assert_allclose(joined.model.sum(axis=(1, 2)), scene.total, rtol=0.03)
    assert (joined.residual.std(axis=(1, 2)) <= 1.5 * SIGMA).all()  # measured 1.09, 0.84, 0.87
    support = joined.model != 0  # components at the same places in every channel
    assert (support == support[0]).all()
    np.testing.assert_allclose((joined.model * EXTENDED).sum(axis=(1, 2)), _flux(*GAUSS[:2]),
                               rtol=0.03)  # fmt: skip
    np.testing.assert_allclose((joined.model * POINT).sum(axis=(1, 2)), _flux(*POINTS[0][2:]),
                               rtol=0.02)  # fmt: skip


def test_joined_differs_from_per_channel_cleans_only_where_it_is_nearer_the_sky(cleans):
    """Where the joined and per-channel models differ by more than 2 %, the joined one is the
    nearer to each channel's true flux (channel 0's point: 0.363 Jy joined, 0.405 alone, 0.357
    true; its wide beam mixes the Gaussian in); outside the bright sources, per-channel CLEANs
    put more flux (each cleans its own noise to 1σ; the joined one what the MFS image holds)."""
    joined, alone = cleans
    truth = ((EXTENDED, _flux(*GAUSS[:2])), (POINT, _flux(*POINTS[0][2:])))
    differ = 0
    for c, own in enumerate(alone):
        for region, true in truth:
            got, theirs = (joined.model[c] * region).sum(), (own.model * region).sum()
            assert got == pytest.approx(true[c], rel=0.02)
            if abs(got - theirs) > 0.02 * true[c]:
                differ += 1
                assert abs(got - true[c]) < abs(theirs - true[c])
        outside = ~(EXTENDED | POINT)
        assert np.abs(joined.model[c][outside]).sum() < np.abs(own.model[outside]).sum()
    assert differ >= 1


@pytest.mark.parametrize("k", [1, 2])
def test_fit_spectral_pol_makes_every_component_a_polynomial(scene, k):
    fit = SpectralFit(FREQ, scene.weights, k)
    out = joined_multiscale(scene.dirty, scene.psf, JoinedChannels(scene.weights, fit),
                            scales=SCALES, niter=200)  # fmt: skip
    assert out.iterations == 200 and len(set(out.comp_scale)) >= 2
    x = FREQ / fit.ref_freq_hz - 1.0
    for row in out.comp_flux:
        terms = P.polyfit(x, row, k - 1, w=np.sqrt(scene.weights))
        np.testing.assert_allclose(P.polyval(x, terms), row, atol=1e-12 * np.abs(row).max())
    pixels = out.model.reshape(3, -1)  # a sum of polynomials, kernels alike in every channel
    terms = P.polyfit(x, pixels, k - 1, w=np.sqrt(scene.weights))
    np.testing.assert_allclose(P.polyval(x, terms).T, pixels, atol=1e-12 * np.abs(pixels).max())


def test_polarisations_each_recover_their_own_flux(scene):
    """I and Q (Stokes: f = 1) of a Gaussian 30 % polarised and a point at −20 %."""
    u, v, _, w = scene.data[1]
    di, dj, s, _ = POINTS[0]
    planes = []
    for frac_g, frac_p in ((1.0, 1.0), (0.3, -0.2)):
        vis = _vis(u, v, scene.spec, frac_g * GAUSS[0], [(di, dj, frac_p * s)])
        planes.append(dirty_dft(u, v, w * vis, scene.spec) / w.sum())
    psfs = np.stack([scene.psf[1]] * 2)
    opts = CleanOptions(niter=2000, mgain=0.8, threshold_jy=1e-3, multiscale=True,
                        multiscale_scales=SCALES)  # fmt: skip
    out = run_clean(np.stack(planes), psfs, opts, joined=JoinedPolarizations(("I", "Q")))
    np.testing.assert_allclose((out.model * EXTENDED).sum(axis=(1, 2)), [2.0, 0.6], rtol=0.03)
    np.testing.assert_allclose((out.model * POINT).sum(axis=(1, 2)), [s, -0.2 * s], rtol=0.03)
    assert np.sqrt((out.residual**2).sum(axis=0)).max() <= 1e-3 * (1 + 1e-9)


def test_cotton_schwab_residuals_are_each_channels_data_minus_its_model(scene, xp):
    grid, degrid_fn = major_cycle_pair("conv", GridParams.from_eps(1e-9), xp)
    major = JoinedMajor(
        MajorCycle(*(xp.asarray(a) for a in d), scene.spec, grid, degrid_fn) for d in scene.data
    )
    opts = CleanOptions("cotton-schwab", niter=2000, mgain=0.8, auto_threshold=1.0,
                        multiscale=True, multiscale_scales=SCALES)  # fmt: skip
    out = run_clean(None, xp.asarray(scene.psf), opts, major=major,
                    joined=JoinedChannels(scene.weights))  # fmt: skip
    model, residual = to_numpy(out.model), to_numpy(out.residual)
    assert out.majors >= 2 and out.done
    np.testing.assert_allclose(model.sum(axis=(1, 2)), scene.total, rtol=0.03)
    spec = scene.spec
    for c, (u, v, vis, w) in enumerate(scene.data):
        j, i = np.nonzero(model[c])
        l, m = spec.l_axis()[i], spec.m_axis()[j]
        predicted = np.exp(2j * np.pi * (np.outer(u, l) + np.outer(v, m))) @ model[c][j, i]
        want = dft_image(u, v, w * (vis - predicted), spec) / w.sum()
        assert np.abs(residual[c] - want).max() <= 1e-7 * np.abs(scene.dirty[c]).max()
        assert residual[c].std() <= 1.5 * SIGMA


@pytest.mark.gpu
def test_cupy_equals_numpy(scene):
    import cupy

    fit = SpectralFit(FREQ, scene.weights, 2)
    for planes, dirty, psf in (
        (JoinedChannels(scene.weights, fit), scene.dirty, scene.psf),
        (JoinedPolarizations(("XX", "YY")), scene.dirty[1:], scene.psf[1:]),
    ):
        for small_scale_bias in (None, 0.0):
            opts = CleanOptions(niter=400, mgain=0.8, auto_threshold=1.0, multiscale=True,
                                multiscale_small_scale_bias=small_scale_bias)  # fmt: skip
            host = run_clean(dirty, psf, opts, joined=planes)
            dev = run_clean(cupy.asarray(dirty), cupy.asarray(psf), opts, joined=planes)
            assert dev.iterations == host.iterations
            scale = np.abs(dirty).max()
            assert np.abs(to_numpy(dev.model) - host.model).max() <= 1e-6 * scale
            assert np.abs(to_numpy(dev.residual) - host.residual).max() <= 1e-6 * scale
