"""Geometry outside physical limits is refused where it enters, in one line naming the file."""

from __future__ import annotations

import importlib.resources
import re

import numpy as np
import pytest

from uvlab.app.observing import sites
from uvlab.app.observing.layouts import ArrayLayout, LayoutError, list_layouts, load_layout
from uvlab.app.observing.observation import ObservationSpec

VLA_XYZ = "-1601185.4 -5041977.5 3554875.9 25 A\n-1601085.4 -5041977.5 3554875.9 25 B\n"


def test_every_bundled_layout_and_file_still_loads():
    for name in list_layouts():
        layout = load_layout(name)
        assert not sites.off_earth(layout.ecef).any(), name
    files = importlib.resources.files("uvlab.resources.arrays")
    stems = [f.name for f in files.iterdir() if f.name.endswith((".cfg", ".yaml", ".csv"))]
    for stem in stems:
        load_layout(stem.rsplit(".", 1)[0] if stem.endswith(".cfg") else stem)


def test_wgs84_extremes_are_inside_the_limits():
    lo, hi = sites.EARTH_RADIUS_RANGE_M
    pole = sites.geodetic_to_ecef(0.0, np.pi / 2, -500.0)  # Antarctic bedrock below sea level
    peak = sites.geodetic_to_ecef(np.radians(-78.8), np.radians(-1.47), 6263.0)  # Chimborazo
    assert lo < sites.geocentric_radius(pole) < 6356.752e3 < hi
    assert lo < 6378.137e3 < sites.geocentric_radius(peak) < hi
    assert not sites.off_earth(np.stack([pole, peak])).any()
    assert sites.off_earth([[0.0, 0.0, 0.0], [1e300, 0, 0], [np.nan, 0, 0]]).all()


CFG = [
    ("# coordsys=XYZ\n1e300 0 0 25 A\n0 0 6.37e6 25 B\n", 2, "1e+297 km from the Earth's centre"),
    ("# coordsys=XYZ\n0 0 0 25 A\n10 0 0 25 B\n", 2, "0 km from the Earth's centre"),
    ("# coordsys=XYZ\n" + VLA_XYZ + "100 0 0 25 C\n", 4, "antenna C is 0.1 km"),
    ("# coordsys=GEO\n21 95 1000 12 A\n21 -30 1000 12 B\n", 2, "latitude 95°"),
    ("# coordsys=GEO\n21 -30 1000 12 A\n21 -30 1e7 12 B\n", 3, "height 1e+07 m"),
    ("# coordsys=GEO\n21 -30 1000 12 A\n1e300 -30 1000 12 B\n", 3, "longitude 1e+300°"),
    (
        "# observatory=MeerKAT\n# coordsys=LOC\n0 0 0 12 A\n5e6 0 0 12 B\n",
        4,
        "5000 km from the site",
    ),
    ("# observatory=VLA\n# coordsys=XYZ\n0 0 0 25\n1 2 nan 25\n", 4, "non-finite value"),
]


@pytest.mark.parametrize(("body", "line", "problem"), CFG)
def test_cfg_off_the_earth_is_refused(tmp_path, body, line, problem):
    path = tmp_path / "bad.cfg"
    path.write_text(body)
    with pytest.raises(LayoutError, match=re.escape(problem)) as err:
        load_layout(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}:{line}: ") and "\n" not in msg


YAML = [
    ("centre: [21, 95, 1000]\nsize: 12\nantlocations:\n- [21, -30, 1000]\n- [21, -30.01, 1000]\n",
     "", "'centre' has latitude 95°"),
    ("size: 12\nantlocations:\n- [21, -30, 1000]\n- [21, 120, 1000]\n", ":4", "latitude 120°"),
    ("size: 12\nantlocations:\n- [21, -30, inf]\n- [21, -30, 1000]\n", ":3", "not finite"),
    ("size: 12\ncoord_sys: itrf\ncentre: [0, 0, 0]\nantlocations:\n- [1, 2, 3]\n- [4, 5, 6]\n",
     "", "'centre' is 0 km from the Earth's centre"),
    ("size: 12\ncoord_sys: itrf\nantlocations:\n- [6.4e6, 0, 0]\n- [1e300, 5, 6]\n", ":5",
     "antenna ANT001 is 1e+297 km"),
    ("centre: north\nsize: 12\nantlocations:\n- [21, -30, 1000]\n- [21, -30.01, 1000]\n",
     "", "'centre' is not"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "where", "problem"), YAML)
