"""Tests for app/skymodel/demo_skies.py."""

from __future__ import annotations

import math

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import SkyCoord, SkyOffsetFrame

from uvlab.app.skymodel import DEMO_SKIES, SkyModelError, demo_sky, load_sky
from uvlab.app.skymodel.demo_skies import random_layout

CENTRES = [(0.0, -30.0), (359.9, 45.0), (123.4, -88.5), (200.0, 0.0)]


def lmn_astropy(model, ra0_deg, dec0_deg):
    """Direction cosines from astropy's offset frame (independent of uvlab.gpu)."""
    centre = SkyCoord(ra0_deg * u.deg, dec0_deg * u.deg)
    pts = SkyCoord([c.ra_deg for c in model] * u.deg, [c.dec_deg for c in model] * u.deg)
    off = pts.transform_to(SkyOffsetFrame(origin=centre))
    lon, lat = off.lon.rad, off.lat.rad
    return np.stack([np.cos(lat) * np.sin(lon), np.sin(lat)], -1)


@pytest.mark.parametrize(("ra0", "dec0"), CENTRES)
def test_point_sits_exactly_at_phase_centre(ra0, dec0):
    model = demo_sky("point", ra0, dec0)
    lmn = model.to_source_arrays(math.radians(ra0), math.radians(dec0)).lmn
    assert len(model) == 1 and model[0].stokes == (1.0, 0.0, 0.0, 0.0)
    assert lmn[0, 0] == 0.0 and lmn[0, 1] == 0.0
    assert lmn[0, 2] == 1.0


@pytest.mark.parametrize(("ra0", "dec0"), CENTRES)
def test_random_sources_land_where_intended(ra0, dec0):
    fov_deg, n, seed = 2.0, 40, 123
    model = demo_sky("random", ra0, dec0, fov_deg=fov_deg, n=n, seed=seed, freq_hz=1e9)
    lm, flux, alpha = random_layout(n, seed, math.radians(fov_deg))
    got = model.to_source_arrays(math.radians(ra0), math.radians(dec0)).lmn[:, :2]
    np.testing.assert_allclose(got, lm, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lmn_astropy(model, ra0, dec0), lm, rtol=0, atol=1e-12)
    assert np.all(np.abs(lm) <= 0.45 * math.radians(fov_deg))
    np.testing.assert_array_equal([c.stokes[0] for c in model], flux)
    np.testing.assert_array_equal([c.spectral_index for c in model], alpha)
    assert all(c.ref_freq_hz == 1e9 for c in model)
    assert np.all((flux >= 0.02) & (flux <= 2.0))
    assert len({c.name for c in model}) == n


def test_random_is_reproducible_and_seeded():
    a = demo_sky("random", 10, -30, seed=7)
    assert a == demo_sky("random", 10, -30, seed=7)
    assert a != demo_sky("random", 10, -30, seed=8)
    assert len(a) == 20
    assert len(demo_sky("random", 10, -30, n=3)) == 3


@pytest.mark.parametrize(("ra0", "dec0"), CENTRES)
def test_layouts_of_pair_and_teaching(ra0, dec0):
    fov = math.radians(0.5)
    pair = demo_sky("pair", ra0, dec0, fov_deg=0.5)
    want = np.array([[0.15, 0.10], [-0.10, -0.20]]) * fov
    np.testing.assert_allclose(lmn_astropy(pair, ra0, dec0), want, rtol=0, atol=1e-12)
    assert [c.stokes[0] for c in pair] == [1.0, 0.5]

    teach = demo_sky("teaching", ra0, dec0, fov_deg=0.5)
    lm = lmn_astropy(teach, ra0, dec0)
    want = np.array([[0, 0], [0.20, 0.05], [-0.15, 0.22], [0.06, -0.25], [-0.25, -0.10]]) * fov
    np.testing.assert_allclose(lm, want, rtol=0, atol=1e-12)
    assert teach[0].stokes[0] == max(c.stokes[0] for c in teach)
    assert [c.kind for c in teach].count("gaussian") == 1
    dist = np.hypot(*(lm[:, None, :] - lm[None, :, :]).transpose(2, 0, 1))
    assert dist[np.triu_indices(len(teach), 1)].min() > 0.05 * fov  # distinct positions


def test_gaussian_and_polarised():
    g = demo_sky("gaussian", 30, -60, fov_deg=2.0)[0]
    assert g.kind == "gaussian" and g.pa_deg == 30.0
    assert (
        g.major_arcsec == pytest.approx(0.05 * 2.0 * 3600) and g.minor_arcsec == g.major_arcsec / 2
    )
    p = demo_sky("polarised", 30, -60)[0]
    assert all(s != 0 for s in p.stokes) and p.stokes[0] == 1.0


def test_every_demo_builds_and_names():
    for name in DEMO_SKIES:
        model = demo_sky(name, 45, -45, freq_hz=7e8)
        assert model.name == f"demo:{name}" and len(model) >= 1
        assert all(c.ref_freq_hz == 7e8 for c in model)
        assert load_sky(name, ra0_deg=45, dec0_deg=-45, freq_hz=7e8) == model


@pytest.mark.parametrize(
    ("args", "kwargs", "fragment"),
    [
        (("spiral", 0, 0), {}, "unknown demo sky 'spiral'"),
        (("point", 0, 0), {"fov_deg": 0.0}, "fov_deg"),
        (("point", 0, 95), {}, "outside [-90, 90]"),
        (("random", 0, 0), {"n": 0}, "positive integer"),
    ],
)
def test_demo_errors(args, kwargs, fragment):
    with pytest.raises(SkyModelError) as info:
        demo_sky(*args, **kwargs)
    assert fragment in str(info.value)
