"""Tests for app/skymodel/text_format.py and angles.py (uvlab's own sky format)."""

from __future__ import annotations

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import Angle, SkyCoord

from uvlab.app.skymodel import (
    Component,
    SkyModel,
    SkyModelError,
    bundled_skies,
    format_sky,
    load_sky,
    parse_sky_text,
    read_sky,
    write_sky,
)
from uvlab.app.skymodel.angles import format_dec, format_ra, parse_angle

HEADER = "# uvlab sky model v1\n"
GOOD = "src1  point  15.0  -30.0  1.0  0 0 0  -0.7  1.4e9  0 0 0\n"


def random_model(rng, n=30) -> SkyModel:
    comps = []
    for k in range(n):
        gaussian = k % 3 == 0
        major = float(rng.uniform(1, 100)) if gaussian else 0.0
        comps.append(
            Component(
                name=f"c{k}_é",
                kind="gaussian" if gaussian else "point",
                ra_deg=float(rng.uniform(0, 360)),
                dec_deg=float(rng.uniform(-90, 90)),
                stokes=tuple(float(x) for x in rng.normal(size=4) * 10.0 ** rng.integers(-8, 3)),
                ref_freq_hz=float(rng.uniform(5e7, 5e10)),
                spectral_index=float(rng.normal(-0.7, 0.5)),
                major_arcsec=major,
                minor_arcsec=major * float(rng.uniform(0, 1)),
                pa_deg=float(rng.uniform(-180, 540)) if gaussian else 0.0,
            )
        )
    comps.append(
        Component("tiny", "point", 1e-300, -0.1 + 0.2, (5e-324, -0.0, 0.1 + 0.2, 1e10), 1e-3, 1 / 3)
    )
    return SkyModel(tuple(comps), name="round # trip: 10% of everything")


def test_round_trip_exact(tmp_path, rng):
    model = random_model(rng)
    path = tmp_path / "sky.txt"
    write_sky(model, path)
    back = read_sky(path)
    assert back == model  # dataclass equality: every float bit-identical
    assert format_sky(back) == path.read_text(encoding="utf-8")
    assert load_sky(path) == model


def test_written_file_layout(tmp_path):
    model = SkyModel((Component("a", "point", 15.0, -30.0, (1.0, 0, 0, 0), 1.4e9),), "demo")
    text = format_sky(model)
    lines = text.splitlines()
    assert lines[0] == "# uvlab sky model v1"
    assert lines[1] == "# name: demo"
    assert lines[2].split()[1:] == [
        "name",
        "type",
        "ra",
        "dec",
        "I",
        "Q",
        "U",
        "V",
        "spectral_index",
        "ref_freq_hz",
        "major_arcsec",
        "minor_arcsec",
        "pa_deg",
    ]
    assert lines[-1].split() == [
        "a",
        "point",
        "15.0",
        "-30.0",
        "1.0",
        "0.0",
        "0.0",
        "0.0",
        "0.0",
        "1400000000.0",
        "0.0",
        "0.0",
        "0.0",
    ]


@pytest.mark.parametrize(
    ("text", "hours", "oracle"),
    [
        ("12:34:56.7", True, Angle("12:34:56.7", unit=u.hourangle)),
        ("-30:12:00", False, Angle("-30:12:00", unit=u.deg)),
        ("12h34m56.7s", True, Angle("12h34m56.7s")),
        ("-30d12m00s", False, Angle("-30d12m00s")),
        ("-00:30:00", False, Angle("-00:30:00", unit=u.deg)),
        ("+05:07:09.123", True, Angle("+05:07:09.123", unit=u.hourangle)),
        ("23:59:59.9999", True, Angle("23:59:59.9999", unit=u.hourangle)),
        ("0h01m00s", False, Angle("0h01m00s")),  # the letter, not the column, sets hours
        ("45d30m", True, Angle("45d30m")),
        ("-0d0m1.5s", False, Angle("-0d0m1.5s")),
        ("12:30", True, Angle("12:30", unit=u.hourangle)),
        ("-89:59:59.99", False, Angle("-89:59:59.99", unit=u.deg)),
        ("123.456", True, Angle(123.456, unit=u.deg)),
        ("-1.5e1", False, Angle(-15.0, unit=u.deg)),
    ],
)
def test_sexagesimal_against_astropy(text, hours, oracle):
    assert parse_angle(text, hours=hours) == pytest.approx(oracle.deg, abs=1e-12)