def test_yaml_off_the_earth_is_refused(tmp_path, body, where, problem):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    with pytest.raises(LayoutError, match=re.escape(problem)) as err:
        load_layout(path)
    assert str(err.value).startswith(f"{path}{where}: ")


CSV = [
    ("# dish = 12\n# site = 21, 95, 1000\nname,x,y,z\nA,0,0,0\nB,10,0,0\n", "",
     "the site has latitude 95°"),
    ("# dish = 12\n# site = 21, -30, 1e9\nname,x,y,z\nA,0,0,0\nB,10,0,0\n", "",
     "the site has height 1e+09 m"),
    ("# dish = 12\n# site = 21, -30, 1000\nname,x,y,z\nA,0,0,0\nB,3e6,0,0\n", ":5",
     "antenna B is 3000 km from the site"),
    ("# dish = 12\nname,x,y,z\nA,6.4e6,0,0\nB,1e300,0,0\n", ":4", "antenna B is 1e+297 km"),
    ("# dish = 12\n# site = 21, -30, 1000\nname,x,y,z\nA,0,0,0\nB,nan,0,0\n", ":5",
     "non-finite x, y, z"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "where", "problem"), CSV)
def test_csv_off_the_earth_is_refused(tmp_path, body, where, problem):
    path = tmp_path / "bad.csv"
    path.write_text(body)
    with pytest.raises(LayoutError, match=re.escape(problem)) as err:
        load_layout(path)
    assert str(err.value).startswith(f"{path}{where}: ")


def test_array_layout_refuses_a_site_or_antennas_off_the_earth():
    good = load_layout("kat-7")
    args = (good.name, good.antenna_names, good.ecef, good.dish_diameter)
    site = (good.site_lon_rad, good.site_lat_rad, good.site_height_m)
    with pytest.raises(LayoutError, match="site has latitude 95°"):
        ArrayLayout(*args, site[0], np.radians(95.0), site[2], "here")
    with pytest.raises(LayoutError, match="site has height"):
        ArrayLayout(*args, site[0], site[1], 1e8, "here")
    with pytest.raises(LayoutError, match="site has a non-finite"):
        ArrayLayout(*args, np.nan, site[1], site[2], "here")
    ecef = good.ecef.copy()
    ecef[3] *= 1.05  # ~320 km up
    with pytest.raises(LayoutError, match=r"^here: antenna .* km from the Earth's centre"):
        ArrayLayout(good.name, good.antenna_names, ecef, good.dish_diameter, *site, "here")


def test_observation_refuses_absurd_coordinates_and_dates():
    kw = dict(layout="kat-7", dec_deg=-30.0)
    with pytest.raises(ValueError, match=r"ra_deg must lie in \[-360, 360\], got 1e\+300"):
        ObservationSpec(ra_deg=1e300, **kw)
    with pytest.raises(ValueError, match="dec_deg must lie in"):
        ObservationSpec(ra_deg=10.0, layout="kat-7", dec_deg=95.0)
    with pytest.raises(ValueError, match="ra_deg must be a finite number, got 'ten'"):
        ObservationSpec(ra_deg="ten", **kw)
    for date, why in (("2025-13-01", " (bad month)"), ("yesterday", "")):
        with pytest.raises(ValueError) as err:
            ObservationSpec(ra_deg=10.0, date_iso=date, **kw)
        assert str(err.value) == (
            f"date_iso {date!r} is not a valid UTC date/time{why}; "
            "expected ISO 8601 such as '2025-03-20'"
        )
    with pytest.raises(ValueError, match=r"^start_iso '2025-02-30T10:00' .*\(bad day\)"):
        ObservationSpec(ra_deg=10.0, start_iso="2025-02-30T10:00", duration_h=1.0, **kw)
    with pytest.raises(ValueError, match="start_iso must be a date/time string"):
        ObservationSpec(ra_deg=10.0, start_iso=20250220, duration_h=1.0, **kw)
