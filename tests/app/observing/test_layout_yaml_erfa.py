"""Layout files read by PyYAML and the geodesy by ERFA give the values of uvlab's former
hand-written parser and WGS84 formulas (oracles: values pinned from them, the closed-form
WGS84 equations, astropy EarthLocation)."""

from __future__ import annotations

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import EarthLocation

from uvlab.app.observing.layouts import LayoutError, list_layouts, load_layout
from uvlab.app.observing.sites import ecef_to_geodetic, geodetic_to_ecef

# Computed with the hand-written YAML parser and WGS84 formulas (main d9ae138):
# name: (nant, first name, last name, sum of dish diameters, ECEF of the last antenna (m),
#        site (lon_rad, lat_rad, height_m)).
PINNED = {
    "meerkat": (
        64, "M000", "M063", 864.0,
        (5109747.612475466, 2003330.8734926898, -3240538.2705691117),
        (0.37426496004131937, -0.5360416639935466, 1095.967),
    ),
    "meerkat-plus": (
        78, "M000", "SKA121", 1074.0,
        (5105725.662052897, 2002219.7077160145, -3247659.8973289453),
        (0.37426496004131937, -0.5360416639935466, 1095.967),
    ),
    "meerkat.design80": (
        80, "A01", "A80", 960.0,
        (5109270.8970100265, 2007000.782410196, -3238925.089378079),
        (0.37426665946841203, -0.5360464638235224, 1050.0),
    ),
    "skamid": (
        197, "M000", "SKA133", 2859.0,
        (5064424.009264832, 1994828.9656990606, -3315776.6415889044),
        (0.37426496004131937, -0.5360416639935466, 1095.967),
    ),
    "skamid-aastar": (
        143, "M000", "SKA126", 2049.0,
        (5098391.485412723, 2009232.11190163, -3255149.660372766),
        (0.37426496004131937, -0.5360416639935466, 1095.967),
    ),
    "kat-7": (
        7, "ANT-0", "ANT-6", 84.0,
        (5111270.933088235, 2001241.6289132822, -3237273.6373977615),
        (0.3732011357550179, -0.5358145825398429, -0.027523817095373358),
    ),
    "vla.a": (
        27, "W08", "N72", 675.0,
        (-1599557.838366, -5031396.391942, 3570494.716758),
        (-1.878294258139436, 0.5947874979128135, 2114.8902290398255),
    ),
    "vla.b": (
        27, "W04", "N36", 675.0,
        (-1600690.842613, -5038758.669986, 3559632.015747),
        (-1.878294258139436, 0.5947874979128135, 2114.8902290398255),
    ),
    "vla.c": (
        27, "W02", "N18", 675.0,
        (-1601034.338231, -5040996.54777, 3556322.884666),
        (-1.878294258139436, 0.5947874979128135, 2114.8902290398255),
    ),
    "vla.d": (
        27, "W01", "N09", 675.0,
        (-1601139.483292, -5041679.021042, 3555316.478099),
        (-1.878294258139436, 0.5947874979128135, 2114.8902290398255),
    ),
    "vlba": (
        10, "PT", "LA", 250.0,
        (-1449752.584, -4975298.57508, 3709123.84314),
        (-1.8370193753271535, 0.6403816967393593, 1354.8106714190915),
    ),
    "wsrt": (
        14, "RT0", "RTD", 350.0,
        (3845040.95023, 443271.327209, 5052530.32836),
        (0.11520572399753135, 0.9203158992031275, 24.000001019465603),
    ),
    "atca.6a": (
        6, "W4", "W392", 132.0,
        (-4749393.198, 2795491.05, -3200483.694),
        (2.6101423190348916, -0.5290596423472294, 236.86645728442818),
    ),
    "atca.750a": (
        6, "W147", "W392", 132.0,
        (-4749393.198, 2795491.05, -3200483.694),
        (2.6101423190348916, -0.5290596423472294, 236.86645728442818),
    ),
    "alma.cycle12.1": (
        43, "A001", "A050", 516.0,
        (2225014.274388043, -5440034.395426639, -2481732.393199909),
        (-1.1825465955049892, -0.4018251640113072, 5056.8),
    ),
    "alma.cycle12.5": (
        43, "A007", "A111", 516.0,
        (2225457.720613483, -5440190.718338735, -2480983.057665704),
        (-1.1825465955049892, -0.4018251640113072, 5056.8),
    ),
    "alma.cycle12.10": (
        43, "A122", "W210", 516.0,
        (2224459.6705218377, -5441797.556717354, -2478436.3222572985),
        (-1.1825465955049892, -0.4018251640113072, 5056.8),
    ),
    "sma.compact": (
        8, "1", "23", 48.0,
        (-5464563.935931837, -2492866.3646394736, 2150827.238469821),
        (-2.713595119900805, 0.3459980557188073, 4115.062062510289),
    ),
    "sma.extended": (
        8, "1", "17", 48.0,
        (-5464635.077029546, -2492817.4495309056, 2150692.987456899),
        (-2.713595119900805, 0.3459980557188073, 4115.062062510289),
    ),
    "ngvla": (
        214, "mda001", "cor114", 3852.0,
        (-1603253.35871, -5040530.0271, 3556028.33781),
        (-1.8786902406209933, 0.594859926152464, 2126.7135140011087),
    ),
    "hera": (
        350, "HH0", "HB349", 4900.0,
        (5109420.003113009, 2005479.018469283, -3239626.2471831124),
        (0.3739944548964603, -0.5361917820434638, 1051.69),
    ),
    "mwa": (
        262, "Tile011", "EDA2", 1152.7999999999997,
        (-2559454.078803051, 5095372.14368304, -2849057.185346378),
        (2.0362898668561025, -0.46606084483864724, 377.827),
    ),
    "lofar.core": (
        48, "CS001HBA0", "CS501HBA1", 1478.4,
        (3825663.353, 460692.883, 5065607.992),
        (0.11990136082838622, 0.9235431451835332, 49.35420044743854),
    ),
    "lofar.full": (
        62, "CS001HBA0", "RS509HBA", 2052.4,
        (3783537.37, 450130.288, 5097866.254),
        (0.11990136082838622, 0.9235431451835332, 49.35420044743854),
    ),
    "askap": (
        36, "ak01", "ak36", 432.0,
        (-2556754.259, 5098661.288, -2845570.661),
        (2.0356098627608965, -0.46593399659044504, 367.62808708081616),
    ),
    "gmrt": (
        30, "C00", "W06", 1350.0,
        (1667084.001, 5791813.617, 2082219.431),
        (1.292415825900269, 0.33319474771507457, 640.0),
    ),
    "skalow": (
        512, "C1", "N16-6", 19456.0,
        (-2562972.0156791294, 5104983.075781088, -2828647.2021537535),
        (2.0379240703643666, -0.4681797212284218, 365.0),
    ),
}  # fmt: skip

