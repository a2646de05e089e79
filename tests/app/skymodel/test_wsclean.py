"""Tests for app/skymodel/wsclean.py (WSClean / makesourcedb component lists)."""

from __future__ import annotations

import math

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import Angle

from uvlab.app.skymodel import SkyModelError, detect_format, load_sky, read_wsclean
from uvlab.app.skymodel.wsclean import parse_wsclean_text, split_fields

# Lines in the layout of the WSClean wiki's ComponentList page (-save-source-list),
# values changed; the last row uses a negative RA as WSClean writes near 0h.
WSCLEAN = """\
Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency='125584411.621094', MajorAxis, MinorAxis, Orientation
s0c0,POINT,08:28:05.152,39.35.08.511,0.0125,[-0.7,-0.0849693907803257],false,125584411.621094,,,
s0c1,POINT,08:22:27.658,39.37.38.353,-0.000154968071120503,[-0.7,0.2],true,125584411.621094,,,
s1c0,GAUSSIAN,08:31:10.37,41.47.17.131,0.000723326710524984,[-0.8],true,125584411.621094,83.6144111272856,41.5,30
s1c1,GAUSSIAN,-00:36:28.234,-58.50.46.396,5.02,[],false,,70.6446013509285,70.6446013509285,0
"""  # noqa: E501

# makesourcedb's other header form, with Patch, Q/U/V, defaults and a patch line
# (layout of LOFAR prefactor's Ateam_LBA_CC.skymodel).
MAKESOURCEDB = """\
# (Name, Type, Patch, Ra, Dec, I, Q, U, V, ReferenceFrequency='74e6', SpectralIndex='[-0.8]', MajorAxis, MinorAxis, Orientation) = format
# The above line defines the field order and is required.

, , CasA_patch, 23:23:28, +58.48.42
CasA_0, GAUSSIAN, CasA_patch, 23:23:36.066, +58.48.26.841, 2.152e+03, 0.1, 0.2, 0.3, 7.4e+07, [-0.8], 66.8929, 131.633, 6.96847
3C53p, POINT, 3C53, 01:53:23.90, -03.33.58.94, 10.167013,0.0, 0.0,0.0, , , , , # comment
"""  # noqa: E501


def test_read_wsclean_file(tmp_path):
    path = tmp_path / "run-sources.txt"
    path.write_text(WSCLEAN, encoding="utf-8")
    model = read_wsclean(path)
    assert model.name == "run-sources.txt"
    assert [c.name for c in model] == ["s0c0", "s0c1", "s1c0", "s1c1"]
    assert [c.kind for c in model] == ["point", "point", "gaussian", "gaussian"]

    oracle_ra = (
        Angle(["08:28:05.152", "08:22:27.658", "08:31:10.37", "-00:36:28.234"], unit=u.hourangle)
        .wrap_at(360 * u.deg)
        .deg
    )
    oracle_dec = Angle(
        ["39:35:08.511", "39:37:38.353", "41:47:17.131", "-58:50:46.396"], unit=u.deg
    ).deg
    np.testing.assert_allclose([c.ra_deg for c in model], oracle_ra, rtol=0, atol=1e-12)
    np.testing.assert_allclose([c.dec_deg for c in model], oracle_dec, rtol=0, atol=1e-12)
    assert model[3].ra_deg == pytest.approx(360 - (36 * 60 + 28.234) / 240, abs=1e-12)

    g = model[2]
    assert (g.major_arcsec, g.minor_arcsec, g.pa_deg) == (83.6144111272856, 41.5, 30.0)
    assert g.stokes == (0.000723326710524984, 0.0, 0.0, 0.0)
    assert g.ref_freq_hz == 125584411.621094
    assert g.spectral_index == -0.8  # logarithmic: first term is alpha
    assert model[1].spectral_index == -0.7  # the slope at ν0; the curvature is kept too
    assert model[1].spectral_terms[0] == -0.7 and len(model[1].spectral_terms) == 2
    assert model[3].ref_freq_hz == 125584411.621094  # empty field takes the header default
    assert model[3].spectral_index == 0.0
    assert model[0].major_arcsec == 0.0


def test_ordinary_polynomial_spectra_are_exact():
    """WSClean 'false': S = I + c1 (x-1) + c2 (x-1)^2, evaluated as written at any ν."""
    model = parse_wsclean_text(WSCLEAN)
    c = model[0]
    i0, c1, c2 = 0.0125, -0.7, -0.0849693907803257
    assert not c.log_si and c.spectral_terms == (c1, c2)
    assert c.spectral_index == pytest.approx(c1 / i0, rel=1e-15)  # the slope at ν0
    for x in (0.5, 0.9, 1.0, 1.7):
        poly = i0 + c1 * (x - 1) + c2 * (x - 1) ** 2
        assert c.flux(c.ref_freq_hz * x)[0] == pytest.approx(poly, rel=1e-14)


