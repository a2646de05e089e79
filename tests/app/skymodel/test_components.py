"""Sky components and models (app/skymodel/component.py, sky_model.py, checks.py,
source_arrays.py): validation, editing, SourceArrays."""

from __future__ import annotations

import pickle

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import SkyCoord, SkyOffsetFrame

from uvlab.app.skymodel import Component, SkyModel, SkyModelError


def point(name="p", ra=10.0, dec=-30.0, i=1.0, **kw) -> Component:
    return Component(name, "point", ra, dec, (i, 0.0, 0.0, 0.0), 1.4e9, **kw)


def gauss(name="g", ra=10.0, dec=-30.0, maj=20.0, mn=10.0, pa=30.0) -> Component:
    return Component(name, "gaussian", ra, dec, (1.0, 0.1, 0.2, 0.3), 1e9, -0.7, maj, mn, pa)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"ra_deg": float("nan")}, "RA must be finite"),
        ({"dec_deg": 90.5}, "outside [-90, 90]"),
        ({"dec_deg": "north"}, "Dec must be a number"),
        ({"stokes": (1.0, 0.0, 0.0)}, "4 values"),
        ({"stokes": (float("inf"), 0, 0, 0)}, "I must be finite"),
        ({"ref_freq_hz": 0.0}, "ref_freq_hz must be > 0"),
        ({"kind": "disk"}, "unknown component type"),
        ({"name": "two words"}, "whitespace"),
        ({"name": ""}, "non-empty"),
        ({"major_arcsec": 5.0, "minor_arcsec": 5.0}, "a point has zero size"),
        ({"kind": "gaussian"}, "major_arcsec > 0"),
        ({"kind": "gaussian", "major_arcsec": 5.0, "minor_arcsec": 6.0}, "exceeds major"),
        ({"kind": "gaussian", "major_arcsec": 5.0, "minor_arcsec": -1.0}, "negative size"),
        ({"spectral_index": True}, "spectral_index must be a number"),
    ],
)
def test_component_validation(kwargs, fragment):
    base = {
        "name": "c",
        "kind": "point",
        "ra_deg": 1.0,
        "dec_deg": 2.0,
        "stokes": (1.0, 0.0, 0.0, 0.0),
        "ref_freq_hz": 1e9,
    }
    with pytest.raises(SkyModelError, match=None) as info:
        Component(**{**base, **kwargs})
    assert fragment in str(info.value)


def test_component_normalises_ra_kind_and_numbers():
    c = Component("c", "GAUSSIAN", -10, 0, (1, 0, 0, 0), 1e9, 0, 3, 2, 0)
    assert c.kind == "gaussian"
    assert c.ra_deg == 350.0
    assert isinstance(c.major_arcsec, float)
    assert point(ra=360.0).ra_deg == 0.0
    assert point(ra=-1e-20).ra_deg == 0.0  # -1e-20 % 360 rounds to 360.0


def test_negative_clean_component_flux_allowed():
    assert point(i=-0.25).stokes[0] == -0.25


def test_component_flux_power_law():
    c = gauss()
    got = c.flux(np.array([0.5e9, 2e9]))
    want = np.array([[0.5**-0.7], [2.0**-0.7]]) * np.array([1.0, 0.1, 0.2, 0.3])
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_editing_returns_new_models():
    m = SkyModel((point("a"), point("b")), name="  demo  ")
    assert m.name == "demo"
    m2 = m.with_component(gauss("c"))
    assert [c.name for c in m2] == ["a", "b", "c"]
    assert len(m) == 2  # unchanged
    assert [c.name for c in m2.without(1)] == ["a", "c"]
    assert m2.replace(0, point("z"))[0].name == "z"
    assert m2.replace(-1, point("y"))[2].name == "y"
    with pytest.raises(IndexError):
        m.without(5)
    with pytest.raises(SkyModelError, match="Component objects"):
        SkyModel(("not a component",))
    with pytest.raises(SkyModelError, match="one line"):
        SkyModel((), name="two\nlines")


def test_total_flux():
    m = SkyModel((point("a", i=2.0), gauss("b")))
    nu = 1.2e9
    want = 2.0 + (nu / 1e9) ** -0.7
    assert m.total_flux(nu) == pytest.approx(want, rel=1e-15)
    assert m.total_flux() == 3.0
    arr = m.total_flux(np.array([1e9, 1.4e9]))
    np.testing.assert_allclose(arr, [2.0 * 1.0 + 1.0, 2.0 + 1.4**-0.7], rtol=1e-15)
    assert SkyModel().total_flux(1e9) == 0.0