@pytest.mark.parametrize("bad", ["12:61:00", "12:30:60", "12h3.5m2s", "abc", "1e400", "12::3", ""])
def test_bad_angles(bad):
    with pytest.raises(ValueError):
        parse_angle(bad, hours=True)


def test_format_sexagesimal_round_trips(rng):
    ra = rng.uniform(0, 360, 200)
    dec = rng.uniform(-90, 90, 200)
    for a, d in zip(ra, dec):
        sa, sd = format_ra(a, 4), format_dec(d, 3)
        assert SkyCoord(sa, sd, unit=(u.hourangle, u.deg)).ra.deg == pytest.approx(a, abs=1e-5)
        assert parse_angle(sa, hours=True) == pytest.approx(a, abs=0.5 * 15e-4 / 3600 + 1e-12)
        assert parse_angle(sd, hours=False) == pytest.approx(d, abs=0.5e-3 / 3600 + 1e-12)
    assert format_ra(359.99999999) == "00:00:00.000"  # carries, never "24:00:60.000"
    assert format_dec(-29.99999999, 2) == "-30:00:00.00"


def test_file_with_sexagesimal_comments_and_name():
    text = (
        "\n  # uvlab sky model v1\n"
        "# name: my field\n"
        "# a comment\n"
        "a  point  12:34:56.7  -30:12:00  1 0 0 0  0 1e9 0 0 0   # trailing comment\n"
        "\n"
        "b  GAUSSIAN 12h34m56.7s -30d12m00s 2 0.1 0.2 0.3 -0.7 1.4e9 40 20 30\n"
        "# name: ignored after the first component\n"
    )
    model = parse_sky_text(text)
    oracle = SkyCoord("12:34:56.7", "-30:12:00", unit=(u.hourangle, u.deg))
    assert model.name == "my field"
    assert [c.kind for c in model] == ["point", "gaussian"]
    for c in model:
        assert c.ra_deg == pytest.approx(oracle.ra.deg, abs=1e-12)
        assert c.dec_deg == pytest.approx(oracle.dec.deg, abs=1e-12)
    assert model[1].stokes == (2.0, 0.1, 0.2, 0.3)
    assert (model[1].major_arcsec, model[1].minor_arcsec, model[1].pa_deg) == (40.0, 20.0, 30.0)


def test_header_only_is_empty_model_and_crlf_bom():
    assert len(parse_sky_text(HEADER)) == 0
    model = parse_sky_text(
        "\ufeff# uvlab sky model v1\r\n# name: x\r\n" + GOOD.replace("\n", "\r\n")
    )
    assert model.name == "x" and len(model) == 1


