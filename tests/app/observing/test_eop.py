"""Earth orientation without astropy (uvlab.app.observing.eop).

Oracle: astropy's Time and IERS table.
"""

import warnings
from contextlib import contextmanager

import erfa
import numpy as np
import pytest
from astropy.time import Time
from astropy.utils import iers

from uvlab.app.observing import eop, iers_cache

# 1973 to 2040: measured, rapid and predicted rows, and years past the table's end;
# plus the seconds around the leap second at the end of 2016.
LEAP = Time("2016-12-31T23:59:59", scale="utc").mjd * 86400.0
MJD_S = np.concatenate(
    [
        np.linspace(41700.0, 66000.0, 2001) * 86400.0 + 1234.5,
        LEAP + np.array([-3600.0, -0.5, 0.25, 0.75, 1.5, 2.5, 3600.0]),
    ]
)


@pytest.fixture(scope="module")
def astropy_times():
    iers_cache.reset()
    iers_cache.install()  # astropy reads the same cached table
    with _dubious_ok():
        t = Time(MJD_S / 86400.0, format="mjd", scale="utc")
        yield t, t.tt, t.ut1


def test_utc_parts_are_astropys(astropy_times):
    t = astropy_times[0]
    jd1, jd2 = eop.utc_jd(MJD_S)
    np.testing.assert_allclose((jd1 - t.jd1) + (jd2 - t.jd2), 0.0, atol=1e-10)


def test_tt_and_ut1_match_astropy_to_a_microsecond(astropy_times):
    _, tt, ut1 = astropy_times
    utc = eop.utc_jd(MJD_S)
    for (a1, a2), want in ((eop.tt_jd(*utc), tt), (eop.ut1_jd(*utc), ut1)):
        diff_s = ((a1 - want.jd1) + (a2 - want.jd2)) * 86400.0
        assert np.abs(diff_s).max() < 1e-6


def test_ut1_utc_and_pole_follow_astropys_interpolation():
    table = iers.earth_orientation_table.get()
    with _dubious_ok():
        t = Time(MJD_S / 86400.0, format="mjd", scale="utc")
        want_dut = table.ut1_utc(t).to_value("s")
        want_xp, want_yp = (c.to_value("rad") for c in table.pm_xy(t))
    utc = eop.utc_jd(MJD_S)
    np.testing.assert_allclose(eop.ut1_minus_utc(*utc), want_dut, rtol=0, atol=1e-12)
    xp, yp = eop.polar_motion(*utc)
    np.testing.assert_allclose(xp, want_xp, rtol=0, atol=1e-16)
    np.testing.assert_allclose(yp, want_yp, rtol=0, atol=1e-16)
    # the leap second at the end of 2016: UT1 − UTC jumps by +1 s (≈ −0.41 s → +0.59 s)
    days = np.array([eop.parse_utc("2016-12-31T12:00"), eop.parse_utc("2017-01-01T12:00")])
    before, after = eop.ut1_minus_utc(*eop.utc_jd(days))
    assert after - before == pytest.approx(1.0, abs=2e-3)


def test_sidereal_time_matches_astropys_to_a_nanoradian(astropy_times):
    t = astropy_times[0]
    utc = eop.utc_jd(MJD_S)
    ours = erfa.gst06a(*eop.ut1_jd(*utc), *eop.tt_jd(*utc))
    with _dubious_ok():
        want = t.sidereal_time("apparent", "greenwich", model="IAU2006A").radian
    diff = np.angle(np.exp(1j * (ours - want)))
    assert np.abs(diff).max() < 1e-9


@pytest.mark.parametrize(
    "text",
    [
        "2025-03-20",
        "2025-03-20T12:00",
        "2025-03-20 12:34:56.789",
        "2016-12-31T23:59:60.5",
        "2040-01-01T00:00:00",
    ],
)
def test_iso_dates_parse_as_astropy_parses_them(text):
    with _dubious_ok():
        want = Time(text, scale="utc").mjd * 86400.0
    assert eop.parse_utc(text) == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("2025-02-30", "bad day"),
        ("2025-13-01", "bad month"),
        ("2025-01-01T25:00", "bad hour"),
        ("2025-01-01T23:59:61", "time is after end of day (Note 5)"),
        ("tuesday", ""),
        ("2025-01-01Z", ""),
    ],
)
def test_impossible_dates_name_erfas_reason(text, reason):
    with pytest.raises(ValueError) as err:
        eop.parse_utc(text)
    assert str(err.value) == reason


@contextmanager
def _dubious_ok():
    """Years past the leap-second table are "dubious" to ERFA, for astropy and uvlab alike."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*dubious year", category=erfa.ErfaWarning)
        yield