#: One ULP of a coordinate at the Earth's radius is 9.3e-10 m; ERFA's formulas and the
#: former ones round differently by a couple of ULPs.
ECEF_ULPS_M = 2e-9


def test_every_shipped_layout_reads_as_before():
    assert set(PINNED) == set(list_layouts())
    for name, (nant, first, last, dish_sum, ecef_last, site) in PINNED.items():
        layout = load_layout(name)
        names = layout.antenna_names
        assert (len(names), names[0], names[-1]) == (nant, first, last), name
        assert layout.dish_diameter.sum() == dish_sum, name
        np.testing.assert_allclose(layout.ecef[-1], ecef_last, rtol=0, atol=ECEF_ULPS_M)
        got = (layout.site_lon_rad, layout.site_lat_rad, layout.site_height_m)
        # 1e-13 rad is 0.6 µm: VLBA's site is its antennas' mean, 1000 km underground,
        # where the former iteration and ERFA differ by 5e-14 rad; elsewhere by 1e-16.
        np.testing.assert_allclose(got[:2], site[:2], rtol=0, atol=1e-13)
        assert got[2] == pytest.approx(site[2], abs=1e-9)


def test_yaml_values_are_read_exactly(tmp_path):
    path = tmp_path / "three.yaml"
    path.write_text(
        "name: three  # a comment\ncentre: [21.4439, -30.7132, 1038.0]\ncoord_sys: geodetic\n"
        "size: [12, 13.5, 1e1]\nantnames: [A-0, 'B 1', 7]\n"
        "subarray:\n  pair: [A-0, 7]\n"
        "antlocations:\n  - [21.3831920630, -30.7000784738, 0.0257]\n"
        "  - [21.3838997709, -30.6997699869, -0.0743]\n  - [21.38303340, -30.69975375, 2]\n"
    )
    layout = load_layout(path)
    assert layout.antenna_names == ("A-0", "B 1", "7")
    assert layout.dish_diameter.tolist() == [12.0, 13.5, 10.0]
    lon, lat, h = ecef_to_geodetic(layout.ecef)
    np.testing.assert_allclose(np.degrees(lon), [21.3831920630, 21.3838997709, 21.38303340])
    np.testing.assert_allclose(np.degrees(lat), [-30.7000784738, -30.6997699869, -30.69975375])
    np.testing.assert_allclose(h, [0.0257, -0.0743, 2.0], atol=1e-8)


