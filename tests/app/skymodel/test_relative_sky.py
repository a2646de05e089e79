"""Relative skies (``SkyModel.centre_deg``): moved_to, sources_for, editing and files."""

from __future__ import annotations

import math
from dataclasses import replace

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import SkyCoord, SkyOffsetFrame

from uvlab.app.skymodel import (
    Component,
    SkyModel,
    SkyModelError,
    demo_sky,
    format_sky,
    load_sky,
    parse_sky_text,
    read_sky,
    read_wsclean,
    write_sky,
)

#: Moves between these phase centres (RA, Dec), degrees: across the equator, the RA wrap, a pole.
MOVES = [
    ((201.365, -43.019), (201.365, 34.0)),
    ((359.9, 10.0), (0.2, -60.0)),
    ((10.0, -30.0), (250.0, 89.5)),
    ((123.4, -88.5), (45.0, 0.0)),
]


def radec_astropy(lm, centre):
    """(RA, Dec) degrees at offsets (l, m) about ``centre``, from astropy's offset frame."""
    l, m = np.asarray(lm, dtype=np.float64).T
    lat = np.arcsin(m)
    lon = np.arctan2(l, np.sqrt(1.0 - l * l - m * m))
    frame = SkyOffsetFrame(origin=SkyCoord(centre[0] * u.deg, centre[1] * u.deg))
    pts = SkyCoord(lon * u.rad, lat * u.rad, frame=frame).icrs
    return pts.ra.deg, pts.dec.deg


def lm_about(model, centre):
    return model.to_source_arrays(*np.radians(centre)).lmn


def sep_arcsec(ra1, dec1, ra2, dec2):
    a = SkyCoord(np.asarray(ra1) * u.deg, np.asarray(dec1) * u.deg)
    return a.separation(SkyCoord(np.asarray(ra2) * u.deg, np.asarray(dec2) * u.deg)).arcsec


def test_demo_skies_are_relative_and_files_absolute(tmp_path):
    for name in ("point", "pair", "teaching", "random"):
        assert demo_sky(name, 30.0, -60.0).centre_deg == (30.0, -60.0)
        assert load_sky(name, ra0_deg=30.0, dec0_deg=-60.0).relative
    path = tmp_path / "hand.txt"
    path.write_text("# uvlab sky model v1\nsrc1 point 15.0 -30.0 1 0 0 0 0 1.4e9 0 0 0\n")
    assert load_sky(path).centre_deg is None and not load_sky(path).relative
    ws = tmp_path / "ws.txt"
    ws.write_text(
        "# centre: 10 -30\nFormat = Name, Type, Ra, Dec, I, ReferenceFrequency\n"
        "s0,POINT,01:00:00,-30.00.00,1.0,1.4e9\n"
    )
    assert read_wsclean(ws).centre_deg is None and load_sky(ws).centre_deg is None


@pytest.mark.parametrize(("old", "new"), MOVES)
def test_moved_to_keeps_every_offset(old, new):
    sky = demo_sky("teaching", *old, fov_deg=3.0)
    moved = sky.moved_to(*new)
    assert moved.centre_deg == (new[0] % 360.0, new[1]) and moved.name == sky.name
    lm = lm_about(sky, old)
    np.testing.assert_allclose(lm_about(moved, new), lm, rtol=0, atol=1e-13)
    # against astropy: the old offsets placed about the new centre
    ra, dec = radec_astropy(lm[:, :2], new)
    got_ra, got_dec = [c.ra_deg for c in moved], [c.dec_deg for c in moved]
    assert np.all(sep_arcsec(got_ra, got_dec, ra, dec) < 1e-6)
    # everything but the position is the component's own
    for a, b in zip(sky, moved, strict=True):
        assert replace(b, ra_deg=a.ra_deg, dec_deg=a.dec_deg) == a
        assert 0.0 <= b.ra_deg < 360.0 and -90.0 <= b.dec_deg <= 90.0


@pytest.mark.parametrize(("old", "new"), MOVES)
def test_moved_to_round_trips(old, new):
    sky = demo_sky("random", *old, fov_deg=20.0, n=50, seed=3)
    back = sky.moved_to(*new).moved_to(*old)
    assert back.centre_deg == sky.centre_deg
    d = sep_arcsec(
        [c.ra_deg for c in back],
        [c.dec_deg for c in back],
        [c.ra_deg for c in sky],
        [c.dec_deg for c in sky],
    )
    assert np.all(d < 1e-7)