def test_error_message_and_pickle():
    err = SkyModelError("expected 13 columns, got 9", "/tmp/dir/sky.txt", 7)
    assert str(err) == "sky.txt, line 7: expected 13 columns, got 9"
    assert err.path == "/tmp/dir/sky.txt"
    back = pickle.loads(pickle.dumps(err))
    assert (back.reason, back.path, back.line, str(back)) == (err.reason, err.path, 7, str(err))
    assert str(SkyModelError("bad")) == "bad"
    assert isinstance(err, ValueError)


def _lmn_by_rotation(ra_deg, dec_deg, ra0, dec0):
    """Independent oracle: rotate unit vectors so the phase centre lies on +x."""
    ra, dec = np.deg2rad(ra_deg), np.deg2rad(dec_deg)
    v = np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], -1)
    rz = np.array([[np.cos(ra0), np.sin(ra0), 0], [-np.sin(ra0), np.cos(ra0), 0], [0, 0, 1]])
    ry = np.array([[np.cos(dec0), 0, np.sin(dec0)], [0, 1, 0], [-np.sin(dec0), 0, np.cos(dec0)]])
    x, y, z = ry @ rz @ v.T
    return np.stack([y, z, x], -1)  # l east, m north, n toward the centre


@pytest.mark.parametrize(("ra0_deg", "dec0_deg"), [(10.0, -30.0), (359.5, 60.0), (180.0, -89.0)])
def test_to_source_arrays_against_astropy(rng, ra0_deg, dec0_deg):
    n = 25
    centre = SkyCoord(ra0_deg * u.deg, dec0_deg * u.deg)
    offsets = rng.uniform(-3, 3, size=(n, 2))
    pts = centre.spherical_offsets_by(offsets[:, 0] * u.deg, offsets[:, 1] * u.deg)
    comps = [
        Component(
            f"s{k}",
            "gaussian",
            pts.ra.deg[k],
            pts.dec.deg[k],
            (1.0, 0.5, -0.5, 0.1),
            1e9 + k,
            0.1 * k,
            30.0 + k,
            10.0,
            15.0 * k,
        )
        for k in range(n)
    ]
    model = SkyModel(tuple(comps))
    ra0, dec0 = np.deg2rad(ra0_deg), np.deg2rad(dec0_deg)
    arrays = model.to_source_arrays(ra0, dec0)

    off = pts.transform_to(SkyOffsetFrame(origin=centre))
    lon, lat = off.lon.rad, off.lat.rad
    want = np.stack([np.cos(lat) * np.sin(lon), np.sin(lat), np.cos(lat) * np.cos(lon)], -1)
    np.testing.assert_allclose(arrays.lmn, want, rtol=0, atol=1e-12)
    ra_deg = np.array([c.ra_deg for c in comps])
    dec_deg = np.array([c.dec_deg for c in comps])
    np.testing.assert_allclose(arrays.lmn, _lmn_by_rotation(ra_deg, dec_deg, ra0, dec0), atol=1e-12)

    np.testing.assert_allclose(
        arrays.shape[:, 0], (np.arange(n) + 30.0) * u.arcsec.to(u.rad), rtol=1e-15
    )
    np.testing.assert_allclose(arrays.shape[:, 1], 10.0 * u.arcsec.to(u.rad), rtol=1e-15)
    np.testing.assert_allclose(arrays.shape[:, 2], np.deg2rad(15.0 * np.arange(n)), rtol=1e-15)
    np.testing.assert_array_equal(arrays.stokes, np.tile([1.0, 0.5, -0.5, 0.1], (n, 1)))
    np.testing.assert_array_equal(arrays.ref_freq, 1e9 + np.arange(n))
    np.testing.assert_allclose(arrays.spectral_index, 0.1 * np.arange(n), rtol=1e-15)
    assert arrays.has_gaussians


def test_empty_model_arrays():
    arrays = SkyModel().to_source_arrays(0.1, -0.5)
    assert arrays.nsrc == 0
    assert arrays.lmn.shape == (0, 3) and arrays.shape.shape == (0, 3)