BAD_YAML = [
    ("size: 12\nantlocations:\n  - [21, -30, 1000]\n  - [21, -30, high]\n", ":4",
     "antlocations entry 1 is not [a, b, c] numbers"),
    ("size: 12\nantlocations:\n  - [21, -30, 1000]\n  - [21, -30.1, 1000\n", ":5",
     "not valid YAML"),
    ("size: 12\nantlocations: [1, 2\n", ":3", "not valid YAML"),
    ("- [21, -30, 1000]\n", "", "expected 'key: value' lines at the top level"),
    ("size: [12]\nantlocations:\n  - [21, -30, 1000]\n  - [21, -30.1, 1000]\n", "",
     "'size' or 'antnames' missing"),
    ("size: twelve\nantlocations:\n  - [21, -30, 1000]\n  - [21, -30.1, 1000]\n", "",
     "'size' or 'antnames' missing"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "where", "problem"), BAD_YAML)
def test_bad_yaml_is_one_line_naming_the_file(tmp_path, body, where, problem):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    message = str(err.value)
    assert message.startswith(f"{path}{where}: ") and problem in message
    assert "\n" not in message


def _closed_form_ecef(lon, lat, h):
    """WGS84 geodetic → ECEF by the textbook equations (the former uvlab code)."""
    a, f = 6378137.0, 1.0 / 298.257223563
    e2 = f * (2.0 - f)
    n = a / np.sqrt(1.0 - e2 * np.sin(lat) ** 2)
    return np.stack(
        [
            (n + h) * np.cos(lat) * np.cos(lon),
            (n + h) * np.cos(lat) * np.sin(lon),
            (n * (1.0 - e2) + h) * np.sin(lat),
        ],
        axis=-1,
    )


def test_geodesy_equals_the_closed_form_and_astropy(rng):
    lon = rng.uniform(-np.pi, np.pi, 5000)
    lat = np.concatenate(
        [rng.uniform(-np.pi / 2, np.pi / 2, 4996), [np.pi / 2, -np.pi / 2, 0, 1e-9]]
    )
    h = rng.uniform(-1e4, 1e5, 5000)
    xyz = geodetic_to_ecef(lon, lat, h)
    assert np.max(np.abs(xyz - _closed_form_ecef(lon, lat, h))) <= ECEF_ULPS_M
    ref = EarthLocation.from_geodetic(lon * u.rad, lat * u.rad, h * u.m, ellipsoid="WGS84")
    ref_xyz = np.stack([c.to_value(u.m) for c in ref.geocentric], axis=-1)
    assert np.max(np.abs(xyz - ref_xyz)) <= 1e-8  # astropy goes through degrees: 6e-9 m seen
    lon2, lat2, h2 = ecef_to_geodetic(xyz)
    # Back to where we started, to the rounding of a 6.4e6 m coordinate (a few nm).
    assert np.max(np.abs(h2 - h)) <= 5e-9
    assert np.max(np.abs(lat2 - lat)) <= 2e-15  # a few ULPs of an angle near π/2; 13 nm
    east_west = np.abs(np.angle(np.exp(1j * (lon2 - lon)))) * np.cos(lat)
    assert np.max(east_west) <= 2e-15


def test_non_finite_positions_have_no_geodetic_coordinates():
    lon, lat, h = ecef_to_geodetic(np.array([[np.nan, 0.0, 0.0], [6.4e6, 0.0, 0.0]]))
    assert np.isnan([lon[0], lat[0], h[0]]).all()
    assert np.isfinite([lon[1], lat[1], h[1]]).all()