def test_a_component_behind_the_horizon_stays_behind():
    centre = (0.0, 0.0)
    behind = Component("far", "point", 150.0, 20.0, (1.0, 0, 0, 0), 1.4e9)
    sky = SkyModel((behind,), "x", centre)
    moved = sky.moved_to(90.0, 45.0)
    # the same angle from the new centre as from the old one (> 90°: behind both)
    d_old = sep_arcsec(150.0, 20.0, *centre)
    d_new = sep_arcsec(moved[0].ra_deg, moved[0].dec_deg, 90.0, 45.0)
    assert d_old > 90 * 3600 and abs(d_new - d_old) < 1e-6


def test_absolute_models_and_same_centre_moves_return_self():
    comp = Component("a", "point", 15.0, -30.0, (1.0, 0, 0, 0), 1.4e9)
    absolute = SkyModel((comp,), "file")
    assert absolute.moved_to(100.0, 20.0) is absolute
    sky = demo_sky("pair", 10.0, -30.0)
    assert sky.moved_to(10.0, -30.0) is sky and sky.moved_to(370.0, -30.0) is sky
    empty = SkyModel((), "e", (1.0, 2.0)).moved_to(3.0, 4.0)
    assert empty.centre_deg == (3.0, 4.0) and len(empty) == 0


def test_sources_for_places_a_relative_sky_at_its_offsets():
    old, new = (201.365, -43.019), (201.365, 34.0)
    sky = demo_sky("teaching", *old)
    at_new = sky.sources_for(*np.radians(new))
    np.testing.assert_allclose(at_new.lmn, lm_about(sky, old), rtol=0, atol=0)
    np.testing.assert_allclose(
        at_new.lmn, sky.moved_to(*new).to_source_arrays(*np.radians(new)).lmn, rtol=0, atol=1e-15
    )
    np.testing.assert_array_equal(at_new.shape, sky.to_source_arrays(*np.radians(old)).shape)
    # an absolute sky stays where its RA/Dec are: far from a centre 77° away
    absolute = replace(sky, centre_deg=None)
    far = absolute.sources_for(*np.radians(new)).lmn
    assert np.all(np.hypot(far[:, 0], far[:, 1]) > 0.9)


def test_editing_keeps_the_model_relative():
    sky = demo_sky("pair", 10.0, -30.0)
    comp = Component("new", "point", 10.1, -30.1, (0.3, 0, 0, 0), 1.4e9)
    for edited in (sky.with_component(comp), sky.without(0), sky.replace(1, comp)):
        assert edited.centre_deg == (10.0, -30.0)
    assert sky.with_component(comp).moved_to(50.0, 10.0)[2].name == "new"


def test_centre_is_checked():
    assert SkyModel((), "", (-10.0, 5.0)).centre_deg == (350.0, 5.0)
    for bad in ((0.0, 91.0), (math.nan, 0.0), (1.0,), "x", (0.0, "north")):
        with pytest.raises(SkyModelError, match="centre"):
            SkyModel((), "", bad)
    with pytest.raises(SkyModelError, match="Dec"):
        demo_sky("pair", 0.0, 0.0).moved_to(0.0, -95.0)


def test_uvlab_files_record_the_centre_and_round_trip(tmp_path):
    sky = demo_sky("teaching", 201.365, -43.019, fov_deg=0.7)
    path = tmp_path / "demo.txt"
    write_sky(sky, path)
    text = path.read_text(encoding="utf-8")
    assert "# centre: 201.365 -43.019\n" in text
    assert read_sky(path) == sky and load_sky(path) == sky
    # a hand-written centre may be sexagesimal; a bad one names its line
    model = parse_sky_text("# uvlab sky model v1\n# centre: 13:25:27.6 -43:01:08.4\n")
    assert model.centre_deg == pytest.approx((201.365, -43.019), abs=1e-9)
    with pytest.raises(SkyModelError, match=r"line 2: centre"):
        parse_sky_text("# uvlab sky model v1\n# centre: 10 north\n")
    # only before the first component, like the name; deleting the line pins the sky
    after = text.replace("# centre: 201.365 -43.019\n", "") + "# centre: 1 2\n"
    pinned = parse_sky_text(after)
    assert pinned.centre_deg is None and pinned.components == sky.components
    assert format_sky(pinned).count("centre") == 0
