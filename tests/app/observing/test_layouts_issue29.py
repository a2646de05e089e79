"""Issue 29: the SKA-Low, LOFAR (core and Dutch array), ASKAP and GMRT layouts.

Oracles: published figures (station counts, longest baselines, sites), astropy's
geodesy (``EarthLocation``) for heights and east/north/up directions, and baseline
lengths recomputed here from the ITRF positions. astropy's site registry
(``EarthLocation.of_site``) needs the network, so the sites are the published
coordinates written below.
"""

from __future__ import annotations

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import EarthLocation

from uvlab.app.ms.subtables import telescope_name
from uvlab.app.observing.layouts import list_layouts, load_layout
from uvlab.app.observing.observation import ObservationSpec, simulate_observation
from uvlab.app.observing.sites import find_observatory

# name: (count, dish/station diameters in m, (min, max) baseline in km allowed,
#        published (lon_deg, lat_deg) of the site, tolerance km, (min, max) antenna height m)
# Longest baselines: SKA-Low AA4 74 km (SKAO, "SKA-Low in numbers"); LOFAR core ~3.5 km
# and Dutch array ~120 km (van Haarlem et al. 2013, A&A 556, A2); ASKAP ~6 km (CSIRO);
# GMRT ~25 km (NCRA). Shortest: no two stations overlap, so no baseline is shorter than a
# dish/station diameter.
# Sites: SKA-Low's array centre (SKA-TEL-SKO-0000422: 116.7644482 E, -26.82472208);
# LOFAR CS002 (lofarantpos stationinfo: 6.8693028 E, 52.9148472 N); ASKAP ak01 (ASKAPsoft
# cpingest: 116.6314243 E, -26.6970007); GMRT (Wikipedia: 19°05′47″N 74°02′59″E).
EXPECTED = {
    "skalow": (512, {38.0}, (0.038, 76.0), (116.7644482, -26.82472208), 0.1, (290, 400)),
    "lofar.core": (48, {30.8}, (0.0308, 4.0), (6.8693028, 52.9148472), 1.0, (30, 80)),
    "lofar.full": (62, {30.8, 41.0}, (0.0308, 130.0), (6.8693028, 52.9148472), 1.0, (20, 80)),
    "askap": (36, {12.0}, (0.012, 6.6), (116.6314243, -26.6970007), 2.0, (330, 400)),
    "gmrt": (30, {45.0}, (0.045, 27.0), (74.0497, 19.0964), 2.0, (600, 720)),
}
PUBLISHED_MAX_KM = {
    "skalow": 74.0,
    "lofar.core": 3.5,
    "lofar.full": 120.0,
    "askap": 6.0,
    "gmrt": 25.0,
}


def _baseline_lengths_km(layout):
    ecef = layout.ecef
    d = np.linalg.norm(ecef[:, None, :] - ecef[None, :, :], axis=-1)
    return d[np.triu_indices(layout.nant, k=1)] / 1e3


def _astropy_site_distance_km(layout, lon_deg, lat_deg):
    site = EarthLocation.from_geodetic(
        np.degrees(layout.site_lon_rad) * u.deg, np.degrees(layout.site_lat_rad) * u.deg, 0 * u.m
    )
    ref = EarthLocation.from_geodetic(lon_deg * u.deg, lat_deg * u.deg, 0 * u.m)
    delta = [(a - b).to_value(u.m) for a, b in zip(site.geocentric, ref.geocentric)]
    return float(np.linalg.norm(delta) / 1e3)


def test_new_layouts_are_listed_and_named_as_casa_names_them():
    assert set(EXPECTED) <= set(list_layouts())
    for name in EXPECTED:  # the MS's TELESCOPE_NAME is a row of CASA's Observatories table
        assert find_observatory(telescope_name(name)) is not None, name


