"""Tests for uvlab.app.observing.layouts and uvlab.app.observing.sites.

Oracles: astropy EarthLocation, closed forms.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import EarthLocation

from uvlab.app.commands import arrays as arrays_command
from uvlab.app.observing.layouts import ArrayLayout, LayoutError, list_layouts, load_layout
from uvlab.app.observing.sites import (
    ecef_to_geodetic,
    enu_matrix,
    find_observatory,
    geodetic_to_ecef,
    known_observatories,
    observatory_geodetic,
)

# name: (nant, dish diameters present, (lon_deg, lat_deg, height_m) of the real site, tolerance km)
# Site values are public coordinates of each observatory, written here independently of
# uvlab.app.observing.sites. Tolerances: a few km, except where the source file itself is displaced.
MEERKAT = (21.4439, -30.7110, 1050.0)
VLA = (-107.6184, 34.0784, 2120.0)
EXPECTED = {
    "meerkat": (64, {13.5}, MEERKAT, 3.0),
    "meerkat-plus": (78, {13.5, 15.0}, MEERKAT, 3.0),
    "meerkat.design80": (80, {12.0}, MEERKAT, 3.0),
    "skamid": (197, {13.5, 15.0}, MEERKAT, 3.0),
    "skamid-aastar": (143, {13.5, 15.0}, MEERKAT, 3.0),
    # simms' KAT-7 antennas lie ~4 km from the real KAT-7 (−30.7215, 21.4107), heights ~0 m.
    "kat-7": (7, {12.0}, (21.4107, -30.7215, None), 5.0),
    "vla.a": (27, {25.0}, VLA, 3.0),
    "vla.b": (27, {25.0}, VLA, 3.0),
    "vla.c": (27, {25.0}, VLA, 3.0),
    "vla.d": (27, {25.0}, VLA, 3.0),
    "vlba": (10, {25.0}, None, None),
    # CASA's WSRT.cfg sits ~21 km south of Westerbork (52.9153, 6.6033).
    "wsrt": (14, {25.0}, (6.6033, 52.9153, None), 25.0),
    "atca.6a": (6, {22.0}, (149.5501, -30.3128, 237.0), 3.0),
    "atca.750a": (6, {22.0}, (149.5501, -30.3128, 237.0), 3.0),
    "alma.cycle12.1": (43, {12.0}, (-67.7549, -23.0229, 5050.0), 3.0),
    "alma.cycle12.5": (43, {12.0}, (-67.7549, -23.0229, 5050.0), 3.0),
    "alma.cycle12.10": (43, {12.0}, (-67.7549, -23.0229, 5050.0), 3.0),
    "sma.compact": (8, {6.0}, (-155.4777, 19.8243, 4080.0), 3.0),
    "sma.extended": (8, {6.0}, (-155.4777, 19.8243, 4080.0), 3.0),
    "ngvla": (214, {18.0}, VLA, 30.0),
    "hera": (350, {14.0}, (21.4283, -30.7215, 1050.0), 3.0),
    "mwa": (262, {4.4}, (116.6708, -26.7033, 378.0), 3.0),
    # issue 29 (tests/app/observing/test_layouts_issue29.py has the published figures)
    "lofar.core": (48, {30.8}, (6.8693, 52.9148, 56.0), 3.0),
    "lofar.full": (62, {30.8, 41.0}, (6.8693, 52.9148, 56.0), 3.0),
    "askap": (36, {12.0}, (116.6314, -26.6970, 361.0), 3.0),
    "gmrt": (30, {45.0}, (74.0497, 19.0964, None), 3.0),
    "skalow": (512, {38.0}, (116.7644, -26.8247, 365.0), 3.0),
}


def _distance_km(layout: ArrayLayout, lon_deg: float, lat_deg: float) -> float:
    ref = EarthLocation.from_geodetic(lon_deg * u.deg, lat_deg * u.deg, 0 * u.m)
    site = EarthLocation.from_geodetic(
        np.degrees(layout.site_lon_rad) * u.deg, np.degrees(layout.site_lat_rad) * u.deg, 0 * u.m
    )
    delta = np.array([(a - b).to_value(u.m) for a, b in zip(ref.geocentric, site.geocentric)])
    return float(np.linalg.norm(delta) / 1e3)


def test_builtin_list_is_complete():
    assert sorted(list_layouts()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_builtin_layout_loads_with_plausible_site(name):
    nant, dishes, site, tol_km = EXPECTED[name]
    layout = load_layout(name)
    assert layout.nant == nant == len(layout.antenna_names) == len(set(layout.antenna_names))
    assert layout.ecef.shape == (nant, 3)
    assert set(np.unique(layout.dish_diameter)) == dishes
    # Every antenna sits on the Earth's surface (astropy's geodetic heights).
    heights = EarthLocation.from_geocentric(*layout.ecef.T, unit=u.m).height.to_value(u.m)
    assert np.all((heights > -50) & (heights < 5200))
    if site is not None:
        assert _distance_km(layout, site[0], site[1]) < tol_km
        if site[2] is not None:
            assert abs(layout.site_height_m - site[2]) < 100
    ant1, ant2 = layout.baselines()
    assert len(ant1) == len(ant2) == nant * (nant - 1) // 2


def test_baselines_order_and_max_length():
    layout = load_layout("vla.d")
    ant1, ant2 = layout.baselines()
    expected = [(p, q) for p in range(layout.nant) for q in range(p + 1, layout.nant)]
    assert list(zip(ant1.tolist(), ant2.tolist())) == expected
    d = np.linalg.norm(layout.ecef[:, None, :] - layout.ecef[None, :, :], axis=-1)
    assert layout.max_baseline_m() == pytest.approx(d.max(), abs=1e-9)
    assert 0.9e3 < layout.max_baseline_m() < 1.1e3  # VLA D: ~1 km


def test_geodetic_ecef_round_trip_against_astropy(rng):
    lon = rng.uniform(-np.pi, np.pi, 500)
    lat = np.concatenate(
        [rng.uniform(-np.pi / 2, np.pi / 2, 496), [np.pi / 2, -np.pi / 2, 0, 1e-9]]
    )
    h = rng.uniform(-500.0, 9000.0, 500)
    ours = geodetic_to_ecef(lon, lat, h)
    ref = EarthLocation.from_geodetic(lon * u.rad, lat * u.rad, h * u.m, ellipsoid="WGS84")
    ref_xyz = np.stack([c.to_value(u.m) for c in ref.geocentric], axis=-1)
    assert np.max(np.abs(ours - ref_xyz)) < 1e-3
    lon2, lat2, h2 = ecef_to_geodetic(ref_xyz)
    geo = ref.to_geodetic("WGS84")
    assert np.max(np.abs(h2 - geo.height.to_value(u.m))) < 1e-3
    assert np.max(np.abs(lat2 - geo.lat.to_value(u.rad))) < 1e-3 / 6.4e6
    east_west = np.abs(np.angle(np.exp(1j * (lon2 - geo.lon.to_value(u.rad)))))
    assert np.max(east_west * np.cos(lat)) < 1e-3 / 6.4e6


def test_enu_matrix_is_astropy_enu():
    # The "up" row is the ellipsoid normal; compare with astropy's geodetic normal by
    # differentiating EarthLocation.from_geodetic in height.
    lon, lat = np.radians(21.44), np.radians(-30.71)
    a = EarthLocation.from_geodetic(lon * u.rad, lat * u.rad, 0 * u.m)
    b = EarthLocation.from_geodetic(lon * u.rad, lat * u.rad, 1000 * u.m)
    up = np.array([(q - p).to_value(u.m) for p, q in zip(a.geocentric, b.geocentric)]) / 1000
    m = enu_matrix(lon, lat)
    np.testing.assert_allclose(m[2], up, atol=1e-12)
    np.testing.assert_allclose(m @ m.T, np.eye(3), atol=1e-15)
    assert m[1, 2] > 0 and m[0, 2] == 0  # north has +z, east is horizontal


def test_loc_file_enu_is_reproduced():
    layout = load_layout("meerkat.design80")  # CASA meerkat.cfg: coordsys=LOC about "MeerKAT"
    # First antenna line of the file: "176.061   170.880  0.0   12.0".
    np.testing.assert_allclose(layout.enu()[0], [176.061, 170.880, 0.0], atol=1e-3)
    # Independent: astropy puts the antenna at the site height + its tangent-plane drop.
    loc = EarthLocation.from_geocentric(*layout.ecef[0], unit=u.m)
    drop = (176.061**2 + 170.880**2) / (2 * 6.37e6)
    assert loc.height.to_value(u.m) == pytest.approx(1050.0 + drop, abs=2e-3)
    site = EarthLocation.from_geodetic(21.4439 * u.deg, -30.7132 * u.deg, 1050.0 * u.m)
    dist = np.linalg.norm([(p - q).to_value(u.m) for p, q in zip(loc.geocentric, site.geocentric)])
    assert dist == pytest.approx(np.hypot(176.061, 170.880), abs=2e-3)


def test_meerkat_is_real_64_dish_array():
    # M000 lies ~207 m south and ~8 m west of the MeerKAT array centre (katpoint's reference).
    layout = load_layout("meerkat")
    assert layout.antenna_names[0] == "M000" and layout.antenna_names[-1] == "M063"
    ref = EarthLocation.from_geodetic(21.443888 * u.deg, -30.711056 * u.deg, 1035 * u.m)
    m000 = EarthLocation.from_geocentric(*layout.ecef[0], unit=u.m)
    dist = np.linalg.norm([(p - q).to_value(u.m) for p, q in zip(m000.geocentric, ref.geocentric)])
    assert 195 < dist < 225


def test_equatorial_matches_rotated_offsets():
    layout = load_layout("atca.6a")
    offsets = layout.ecef - layout.site_ecef()
    eq = layout.equatorial()
    lon = layout.site_lon_rad
    np.testing.assert_allclose(eq[:, 2], offsets[:, 2], atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(eq, axis=1), np.linalg.norm(offsets, axis=1))
    # ATCA's east-west track: baselines along local east have no Lx or Lz part.
    east = np.array([-np.sin(lon), np.cos(lon), 0.0])
    along = offsets @ east
    np.testing.assert_allclose(eq[:, 1], along, atol=1e-6)


def test_user_cfg_xyz_and_geo(tmp_path):
    path = tmp_path / "mini.cfg"
    loc = EarthLocation.from_geodetic([10.0, 10.01] * u.deg, [45.0, 45.0] * u.deg, [100, 110] * u.m)
    xyz = np.stack([c.to_value(u.m) for c in loc.geocentric], axis=-1)
    lines = [f"{x:.4f} {y:.4f} {z:.4f} 10.0 P{i}" for i, (x, y, z) in enumerate(xyz)]
    path.write_text("# observatory=NOWHERE\n# coordsys=XYZ\n" + "\n".join(lines) + "\n")
    layout = load_layout(path)
    assert layout.name == "mini" and layout.antenna_names == ("P0", "P1")
    assert np.degrees(layout.site_lat_rad) == pytest.approx(45.0, abs=1e-4)
    assert layout.site_height_m == pytest.approx(105.0, abs=0.1)
    geo = tmp_path / "geo.cfg"
    geo.write_text("# coordsys = GEO\n10.0 45.0 100 10\n10.01 45.0 110 10\n")
    np.testing.assert_allclose(load_layout(geo).ecef, xyz, atol=1e-3)
    assert load_layout(geo).antenna_names == ("A01", "A02")


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("1 2 3 25 A\n1 2 x 25 B\n", 4, "non-numeric"),
        ("1 2 3 25 A\n1 2 3\n", 4, "expected 'x y z diam"),
        ("1 2 3 -5 A\n", 3, "diameter"),
    ],
)
def test_bad_cfg_line_names_file_and_line(tmp_path, body, line, problem):
    path = tmp_path / "bad.cfg"
    path.write_text("# observatory=VLA\n# coordsys=XYZ\n" + body)
    with pytest.raises(LayoutError, match=problem) as err:
        load_layout(path)
    assert f"{path}:{line}:" in str(err.value)


def test_unknown_observatory_in_loc_file(tmp_path):
    path = tmp_path / "loc.cfg"
    path.write_text("# observatory=Atlantis\n# coordsys=LOC\n0 0 0 12\n10 0 0 12\n")
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    msg = str(err.value)
    assert str(path) in msg and "'Atlantis'" in msg and "XYZ" in msg and "GEO" in msg
    path.write_text("# observatory=VLBA\n# coordsys=LOC\n0 0 0 12\n10 0 0 12\n")
    with pytest.raises(LayoutError, match="no single position"):
        load_layout(path)
    path.write_text("# observatory=ALMA\n# coordsys=UTM\n0 0 0 12\n10 0 0 12\n")
    with pytest.raises(LayoutError, match="UTM"):
        load_layout(path)


def test_yaml_and_csv_user_files(tmp_path):
    yaml = tmp_path / "two.yaml"
    yaml.write_text(
        "name: two\ncentre: [10.0, 45.0, 100.0]\nsize: [10.0, 12.0]\nantnames: [A, B]\n"
        "antlocations:\n  - [10.0, 45.0, 100.0]\n  - [10.01, 45.0, 110.0]\n"
    )
    layout = load_layout(yaml)
    loc = EarthLocation.from_geodetic([10.0, 10.01] * u.deg, [45.0, 45.0] * u.deg, [100, 110] * u.m)
    xyz = np.stack([c.to_value(u.m) for c in loc.geocentric], axis=-1)
    np.testing.assert_allclose(layout.ecef, xyz, atol=1e-3)
    assert layout.dish_diameter.tolist() == [10.0, 12.0]
    yaml.write_text("size: 10\nantlocations:\n  - [10.0, 45.0, 100.0]\n  - [10.01, oops, 1]\n")
    with pytest.raises(LayoutError, match=f"{yaml}:4:"):
        load_layout(yaml)
    csv = tmp_path / "rel.csv"
    rel = xyz - xyz[0]
    csv.write_text(
        "# site = 10.0, 45.0, 100.0\n# dish = 9\nname,x,y,z\n"
        + "".join(f"N{i},{x:.9f},{y:.9f},{z:.9f}\n" for i, (x, y, z) in enumerate(rel))
    )
    np.testing.assert_allclose(load_layout(csv).ecef, xyz, atol=1e-6)
    csv.write_text("name,x,y,z\nN0,1,2,3\nN1,1,2\n")
    with pytest.raises(LayoutError, match=f"{csv}:3:"):
        load_layout(csv)


def test_unknown_names_and_files():
    with pytest.raises(LayoutError, match=r"unknown layout 'nope'.*meerkat"):
        load_layout("nope")
    with pytest.raises(LayoutError, match="no such layout file"):
        load_layout("/nonexistent/dir/x.cfg")
    assert load_layout("atca_6a").name == "atca.6a"  # file stems work too
    assert load_layout("meerkat.cfg").nant == 80


def test_site_table():
    for name in ("ALMA", "ATCA", "MeerKAT", "KAT-7", "SKA-Mid", "VLA", "EVLA", "WSRT", "SMA"):
        assert find_observatory(name) is not None, name
    for name in ("ngVLA", "HERA", "MWA", "LOFAR", "GMRT", "ASKAP"):
        assert name.upper() in known_observatories()
    assert find_observatory("VLBA") is None  # CASA's row is the Earth's centre
    # ITRF rows are converted to geodetic: the VLA's is 34.08° N (geocentric 33.90°).
    _, lat, h = observatory_geodetic("VLA")
    assert np.degrees(lat) == pytest.approx(34.0788, abs=1e-3)
    assert 2000 < h < 2200


def _run_cli(argv):
    """``uvlab.app.cli.main(argv)``, or the same over this command alone while a sibling
    subcommand module listed in ``cli.COMMANDS`` is not written yet."""
    from uvlab.app import cli

    try:
        cli.build_parser()
    except ModuleNotFoundError:
        parser = argparse.ArgumentParser(prog="uvlab")
        arrays_command.register(parser.add_subparsers(dest="command"))
        args = parser.parse_args(argv)
        try:
            return args.func(args)
        except Exception as exc:
            print(f"uvlab {args.command}: error: {exc}", file=sys.stderr)
            return 1
    return cli.main(argv)


def test_cli_lists_and_shows_layouts(capsys):
    assert _run_cli(["arrays"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("meerkat "))
    assert row.split()[1] == "64" and row.split()[2] == "13.5"
    assert all(name in out for name in list_layouts())
    assert _run_cli(["arrays", "vla.d"]) == 0
    out = capsys.readouterr().out
    assert "W01" in out and "baselines: 351" in out
    with pytest.raises(SystemExit):
        _run_cli(["arrays", "--help"])
    assert "NAME_OR_FILE" in capsys.readouterr().out
    assert _run_cli(["arrays", "nope"]) == 1
    assert "unknown layout 'nope'" in capsys.readouterr().err


def test_layouts_do_not_import_astropy():
    # The GPU machine has NumPy but no astropy: layouts and sites must stay NumPy-only.
    code = "import sys, uvlab.app.observing.layouts; sys.exit('astropy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_builtin_layouts_are_parsed_once_and_cannot_be_changed():
    from uvlab.app.observing.layouts import load_layout

    a, b = load_layout("meerkat"), load_layout("MeerKAT")
    assert a is b  # parsed once per process
    with pytest.raises(ValueError):
        a.ecef[0, 0] = 0.0  # read-only: sharing it is safe
    with pytest.raises(ValueError):
        a.dish_diameter[0] = 1.0
