"""Whether an array's site sees the field: transit elevation, flagged fraction, a visible Dec.

Oracles: astropy's AltAz of the field at the site, and the simulated observation's own
per-antenna elevations and flags (uvlab.app.observing.observation.simulate_observation), which use
each antenna's position and the declination of date.
"""

from __future__ import annotations

from dataclasses import replace

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import AltAz, EarthLocation, SkyCoord
from astropy.time import Time

from uvlab.app.lab.session import DEFAULT_OBSERVATION
from uvlab.app.observing.elevation import (
    VISIBLE_MARGIN_DEG,
    elevation_deg,
    field_visibility,
    min_elevation_deg,
    transit_elevation_deg,
    visible_declination,
    visible_declination_for,
    visible_fraction,
    with_visible_declination,
)
from uvlab.app.observing.layouts import load_layout
from uvlab.app.observing.observation import (
    DEFAULT_DATE,
    field_ha_range_h,
    simulate_observation,
    transit_mjd_s,
)


def _site_deg(layout: str) -> tuple[float, float, float]:
    lay = load_layout(layout)
    return np.degrees(lay.site_lon_rad), np.degrees(lay.site_lat_rad), lay.site_height_m


@pytest.mark.parametrize(("layout", "dec_deg"), [("vla.d", -43.019), ("vla.d", 50.0),
                                                 ("meerkat", 10.0)])  # fmt: skip
def test_transit_elevation_matches_astropy_altaz(layout, dec_deg):
    """The highest astropy altitude (no refraction) around transit, RA 90° (no precession in δ)."""
    lon, lat, h = _site_deg(layout)
    ra = 90.0
    t0 = transit_mjd_s(load_layout(layout), np.radians(ra), np.radians(dec_deg), DEFAULT_DATE)
    times = Time((t0 + np.arange(-300.0, 301.0, 5.0)) / 86400.0, format="mjd", scale="utc")
    site = EarthLocation.from_geodetic(lon * u.deg, lat * u.deg, h * u.m)
    frame = AltAz(obstime=times, location=site, pressure=0 * u.hPa)
    alt = SkyCoord(ra * u.deg, dec_deg * u.deg, frame="icrs").transform_to(frame).alt.deg
    # aberration (≤ 20″) and nutation (≤ 9″) are all that astropy adds
    assert transit_elevation_deg(lat, dec_deg) == pytest.approx(alt.max(), abs=0.015)
    assert elevation_deg(lat, dec_deg, 0.0) == pytest.approx(alt.max(), abs=0.015)


def test_meerkat_default_at_the_vla_is_all_flagged_and_said_so():
    spec = replace(DEFAULT_OBSERVATION, layout="vla.d", int_s=900.0)
    obs = simulate_observation(spec)
    assert obs.flag.all()  # the simulation's own verdict: every sample flagged
    lat = np.degrees(load_layout("vla.d").site_lat_rad)
    transit = transit_elevation_deg(lat, -43.019)
    # the simulation peaks at transit (to the declination of date, 20″ a year from J2000)
    assert np.degrees(obs.elevation_rad).max() == pytest.approx(transit, abs=0.2)
    assert field_visibility(spec) == (
        f"Dec -43.0° never rises above the 15° elevation limit at vla.d (latitude {lat:+.1f}°): "
        f"it transits at {transit:.1f}°"
    )


@pytest.mark.parametrize("layout", ["vla.d", "vla.a", "wsrt", "vlba"])
def test_visible_declination_clears_every_flag(layout):
    """After the switch, the simulated observation keeps every row; 2° nearer does not."""
    spec = replace(DEFAULT_OBSERVATION, layout=layout, int_s=60.0, nchan=1)
    dec = visible_declination_for(spec)
    assert dec == round(dec)  # rounded to 1°
    seen = simulate_observation(replace(spec, dec_deg=dec))
    assert not seen.flag.any()
    assert np.degrees(seen.elevation_rad).min() >= spec.elevation_limit_deg
    nearer = dec - 2.0 * np.sign(dec - spec.dec_deg)  # past the boundary, margin and rounding
    assert simulate_observation(replace(spec, dec_deg=nearer)).flag.any()
    moved, note = with_visible_declination(spec)
    assert moved == replace(spec, dec_deg=dec)
    assert note.startswith(field_visibility(spec)) and f"Dec set to {dec:+g}°" in note