def test_logarithmic_curvature_is_exact_and_the_issues_example_matches_wsclean():
    lines = WSCLEAN.splitlines()
    c = parse_wsclean_text("\n".join([lines[0], lines[2]]))[0]
    c1, c2 = c.spectral_terms
    for x in (0.5, 2.0):
        want = c.stokes[0] * math.exp(c1 * math.log(x) + c2 * math.log(x) ** 2)
        assert c.flux(c.ref_freq_hz * x)[0] == pytest.approx(want, rel=1e-14)
    fmt = "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency"
    one = parse_wsclean_text(fmt + "\ns,POINT,10:00:00,+30.00.00,1.0,[-0.5],false,1.4e9\n")[0]
    assert one.flux(1.0e9)[0] == pytest.approx(1.0 + 0.5 * (1 - 1.0 / 1.4), rel=1e-15)  # 1.1429


def test_strict_reads_every_spectrum_exactly_now():
    strict = parse_wsclean_text(WSCLEAN, "x.txt", strict=True)
    assert strict == parse_wsclean_text(WSCLEAN, "x.txt")


def test_a_component_list_round_trips_through_the_writer(tmp_path):
    from uvlab.app.skymodel.wsclean import format_wsclean, read_wsclean, write_wsclean

    model = parse_wsclean_text(WSCLEAN)
    path = write_wsclean(model, tmp_path / "out.txt")
    again = read_wsclean(path)
    assert len(again) == len(model)
    for a, b in zip(model, again, strict=True):
        assert (a.name, a.kind, a.stokes, a.ref_freq_hz) == (
            b.name,
            b.kind,
            b.stokes,
            b.ref_freq_hz,
        )
        assert (a.spectral_terms, a.log_si, a.spectral_index) == (
            b.spectral_terms, b.log_si, b.spectral_index,
        )  # fmt: skip
        assert abs(a.ra_deg - b.ra_deg) < 1e-12 and abs(a.dec_deg - b.dec_deg) < 1e-12
        assert (a.major_arcsec, a.minor_arcsec, a.pa_deg) == (
            b.major_arcsec, b.minor_arcsec, b.pa_deg,
        )  # fmt: skip
    body = lambda m: [ln for ln in format_wsclean(m).splitlines() if not ln.startswith("#")]  # noqa: E731
    assert body(again) == body(model)  # the name comment aside, the same text
    with pytest.raises(SkyModelError, match="already exists"):
        write_wsclean(model, path)


def test_makesourcedb_header_defaults_and_patches():
    model = parse_wsclean_text(MAKESOURCEDB, "Ateam.skymodel")
    assert [c.name for c in model] == ["CasA_0", "3C53p"]
    casa, p3c53 = model
    # minor > major in the file: same Gaussian with axes swapped and PA turned by 90
    assert (casa.major_arcsec, casa.minor_arcsec) == (131.633, 66.8929)
    assert casa.pa_deg == pytest.approx(96.96847, abs=1e-12)
    assert casa.stokes == (2152.0, 0.1, 0.2, 0.3)
    assert casa.dec_deg == pytest.approx(Angle("58:48:26.841", unit=u.deg).deg, abs=1e-12)
    assert p3c53.ref_freq_hz == 74e6 and p3c53.spectral_index == -0.8  # header defaults
    assert p3c53.dec_deg == pytest.approx(Angle("-03:33:58.94", unit=u.deg).deg, abs=1e-12)


def test_split_fields_respects_brackets_and_quotes():
    assert split_fields("a, [1, 2], 'x,y' , ") == ["a", "[1, 2]", "'x,y'", ""]


