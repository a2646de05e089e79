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