def test_skalow_core_and_clusters():
    names = load_layout("skalow").antenna_names
    core = [n for n in names if n.startswith("C")]
    assert core == [f"C{k}" for k in range(1, 225)]
    clusters = {n.split("-")[0] for n in names if not n.startswith("C")}
    assert clusters == {f"{arm}{k}" for arm in "ENS" for k in range(1, 17)}  # 3 arms x 16
    assert len(names) - len(core) == 6 * len(clusters)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_count_diameters_baselines_site_and_heights(name):
    count, dishes, (bl_min_km, bl_max_km), (lon, lat), tol_km, (h_lo, h_hi) = EXPECTED[name]
    layout = load_layout(name)
    assert layout.nant == count == len(set(layout.antenna_names))
    assert set(np.unique(layout.dish_diameter)) == dishes
    lengths = _baseline_lengths_km(layout)
    assert len(lengths) == count * (count - 1) // 2
    assert lengths.min() >= bl_min_km
    # within 10 % of the published longest baseline, and under the bound above
    assert abs(lengths.max() - PUBLISHED_MAX_KM[name]) < 0.1 * PUBLISHED_MAX_KM[name]
    assert lengths.max() < bl_max_km
    assert layout.max_baseline_m() == pytest.approx(lengths.max() * 1e3, rel=1e-12)
    assert _astropy_site_distance_km(layout, lon, lat) < tol_km
    heights = EarthLocation.from_geocentric(*layout.ecef.T, unit=u.m).height.to_value(u.m)
    assert h_lo < heights.min() and heights.max() < h_hi


def test_lofar_core_is_the_core_of_the_full_array():
    core, full = load_layout("lofar.core"), load_layout("lofar.full")
    assert load_layout("lofar").name == "lofar.full"  # the file stem names the whole file
    assert all(n.startswith("CS") and n[-4:] in ("HBA0", "HBA1") for n in core.antenna_names)
    assert len({n[:5] for n in core.antenna_names}) == 24  # 24 core stations, 2 fields each
    remote = [n for n in full.antenna_names if n.startswith("RS")]
    assert len(remote) == 14 and all(n.endswith("HBA") for n in remote)
    index = {n: i for i, n in enumerate(full.antenna_names)}
    np.testing.assert_array_equal(full.ecef[[index[n] for n in core.antenna_names]], core.ecef)


def _enu_km(layout, name):
    """East/north/up of one antenna about the site, by astropy's geodesy (not uvlab's)."""
    site = EarthLocation.from_geodetic(
        np.degrees(layout.site_lon_rad) * u.deg,
        np.degrees(layout.site_lat_rad) * u.deg,
        layout.site_height_m * u.m,
    )
    lon, lat = site.lon.to_value(u.rad), site.lat.to_value(u.rad)
    east = np.array([-np.sin(lon), np.cos(lon), 0.0])
    north = np.array([-np.sin(lat) * np.cos(lon), -np.sin(lat) * np.sin(lon), np.cos(lat)])
    up = np.cross(east, north)
    d = layout.ecef[layout.antenna_names.index(name)] - [c.to_value(u.m) for c in site.geocentric]
    return np.array([d @ east, d @ north, d @ up]) / 1e3


def test_gmrt_arms_point_as_on_the_map():
    """The file's local-equatorial offsets were rotated by the site longitude into ITRF.

    Unrotated, E06 sat 12.7 km above the ellipsoid. Rotated, the arms lie flat and
    run east-north-east (E), south (S) and north-west (W), as on GMRT's maps.
    """
    gmrt = load_layout("gmrt")
    e06, s06, w06 = (_enu_km(gmrt, n) for n in ("E06", "S06", "W06"))
    assert e06[0] > 10 and 0 < e06[1] < e06[0]
    assert s06[1] < -13 and abs(s06[0]) < 1
    assert w06[0] < -10 and w06[1] > 8
    for enu in (e06, s06, w06):
        assert abs(enu[2]) < 0.1  # flat to 100 m over 14 km


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_tiny_observation_runs(name):
    """Two integrations about transit: finite uvw whose lengths are the baseline lengths."""
    layout = load_layout(name)
    dec = float(np.degrees(layout.site_lat_rad)) + 5.0
    spec = ObservationSpec(name, 30.0, dec, ha_start_h=-0.5, ha_stop_h=0.5, int_s=1800.0)
    obs = simulate_observation(spec)
    assert obs.ntime == 2 and obs.nbl == layout.nant * (layout.nant - 1) // 2
    assert np.all(np.isfinite(obs.uvw))
    lengths = np.linalg.norm(layout.ecef[obs.ant2] - layout.ecef[obs.ant1], axis=1)
    np.testing.assert_allclose(
        np.linalg.norm(obs.uvw, axis=-1), np.tile(lengths, (2, 1)), rtol=1e-9
    )
    assert not obs.flag.any()  # 5° from the zenith at transit: above every horizon limit