def test_a_visible_field_is_left_alone():
    spec = replace(DEFAULT_OBSERVATION, layout="kat-7")
    assert field_visibility(spec) is None
    assert visible_declination_for(spec) == spec.dec_deg
    assert with_visible_declination(spec) == (spec, None)


@pytest.mark.parametrize(("dec_deg", "speaks"), [(10.0, False), (40.0, True)])
def test_flagged_fraction_matches_the_simulation(dec_deg, speaks):
    """KAT-7, 12 h: the share of the range below 15° is the share of rows flagged."""
    spec = replace(DEFAULT_OBSERVATION, layout="kat-7", dec_deg=dec_deg, ha_start_h=-6.0,
                   ha_stop_h=6.0, int_s=300.0, nchan=1)  # fmt: skip
    flagged = simulate_observation(spec).flag.mean()
    lat = np.degrees(load_layout("kat-7").site_lat_rad)
    assert 1.0 - visible_fraction(lat, dec_deg, 15.0, (-6.0, 6.0)) == pytest.approx(
        flagged, abs=0.015
    )
    line = field_visibility(spec)
    assert (line is not None) == speaks
    if speaks:
        pct = int(line.split(" for ")[1].split(" %")[0])
        assert pct == pytest.approx(100 * flagged, abs=2)
        assert line.endswith("of the hour-angle range -6.00 h … +6.00 h: those rows are flagged")


def _brute_min_elevation(lat, dec, ha_range_h):
    ha = np.linspace(*ha_range_h, 4001)
    return elevation_deg(lat, dec, ha).min()


@pytest.mark.parametrize(
    ("lat", "dec", "limit", "ha_range_h"),
    [
        (34.08, -43.0, 15.0, (-3.0, 3.0)),
        (-30.7, 40.0, 15.0, (-6.0, 6.0)),
        (52.7, -20.0, 20.0, (-1.0, 5.0)),
        (-30.7, 60.0, 10.0, (-0.5, 0.5)),
        (78.0, -10.0, 5.0, (-12.0, 12.0)),  # circumpolar fields only
        (5.0, 89.0, 15.0, (-2.0, 2.0)),
    ],
)
def test_visible_declination_is_the_nearest_seen_one(lat, dec, limit, ha_range_h):
    """Against a dense scan of hour angle and declination."""
    got = visible_declination(lat, dec, limit, ha_range_h)
    assert min_elevation_deg(lat, got, ha_range_h) == pytest.approx(
        _brute_min_elevation(lat, got, ha_range_h), abs=1e-3
    )
    assert _brute_min_elevation(lat, got, ha_range_h) >= limit
    decs = np.arange(-90.0, 90.001, 0.05)
    ha = np.linspace(*ha_range_h, 1201)
    ok = elevation_deg(lat, decs[:, None], ha[None, :]).min(axis=1) >= limit
    nearest = decs[ok][np.argmin(np.abs(decs[ok] - dec))]
    # at most the margin and one rounding step farther than the nearest seen declination
    assert abs(got - dec) <= abs(nearest - dec) + VISIBLE_MARGIN_DEG + 1.0 + 0.05


def test_no_declination_seen_all_day_falls_back_to_the_zenith():
    assert visible_declination(0.0, 40.0, 15.0, (-12.0, 12.0)) == 0.0
    assert visible_declination(-30.7, 40.0, 45.0, (-12.0, 12.0)) == -31.0


def test_hemispheres_mirror():
    for lat, dec, rng in [(34.08, -43.0, (-3.0, 3.0)), (-30.7, 50.0, (-6.0, 4.0))]:
        assert visible_declination(-lat, -dec, 15.0, rng) == -visible_declination(
            lat, dec, 15.0, rng
        )


def test_start_time_mode_hour_angles_match_the_simulation():
    spec = replace(DEFAULT_OBSERVATION, ha_start_h=None, ha_stop_h=None,
                   start_iso="2025-06-01T20:00:00", duration_h=2.0, int_s=600.0)  # fmt: skip
    h0, h1 = field_ha_range_h(spec)
    obs = simulate_observation(spec)
    # integration centres: half an integration (sidereal) after the start
    half_h = 300.0 * 1.002737909350795 / 3600.0
    ha_h = np.degrees(np.unwrap(obs.ha_rad)) / 15.0
    assert ha_h[0] == pytest.approx(h0 + half_h, abs=1e-4)
    assert ha_h[-1] == pytest.approx(h1 - half_h, abs=1e-4)