BAD_LINES = [
    ("src2  point  15.0  -30.0  1.0  0 0 0  -0.7  1.4e9  0 0", "expected 13 columns", "got 12"),
    ("src2  point  15.0  -30.0  abc  0 0 0  -0.7  1.4e9  0 0 0", "I: 'abc' is not a number", ""),
    ("src2  disk   15.0  -30.0  1.0  0 0 0  -0.7  1.4e9  0 0 0", "unknown component type", "disk"),
    ("src2  gaussian 15.0 -30.0 1.0  0 0 0  -0.7  1.4e9  -5 -6 0", "negative size", ""),
    ("src2  gaussian 15.0 -30.0 1.0  0 0 0  -0.7  1.4e9  5 6 0", "exceeds major", ""),
    ("src2  gaussian 15.0 -30.0 1.0  0 0 0  -0.7  1.4e9  0 0 0", "major_arcsec > 0", ""),
    ("src2  point  15.0  -30.0  1.0  0 0 0  -0.7  1.4e9  5 5 0", "a point has zero size", ""),
    ("src2  point  15.0  -95.0  1.0  0 0 0  -0.7  1.4e9  0 0 0", "outside [-90, 90]", ""),
    ("src2  point  15.0  -90:30:00 1.0 0 0 0 -0.7  1.4e9  0 0 0", "outside [-90, 90]", ""),
    ("src2  point  25:61:00 -30.0 1.0  0 0 0  -0.7  1.4e9  0 0 0", "ra:", "minutes"),
    ("src2  point  15.0  north 1.0  0 0 0  -0.7  1.4e9  0 0 0", "dec:", "cannot read angle"),
    ("src2  point  15.0  -30.0  nan  0 0 0  -0.7  1.4e9  0 0 0", "I: 'nan' is not finite", ""),
    ("src2  point  15.0  -30.0  1.0  0 0 0  -0.7  0      0 0 0", "ref_freq_hz must be > 0", ""),
]


@pytest.mark.parametrize(("line", "fragment", "detail"), BAD_LINES)
def test_bad_line_reports_file_and_line(tmp_path, line, fragment, detail):
    path = tmp_path / "sky.txt"
    path.write_text(HEADER + "# comment\n\n" + GOOD + line + "\n" + GOOD, encoding="utf-8")
    with pytest.raises(SkyModelError) as info:
        read_sky(path)
    err = info.value
    assert err.line == 5
    assert str(err).startswith("sky.txt, line 5: ")
    assert fragment in str(err) and detail in str(err)
    assert err.path == str(path)


@pytest.mark.parametrize(
    ("content", "fragment", "line"),
    [
        ("", "empty file", None),
        ("   \n\n", "empty file", None),
        ("\n" + GOOD, "not a uvlab sky model", 2),
        ("# uvlab sky model v2\n" + GOOD, "unsupported uvlab sky model version v2", 1),
        ("Format = Name, Type\n", "not a uvlab sky model", 1),
    ],
)
def test_bad_headers(tmp_path, content, fragment, line):
    path = tmp_path / "hdr.sky"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SkyModelError, match=r"hdr\.sky") as info:
        read_sky(path)
    assert fragment in str(info.value)
    assert info.value.line == line


def test_binary_and_non_utf8_files(tmp_path):
    binary = tmp_path / "image.fits"
    binary.write_bytes(b"SIMPLE  =                    T" + bytes(range(256)) * 4)
    with pytest.raises(SkyModelError, match=r"image\.fits: binary file"):
        read_sky(binary)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes((HEADER + GOOD).encode() + "caf\u00e9 point 1 2 3\n".encode("latin-1"))
    with pytest.raises(SkyModelError, match=r"latin1\.txt, line 3: not UTF-8 text \(byte 0xe9"):
        read_sky(latin1)
    with pytest.raises(SkyModelError, match="no such file"):
        read_sky(tmp_path / "missing.txt")
    with pytest.raises(SkyModelError, match="is a directory"):
        read_sky(tmp_path)


def test_unwritable_path_is_a_sky_model_error(tmp_path):
    with pytest.raises(SkyModelError, match="cannot write"):
        write_sky(SkyModel(), tmp_path / "no" / "such" / "dir" / "sky.txt")


def test_bundled_skies_load_and_round_trip(tmp_path):
    skies = bundled_skies()
    assert {"example-field", "double-lobe"} <= set(skies)
    for name, path in skies.items():
        model = load_sky(name)
        assert model == read_sky(path) and len(model) > 0
        write_sky(model, tmp_path / path.name)
        assert read_sky(tmp_path / path.name) == model
    field = load_sky("example-field")
    pol = next(c for c in field if c.name == "pol")
    assert pol.ra_deg == pytest.approx(15.0 / 60.0, abs=1e-12)
    assert np.count_nonzero(pol.stokes[1:]) == 3
