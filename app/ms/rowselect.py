"""Time-range, timestep and antenna selection of MeasurementSet rows (CASA and WSClean syntax).

- ``timerange`` (CASA's ``timerange=``): ``T0~T1``, ``>T0`` or ``<T1``, each time
  ``YYYY/MM/DD/hh:mm:ss[.s]`` (UTC) or ``hh:mm:ss[.s]`` / ``hh:mm`` on a day: T0's
  date when T1 has none, else the UTC date of the MS's first TIME. Bounds are
  inclusive and compared with the rows' TIME (the integration midpoint), as
  CASA compares them. An end before its start is an error, not a wrap past
  midnight: give the date.
- ``interval`` (WSClean's ``-interval A B``): timesteps A … B−1, counted from 0
  over the sorted distinct TIMEs of the rows read (those of the chosen field
  and window).
- ``antenna`` (CASA's ``antenna=``): comma-separated items, each an antenna (every
  baseline with it), ``A&B`` (that baseline) or ``A&*`` / ``A&`` (every baseline with
  A), any item led by ``!`` (left out). An antenna is an integer (the ANTENNA
  table's row, from 0: CASA's and WSClean's index) or a name, with shell
  wildcards (``ea0*``). With only ``!`` items, every other antenna is kept.

:func:`select_rows` applies them to a :class:`~uvlab.app.ms.reader.VisData`;
:func:`uv_range_flagged` flags the samples outside a uv range (``--minuv-l``, ``--maxuv-l``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import replace

import numpy as np

from uvlab.app.ms.errors import MSError

_DATE = r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})"
_CLOCK = r"(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?"
_TIME_RE = re.compile(rf"\s*(?:{_DATE}[/T ])?{_CLOCK}\s*")
_DAY_S = 86400.0
#: An end for ``>T0``: later than any TIME (MJD seconds; a finite number for TaQL).
_NEVER = 1e15


def _mjd_s(year: int, month: int, day: int) -> float:
    """MJD seconds of 00:00 UTC on a calendar date."""
    import erfa

    try:
        _, d2 = erfa.cal2jd(year, month, day)
    except (ValueError, erfa.ErfaError):
        raise ValueError(f"{year:04d}/{month:02d}/{day:02d} is not a date") from None
    return float(d2) * _DAY_S


def _one_time(text: str, day_mjd_s: float) -> tuple[float, float]:
    """(MJD seconds, the day it fell on) of one CASA time."""
    m = _TIME_RE.fullmatch(text)
    if m is None:
        raise ValueError(f"{text.strip()!r} is not YYYY/MM/DD/hh:mm:ss or hh:mm:ss")
    if m[1] is not None:
        day_mjd_s = _mjd_s(int(m[1]), int(m[2]), int(m[3]))
    h, mi, s = int(m[4]), int(m[5]), float(m[6] or 0.0)
    if h > 24 or mi > 59 or s >= 60.0:
        raise ValueError(f"{text.strip()!r} is not a time of day")
    return day_mjd_s + 3600.0 * h + 60.0 * mi + s, day_mjd_s


def parse_timerange(text: str, first_mjd_s: float) -> tuple[float, float]:
    """Inclusive (start, end) TIME bounds, MJD seconds, of a CASA ``timerange`` string.

    ``first_mjd_s`` is the MS's first TIME: its UTC date is the day of a time
    written without one. Raises ValueError saying what is wrong.
    """
    day = np.floor(first_mjd_s / _DAY_S) * _DAY_S
    t = text.strip()
    if t.startswith(">"):
        return _one_time(t[1:], day)[0], _NEVER
    if t.startswith("<"):
        return 0.0, _one_time(t[1:], day)[0]
    if "~" not in t:
        raise ValueError(f"{text!r}: expected T0~T1, >T0 or <T1")
    a, b = t.split("~", 1)
    t0, day0 = _one_time(a, day)
    t1, _ = _one_time(b, day0)  # an end without a date is on the start's day
    if t1 < t0:
        raise ValueError(f"{text!r}: the end is before the start (give the end's date)")
    return t0, t1


def _antenna_ids(token: str, names) -> set[int]:
    token = token.strip()
    if token in ("", "*"):
        return set(range(len(names)))
    if token.isdigit():
        i = int(token)
        if i >= len(names):
            raise ValueError(f"no antenna {i} (the MS has {len(names)}: 0–{len(names) - 1})")
        return {i}
    hits = {i for i, n in enumerate(names) if fnmatch.fnmatchcase(n, token)}
    if not hits:
        shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
        raise ValueError(f"no antenna named {token!r} (names: {shown})")
    return hits


def antenna_mask(text: str, names, ant1, ant2) -> np.ndarray:
    """(row,) bool: rows whose baseline the CASA-style ``antenna`` string selects.

    See the module docstring for the syntax. Raises ValueError on a bad item.
    """
    a1, a2 = np.asarray(ant1), np.asarray(ant2)
    keep, drop, positive = np.zeros(a1.shape, bool), np.zeros(a1.shape, bool), False
    items = [i.strip() for i in re.split(r"[,;]", text) if i.strip()]
    if not items:
        raise ValueError(f"{text!r}: no antenna given")
    for item in items:
        neg = item.startswith("!")
        body = item[1:] if neg else item
        if "&" in body:
            left, right = body.split("&", 1)
            x = np.isin(a1, list(_antenna_ids(left, names)))
            y = np.isin(a2, list(_antenna_ids(right.strip("&"), names)))
            xr = np.isin(a2, list(_antenna_ids(left, names)))
            yr = np.isin(a1, list(_antenna_ids(right.strip("&"), names)))
            hit = (x & y) | (xr & yr)
        else:
            ids = list(_antenna_ids(body, names))
            hit = np.isin(a1, ids) | np.isin(a2, ids)
        if neg:
            drop |= hit
        else:
            keep |= hit
            positive = True
    if not positive:
        keep[:] = True
    return keep & ~drop


def interval_mask(time, start: int, stop: int) -> np.ndarray:
    """(row,) bool: rows in timesteps ``start`` … ``stop − 1`` of the distinct sorted ``time``."""
    steps = np.unique(np.asarray(time))
    if not 0 <= start < stop:
        raise ValueError(f"{start} {stop}: expected 0 ≤ A < B")
    if start >= steps.size:
        last = steps.size - 1
        raise ValueError(f"{start} {stop}: the selection has {steps.size} timesteps (0–{last})")
    return np.isin(np.asarray(time), steps[start:stop])


def take_rows(data, mask):
    """``data`` (VisData) with only the rows where ``mask`` is True."""
    m = np.asarray(mask, bool)
    row_fields = ("uvw", "vis", "weight", "flag", "time", "ant1", "ant2", "rows")
    return replace(data, **{k: getattr(data, k)[m] for k in row_fields})


def select_rows(data, *, antenna=None, interval=None, names=()):
    """``data`` (VisData) with the rows of ``antenna`` and ``interval`` (see the module).

    Raises MSError, naming the MS, when a selection is malformed or selects nothing
    (or only flagged samples).
    """
    mask = np.ones(data.nrow, bool)
    what = []
    if interval is not None:
        try:
            mask &= interval_mask(data.time, *interval)
        except ValueError as exc:
            raise MSError(f"{data.path}: --interval {exc}") from None
        what.append(f"timesteps {interval[0]}–{interval[1] - 1}")
    if antenna:
        try:
            mask &= antenna_mask(antenna, list(names), data.ant1, data.ant2)
        except ValueError as exc:
            raise MSError(f"{data.path}: --antenna {antenna!r}: {exc}") from None
        what.append(f"antenna {antenna!r}")
    if mask.all():
        return data
    if not mask.any():
        raise MSError(f"{data.path}: no cross-correlation rows with {' and '.join(what)}")
    out = take_rows(data, mask)
    if out.flag.all():
        raise MSError(f"{data.path}: every visibility with {' and '.join(what)} is flagged")
    return out


def uv_range_flagged(data, min_l: float, max_l: float | None):
    """``data`` (VisData) with the samples outside min_l ≤ √(u²+v²)/λ ≤ max_l flagged too."""
    from uvlab.gpu.constants import C_LIGHT

    uv_m = np.hypot(data.uvw[:, 0], data.uvw[:, 1])[:, None]
    uv_l = uv_m * np.asarray(data.freq_hz)[None, :] / C_LIGHT  # (row, chan)
    out = uv_l < min_l
    if max_l is not None:
        out |= uv_l > max_l
    return replace(data, flag=data.flag | out)
