"""ν_LSRK/ν_TOPO (uvlab.app.observing.lsrk) against astropy and, marked ``casa``, casacore."""

from __future__ import annotations

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import FK4, EarthLocation, SkyCoord
from astropy.time import Time

from uvlab.app.observing.layouts import load_layout
from uvlab.app.observing.lsrk import C_KMS, SUN_LSRK_KMS, lsrk_ratio

CASES = [
    ("vla.c", 150.0, 30.0, "2025-03-20T10:00:00"),
    ("meerkat", 83.6, -60.0, "2025-06-05T20:00:00"),
    ("meerkat", 270.0, 10.0, "2025-12-01T03:00:00"),
]


def test_sun_lsrk_velocity_is_20_kms_towards_18h_30d_b1900():
    apex = SkyCoord(270 * u.deg, 30 * u.deg, frame=FK4(equinox="B1900")).icrs
    np.testing.assert_allclose(SUN_LSRK_KMS, 20.0 * apex.cartesian.xyz.value, atol=1e-5)


@pytest.mark.parametrize(("layout", "ra", "dec", "when"), CASES)
def test_lsrk_ratio_matches_astropy(layout, ra, dec, when):
    """astropy's barycentric correction (the Earth's orbit and rotation) plus the Sun's
    LSRK motion projected on the source: the ratio to 5e-8 (15 m/s; astropy's relativistic
    correction and the first-order β differ by ~1.6e-8)."""
    site = load_layout(layout).site_ecef()
    loc = EarthLocation.from_geocentric(*site, unit=u.m)
    t = Time(when, scale="utc")
    src = SkyCoord(ra * u.deg, dec * u.deg)
    v_bary = src.radial_velocity_correction("barycentric", obstime=t, location=loc)
    v = v_bary.to_value(u.km / u.s) + SUN_LSRK_KMS @ src.cartesian.xyz.value
    got = lsrk_ratio(t.mjd * 86400.0, np.radians(ra), np.radians(dec), site)
    assert abs(got - (1.0 - v / C_KMS)) < 5e-8
    assert abs(got - 1.0) > 1e-6  # the observer does move


@pytest.mark.casa
@pytest.mark.parametrize(("layout", "ra", "dec", "when"), CASES)
def test_lsrk_ratio_matches_casacore(layout, ra, dec, when, tmp_path, monkeypatch):
    """casacore's TOPO → LSRK conversion of a frequency (what tclean reports): 2.4e-9 seen."""
    monkeypatch.chdir(tmp_path)  # CASA writes its log to the working directory
    casatools = pytest.importorskip("casatools")
    me, qa = casatools.measures(), casatools.quanta()
    site = load_layout(layout).site_ecef()
    mjd_s = Time(when, scale="utc").mjd * 86400.0
    me.doframe(me.position("ITRF", *[qa.quantity(float(x), "m") for x in site]))
    me.doframe(me.direction("J2000", qa.quantity(ra, "deg"), qa.quantity(dec, "deg")))
    me.doframe(me.epoch("UTC", qa.quantity(mjd_s, "s")))
    f = me.measure(me.frequency("TOPO", qa.quantity(1.4e9, "Hz")), "LSRK")["m0"]["value"]
    got = lsrk_ratio(mjd_s, np.radians(ra), np.radians(dec), site)
    assert abs(got - f / 1.4e9) < 1e-8
