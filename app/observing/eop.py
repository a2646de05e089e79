"""Earth orientation with ERFA alone: UTC → TT and UT1, polar motion, ISO dates.

What astropy's :class:`~astropy.time.Time` does for a synthetic observation,
without importing astropy (0.7 s of every start of the lab and the demo):

- UTC is held as ERFA's two-part quasi-JD (a leap-second day is 86401 s long);
  TT = ``erfa.taitt(erfa.utctai(UTC))``, UT1 = ``erfa.utcut1(UTC, UT1−UTC)``.
- UT1−UTC and the pole coordinates (x_p, y_p) come from the IERS table that
  :func:`uvlab.app.observing.iers_cache.columns` reads (astropy's bundled IERS-A,
  cached), interpolated as astropy interpolates them: linearly in the UTC
  day, a leap second's jump of UT1−UTC removed from the step, and the first
  or last row's value outside the table.

``tests/app/observing/test_eop.py`` checks each against astropy (1973–2040, the 2016
leap second, past the table's end).
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager

import erfa
import numpy as np

from uvlab.app.observing import iers_cache

DJM0 = 2400000.5
_ARCSEC = np.pi / (180.0 * 3600.0)


def utc_jd(mjd_s) -> tuple[np.ndarray, np.ndarray]:
    """ERFA's two-part UTC quasi-JD of MJD seconds: (whole day + 0.5, fraction)."""
    mjd = np.asarray(mjd_s, dtype=np.float64) / 86400.0
    day = np.floor(mjd)
    return DJM0 + day, mjd - day


def _interpolate(utc1, utc2, name: str) -> np.ndarray:
    table = iers_cache.columns()
    mjd_tab, col = table["MJD"], table[name]
    day = np.floor(utc1 - DJM0 + utc2)
    frac = (utc1 - DJM0 - day) + utc2  # the day's fraction, as astropy's mjd_utc
    i = np.searchsorted(mjd_tab, day, side="right")
    i1 = np.clip(i, 1, mjd_tab.size - 1)
    i0 = i1 - 1
    step = col[i1] - col[i0]
    if name == "UT1_UTC":
        step = step - np.round(step)  # a leap second jumps UT1−UTC by 1 s at the second row
    val = col[i0] + (day - mjd_tab[i0] + frac) / (mjd_tab[i1] - mjd_tab[i0]) * step
    val = np.where(i == 0, col[0], val)
    return np.where(i == mjd_tab.size, col[-1], val)


def ut1_minus_utc(utc1, utc2) -> np.ndarray:
    """UT1 − UTC, seconds."""
    return _interpolate(utc1, utc2, "UT1_UTC")


def polar_motion(utc1, utc2) -> tuple[np.ndarray, np.ndarray]:
    """The pole's (x_p, y_p), radians."""
    return (
        _interpolate(utc1, utc2, "PM_x") * _ARCSEC,
        _interpolate(utc1, utc2, "PM_y") * _ARCSEC,
    )


def tt_jd(utc1, utc2) -> tuple[np.ndarray, np.ndarray]:
    """Two-part TT JD of a UTC quasi-JD."""
    with _quiet():
        return erfa.taitt(*erfa.utctai(utc1, utc2))


def ut1_jd(utc1, utc2) -> tuple[np.ndarray, np.ndarray]:
    """Two-part UT1 JD of a UTC quasi-JD."""
    with _quiet():
        return erfa.utcut1(utc1, utc2, ut1_minus_utc(utc1, utc2))


@contextmanager
def _quiet():
    """Dates past the leap-second table are "dubious" to ERFA: no new leap seconds assumed."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*dubious year", category=erfa.ErfaWarning)
        yield


_ISO = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*$"
)
_ERFA_REASON = re.compile(r'yielded \d+ of "([^"]+)"')


def parse_utc(text: str) -> float:
    """MJD seconds UTC of ``YYYY-MM-DD[(T| )hh:mm[:ss[.fff]]]``.

    ValueError when the text has another form, or names no real instant; its
    message is ERFA's reason (``bad day``, ``bad hour``...) or empty.
    """
    m = _ISO.match(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError("")
    y, mo, d, h, mi = (int(g) if g else 0 for g in m.groups()[:5])
    sec = float(m.group(6) or 0.0)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=erfa.ErfaWarning)  # e.g. second 61
        warnings.filterwarnings("ignore", message=".*dubious year", category=erfa.ErfaWarning)
        try:
            jd1, jd2 = erfa.dtf2d("UTC", y, mo, d, h, mi, sec)
        except (erfa.ErfaError, erfa.ErfaWarning) as exc:
            reason = _ERFA_REASON.search(str(exc))
            raise ValueError(reason.group(1) if reason else "") from None
    return float(((jd1 - DJM0) + jd2) * 86400.0)
