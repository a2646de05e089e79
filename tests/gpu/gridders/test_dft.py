"""The exact DFT reference against a plain per-pixel sum, and its normalisation."""

import numpy as np
import pytest

from tests.support.oracles import plain_dft
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.imager import ImagingError, make_image


@pytest.mark.parametrize("wterm", [False, True])
def test_dft_matches_plain_sum(xp, rng, wterm):
    spec = ImageSpec(16, 30 * ARCSEC)
    u, v, w = rng.normal(0, 2000, (3, 60))
    wvis = rng.normal(size=60) + 1j * rng.normal(size=60)
    got = dirty_dft(
        xp.asarray(u), xp.asarray(v), xp.asarray(wvis), spec, w=xp.asarray(w), wterm=wterm, chunk=17
    )
    got = got.get() if hasattr(got, "get") else got
    want = plain_dft(u, v, wvis, spec, w=w if wterm else None)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


def test_dft_subsampled_pixels_match_full(rng):
    spec = ImageSpec(32, 20 * ARCSEC)
    u, v = rng.normal(0, 3000, (2, 100))
    wvis = rng.normal(size=100) + 0j
    full = dirty_dft(u, v, wvis, spec)
    np.testing.assert_allclose(dirty_dft(u, v, wvis, spec, pixels=4), full[::4, ::4], atol=1e-12)


def test_point_source_peak_and_position(rng):
    """A 1 Jy point at a pixel centre reads 1.000 Jy/beam at that pixel; PSF peaks at 1."""
    spec = ImageSpec(64, 2 * ARCSEC)
    freq = np.array([1.0e9, 1.1e9])
    uvw = rng.normal(0, 3000, (400, 3))
    j0, i0 = 40, 25
    l0, m0 = spec.l_axis()[i0], spec.m_axis()[j0]
    lam = 299792458.0 / freq
    phase = (uvw[:, 0, None] * l0 + uvw[:, 1, None] * m0) / lam
    vis = np.exp(2j * np.pi * phase)
    res = make_image(uvw, freq, vis, np.ones_like(vis.real), spec, algorithm="dft", device="cpu")
    assert np.unravel_index(np.argmax(res.dirty), res.dirty.shape) == (j0, i0)
    assert res.dirty[j0, i0] == pytest.approx(1.0, abs=1e-12)
    assert res.psf.max() == pytest.approx(1.0, abs=1e-12)
    assert res.psf[32, 32] == pytest.approx(1.0, abs=1e-12)
    assert res.nvis == 800
    assert "weighting" in res.timing and "grid" in res.timing


def test_all_flagged_raises():
    spec = ImageSpec(16, 10 * ARCSEC)
    uvw = np.ones((5, 3))
    vis = np.ones((5, 1), complex)
    with pytest.raises(ImagingError, match="flagged"):
        make_image(
            uvw, [1e9], vis, 1.0, spec, flag=np.ones((5, 1), bool), algorithm="dft", device="cpu"
        )


def test_flags_and_nonfinite_samples_are_ignored(rng):
    spec = ImageSpec(16, 10 * ARCSEC)
    uvw = rng.normal(0, 1000, (30, 3))
    vis = rng.normal(size=(30, 1)) + 0j
    flag = np.zeros((30, 1), bool)
    flag[:5] = True
    bad = vis.copy()
    bad[:5] = np.nan
    a = make_image(uvw, [1e9], bad, 1.0, spec, flag=flag, algorithm="dft", device="cpu")
    b = make_image(uvw[5:], [1e9], vis[5:], 1.0, spec, algorithm="dft", device="cpu")
    np.testing.assert_allclose(a.dirty, b.dirty, atol=1e-14)


def old_dirty_dft(u, v, wvis, spec, pixels=1):
    """The reference as it was: every factor an exponential, one complex product."""
    lax, max_ = spec.l_axis()[::pixels], spec.m_axis()[::pixels]
    a = np.exp(-2j * np.pi * np.outer(u, lax)) * wvis[:, None]
    b = np.exp(-2j * np.pi * np.outer(v, max_))
    return np.real(b.T @ a)


@pytest.mark.parametrize("rung", ["numpy", "numba"])
@pytest.mark.parametrize(("npix", "pixels"), [(64, 1), (64, 4), (62, 2), (90, 5), (128, 16)])
def test_the_fast_reference_is_the_old_one(rng, monkeypatch, rung, npix, pixels):
    """Recurrence, real product and the numba rung change the sum by rounding only."""
    if rung == "numba":
        from uvlab.gpu.gridders.jit_grid import _loaded

        if _loaded()[0] is None:
            pytest.skip(f"numba not importable: {_loaded()[1]}")
    monkeypatch.setenv("UVLAB_CPU_RUNG", rung)
    spec = ImageSpec(npix, 15 * ARCSEC)
    n = 3000
    u, v = rng.uniform(-4e4, 4e4, (2, n))
    wvis = rng.normal(size=n) + 1j * rng.normal(size=n)
    want = old_dirty_dft(u, v, wvis, spec, pixels)
    got = dirty_dft(u, v, wvis, spec, pixels=pixels, chunk=1100)
    assert got.shape == want.shape == (-(-npix // pixels),) * 2
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()


def test_the_fast_reference_on_gpu_is_the_old_one(xp, rng):
    spec = ImageSpec(96, 15 * ARCSEC)
    u, v = rng.uniform(-4e4, 4e4, (2, 2000))
    wvis = rng.normal(size=2000) + 1j * rng.normal(size=2000)
    want = old_dirty_dft(u, v, wvis, spec, 3)
    got = dirty_dft(xp.asarray(u), xp.asarray(v), xp.asarray(wvis), spec, pixels=3, chunk=700)
    got = got.get() if hasattr(got, "get") else got
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()