FORMAT = "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency, MajorAxis, MinorAxis, Orientation\n"  # noqa: E501
GOOD = "a,POINT,01:00:00,-30.00.00,1.0,[-0.7],true,1.4e9,,,\n"


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("b,DISK,01:00:00,-30.00.00,1.0,[-0.7],true,1.4e9,,,", "unknown Type 'DISK'"),
        ("b,SHAPELET,01:00:00,-30.00.00,1.0,[-0.7],true,1.4e9,,,", "shapelet"),
        ("b,POINT,01:00:00,-30.00.00,1.0,[-0.7],true,1.4e9,,,,7", "expected 11 fields, got 12"),
        ("b,POINT,15.0,-30.00.00,1.0,[-0.7],true,1.4e9,,,", "ambiguous"),
        ("b,POINT,01:00:00,-30.61.00,1.0,[-0.7],true,1.4e9,,,", "must be < 60"),
        ("b,POINT,01:00:00,-30.00.00,one,[-0.7],true,1.4e9,,,", "I: 'one' is not a number"),
        ("b,POINT,01:00:00,-30.00.00,1.0,[-0.7,x],true,1.4e9,,,", "SpectralIndex: 'x'"),
        ("b,POINT,01:00:00,-30.00.00,1.0,[-0.7],maybe,1.4e9,,,", "LogarithmicSI: 'maybe'"),
        ("b,POINT,01:00:00,-30.00.00,1.0,[-0.7],true,,,,", "no ReferenceFrequency"),
        ("b,GAUSSIAN,01:00:00,-30.00.00,1.0,[-0.7],true,1.4e9,-3,-4,0", "negative size"),
        ("b,POINT,01:00:00,-95.00.00,1.0,[-0.7],true,1.4e9,,,", "outside [-90, 90]"),
        (",POINT,01:00:00,-30.00.00,1.0,[-0.7],true,1.4e9,,,", "empty Name"),
    ],
)
def test_bad_wsclean_lines(tmp_path, line, fragment):
    path = tmp_path / "model-sources.txt"
    path.write_text(FORMAT + GOOD + "# note\n" + line + "\n" + GOOD, encoding="utf-8")
    with pytest.raises(SkyModelError) as info:
        read_wsclean(path)
    assert str(info.value).startswith("model-sources.txt, line 4: ")
    assert fragment in str(info.value)


def test_wsclean_header_faults():
    with pytest.raises(SkyModelError, match="no WSClean 'Format"):
        parse_wsclean_text(GOOD + FORMAT)
    with pytest.raises(SkyModelError, match="line 1: the format line has no I column"):
        parse_wsclean_text("Format = Name, Type, Ra, Dec\n")
    with pytest.raises(SkyModelError, match="RotationMeasure is not supported"):
        parse_wsclean_text(
            "Format = Name, Ra, Dec, I, ReferenceFrequency, RotationMeasure\n"
            "a, 01:00:00, -30.00.00, 1, 1e9, 3.5\n"
        )
    extra = parse_wsclean_text(
        "format = Name, Ra, Dec, I, ReferenceFrequency, Patch, Foo\n"
        "a b, 1.5rad, -0.5deg, 1, 1e9, p, 0\n"
    )
    assert extra[0].name == "a_b"
    assert extra[0].ra_deg == pytest.approx(np.rad2deg(1.5), abs=1e-12)
    assert extra[0].dec_deg == -0.5


def test_load_sky_detects_both_formats(tmp_path):
    ws = tmp_path / "a.txt"
    ws.write_text("# made by wsclean\n\n" + WSCLEAN, encoding="utf-8")
    assert detect_format(ws.read_text()) == "wsclean"
    assert load_sky(ws) == read_wsclean(ws)
    assert detect_format("\n# uvlab sky model v1\n") == "uvlab"
    other = tmp_path / "b.txt"
    other.write_text("ra dec flux\n1 2 3\n", encoding="utf-8")
    with pytest.raises(SkyModelError, match=r"b\.txt: unrecognised sky file"):
        load_sky(other)
    with pytest.raises(SkyModelError, match="known names: point"):
        load_sky(tmp_path / "nothing-here")


def test_components_beyond_the_sky_are_left_out_with_a_warning(caplog):
    """An image wider than the hemisphere (SIN, 64 × 5.8°): the corner pixels have no
    direction; the others are placed where astropy's WCS puts them."""
    from astropy.io import fits
    from astropy.wcs import WCS

    from uvlab.app.skymodel.wsclean_write import clean_components

    header = fits.Header()
    for k, v in dict(NAXIS=2, NAXIS1=64, NAXIS2=64, CTYPE1="RA---SIN", CTYPE2="DEC--SIN",
                     CRPIX1=33.0, CRPIX2=33.0, CRVAL1=150.0, CRVAL2=30.0, CDELT1=-5.8,
                     CDELT2=5.8, CUNIT1="deg", CUNIT2="deg").items():  # fmt: skip
        header[k] = v
    model = np.zeros((64, 64))
    model[32, 32], model[40, 30], model[0, 0], model[63, 63] = 1.0, 0.5, 0.25, 0.125
    with caplog.at_level("WARNING"):
        sky = clean_components(model, header, 1.4e9)
    assert [c.stokes[0] for c in sky] == [1.0, 0.5]
    ra, dec = WCS(header).pixel_to_world_values([32.0, 30.0], [32.0, 40.0])
    assert [c.ra_deg for c in sky] == pytest.approx(list(ra), abs=1e-9)
    assert [c.dec_deg for c in sky] == pytest.approx(list(dec), abs=1e-9)
    assert "2 clean component(s) of 0.375 Jy lie beyond the sky" in caplog.text
