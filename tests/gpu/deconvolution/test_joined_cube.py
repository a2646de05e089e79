"""Channels × polarisations CLEANed jointly (joined.py's JoinedChannelsPolarizations).

Oracles: Radler's search image and linear combination written out here pixel by pixel
with NumPy loops; each polarisation's weighted polynomial fit by NumPy's ``polyfit``;
the two kinds it generalises (one polarisation is :class:`JoinedChannels` bit for bit,
one channel :class:`JoinedPolarizations` to 1e-12); a sky of two points with a spectral
index and known I, Q imaged per (channel, polarisation) by the float64 direct DFT written
in tests/support (each plane its own uv coverage, scaled by its frequency, and its own
PSF); NumPy
against CuPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.driver import run_clean
from uvlab.gpu.deconvolution.joined import (
    JoinedChannels,
    JoinedChannelsPolarizations,
    JoinedPolarizations,
    joined_hogbom,
)
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.deconvolution.spectral_fit import SpectralFit
from uvlab.gpu.image_spec import ImageSpec

FREQ = np.array([1.0e9, 1.2e9, 1.4e9])
POLS = ("I", "Q")
#: (di, dj, (I, Q) at 1.4 GHz, α): a polarised steep-spectrum source, a flat weak one.
SOURCES = [(0, 0, (1.0, 0.3), -0.7), (-9, 7, (0.4, -0.1), 0.5)]
STOP = 2e-3


@pytest.fixture(scope="module")
def scene():
    """(spec, dirty (C·P, N, N), PSFs (C·P, 2N, 2N), channel weights, true (C, P) fluxes)."""
    u0, v0, _ = layout_uv("meerkat", n_times=2, hours=6.0)
    spec = meerkat_spec(u0, v0, 40, oversample=4.0)
    rng = np.random.default_rng(29)
    dirty, psf, weights, truth = [], [], [], []
    for f in FREQ:  # channel-major: every polarisation of a channel, then the next channel
        u, v = u0 * f / FREQ[-1], v0 * f / FREQ[-1]
        for p in range(len(POLS)):
            w = np.ones(u.size)
            if p == 1:  # Q loses some rows: its own PSF
                w[rng.random(u.size) < 0.2] = 0.0
            flux = [s[p] * (f / 1.4e9) ** a for _, _, s, a in SOURCES]
            points = [(di, dj, s) for (di, dj, _, _), s in zip(SOURCES, flux, strict=True)]
            vis = sky_vis(u, v, spec, points)
            dirty.append(dft_image(u, v, w * vis, spec) / w.sum())
            psf.append(dft_image(u, v, w.astype(complex), ImageSpec(80, spec.cell_rad)) / w.sum())
            truth.append(flux)
        weights.append(float(u.size))
    truth = np.asarray(truth).reshape(len(FREQ), len(POLS), len(SOURCES))
    return spec, np.stack(dirty), np.stack(psf), np.asarray(weights), truth


def test_search_and_linear_images_are_radlers_written_out_per_pixel():
    rng = np.random.default_rng(3)
    c, p, n = 3, 4, 4
    stack = rng.normal(size=(c * p, n, n))
    w = np.array([1.0, 3.0, 2.0])
    for names, f in ((("I", "Q", "U", "V"), 1.0), (("XX", "XY", "YX", "YY"), 0.5)):
        planes = JoinedChannelsPolarizations(JoinedChannels(w), names)
        assert planes.nplanes == c * p and planes.factor == f
        search, linear = np.zeros((n, n)), np.zeros((n, n))
        for j in range(n):
            for i in range(n):
                sq = [sum(stack[ch * p + q, j, i] ** 2 for q in range(p)) for ch in range(c)]
                rss = np.sqrt(sq)
                search[j, i] = np.sqrt(f) * np.dot(w, rss) / w.sum()
                lin = [sum(stack[ch * p + q, j, i] for q in range(p)) for ch in range(c)]
                linear[j, i] = f * np.dot(w, lin) / w.sum()
        np.testing.assert_allclose(planes.search(stack), search, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(planes.linear(stack), linear, rtol=1e-13, atol=1e-15)
    for bad in ((), ("I", "i")):
        with pytest.raises(ValueError, match="none twice"):
            JoinedChannelsPolarizations(JoinedChannels(w), bad)


def test_each_polarisation_is_fitted_alone():
    w = np.array([1.0, 3.0, 2.0])
    fit = SpectralFit(FREQ, w, 2)
    planes = JoinedChannelsPolarizations(JoinedChannels(w, fit), ("I", "Q", "U"))
    values = np.array([[1.0, 0.2, -0.1], [0.9, 0.25, -0.3], [0.7, 0.1, 0.05]])  # (C, P)
    got = planes.values(values.reshape(-1)).reshape(3, 3)
    x = FREQ / (np.dot(w, FREQ) / w.sum()) - 1.0
    for q in range(3):  # np.polyfit weights the residuals by w, not their squares
        want = np.polyval(np.polyfit(x, values[:, q], 1, w=np.sqrt(w)), x)
        np.testing.assert_allclose(got[:, q], want, rtol=1e-12, atol=1e-14)


def test_one_polarisation_is_joined_channels_bit_for_bit(scene):
    _, dirty, psf, weights, _ = scene
    i_only = dirty[0::2], psf[0::2]
    fit = SpectralFit(FREQ, weights, 2)
    one = joined_hogbom(*i_only, JoinedChannelsPolarizations(JoinedChannels(weights, fit), ("I",)),
                        gain=0.1, niter=200, threshold=STOP)  # fmt: skip
    ref = joined_hogbom(*i_only, JoinedChannels(weights, fit), gain=0.1, niter=200,
                        threshold=STOP)  # fmt: skip
    assert one.iterations > 20
    for a, b in ((one.model, ref.model), (one.residual, ref.residual), (one.peak, ref.peak),
                 (one.comp_flux, ref.comp_flux), (one.comp_j, ref.comp_j)):  # fmt: skip
        np.testing.assert_array_equal(a, b)


def test_one_channel_is_joined_polarizations(scene):
    _, dirty, psf, weights, _ = scene
    chan = dirty[2:4], psf[2:4]  # channel 1's I and Q
    one = joined_hogbom(*chan, JoinedChannelsPolarizations(JoinedChannels(weights[1:2]), POLS),
                        gain=0.1, niter=200, threshold=STOP)  # fmt: skip
    ref = joined_hogbom(*chan, JoinedPolarizations(POLS), gain=0.1, niter=200, threshold=STOP)
    assert one.iterations == ref.iterations > 20
    np.testing.assert_array_equal(one.comp_j, ref.comp_j)
    np.testing.assert_array_equal(one.comp_i, ref.comp_i)
    for a, b in ((one.model, ref.model), (one.residual, ref.residual), (one.peak, ref.peak)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("multiscale", [False, True])
def test_every_plane_recovers_its_flux_at_the_same_pixels(scene, xp, multiscale):
    spec, dirty, psf, weights, truth = scene
    planes = JoinedChannelsPolarizations(JoinedChannels(weights), POLS)
    opts = CleanOptions(niter=2000, gain=0.1, threshold_jy=STOP, multiscale=multiscale,
                        multiscale_scales=(0.0, 4.0) if multiscale else None)  # fmt: skip
    out = run_clean(xp.asarray(dirty), xp.asarray(psf), opts, joined=planes)
    model, residual = to_numpy(out.model), to_numpy(out.residual)
    assert out.stop_reason == "threshold" and out.comp_flux.shape[1] == 6
    support = model.any(axis=0)
    for k in range(6):  # every plane's components on the same pixels
        assert not (model[k].astype(bool) & ~support).any()
    np.testing.assert_array_equal(model[0] != 0, model[5] != 0)
    # each plane's flux in all: the sources' own, to what a residual may hold at the stop
    # (≤ STOP on the search image, a channel's root sum of squares up to ~1.3 STOP)
    np.testing.assert_allclose(model.sum(axis=(1, 2)).reshape(3, 2), truth.sum(axis=-1),
                               rtol=0, atol=2 * STOP)  # fmt: skip
    # each source's: a residual r left at one source with the other's error e across a
    # sidelobe s of this snapshot coverage (r = e0 + s·e1) bounds |e| by ~r/(1 − s)
    c, q = spec.npix // 2, psf.shape[-1] // 2
    (di0, dj0, _, _), (di1, dj1, _, _) = SOURCES
    side = np.abs(psf[:, q + dj1 - dj0, q + di1 - di0]).max()
    for s, (di, dj, _, _) in enumerate(SOURCES):  # within 3 pixels: a scale's spread
        got = model[:, c + dj - 3 : c + dj + 4, c + di - 3 : c + di + 4].sum(axis=(-1, -2))
        np.testing.assert_allclose(got.reshape(3, 2), truth[..., s], rtol=0,
                                   atol=2 * STOP / (1 - side))  # fmt: skip
    assert planes.search(residual).max() <= STOP * (1 + 1e-9)
    if xp is not np:  # CuPy against NumPy
        ref = run_clean(dirty, psf, opts, joined=planes)
        np.testing.assert_allclose(model, ref.model, rtol=0, atol=1e-10)
