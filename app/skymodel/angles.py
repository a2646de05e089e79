"""Parse and format sky angles: decimal degrees and sexagesimal, no astropy.

Accepted forms (a leading ``+``/``-`` applies to the whole angle, so
``-00:30:00`` is −0.5°):

- decimal degrees: ``15``, ``-30.25``, ``1.5e1``;
- colon sexagesimal: ``12:34:56.7`` or ``12:34`` — hours in an RA field,
  degrees in a Dec field;
- letter sexagesimal: ``12h34m56.7s`` (hours) or ``-30d12m00s`` (degrees),
  also ``12h34m`` or ``30d``; the letter, not the field, sets the unit.

Minutes and seconds must lie in [0, 60); only the last field may carry a
fraction. Errors raise ``ValueError`` with a short reason, which the file
readers wrap with the file name and line.
"""

from __future__ import annotations

import math
import re

_NUM = r"\d+(?:\.\d*)?|\.\d+"
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_COLON = re.compile(rf"([+-]?)(\d+):(\d+)(?::({_NUM}))?")
_COLON_LAST_FRAC = re.compile(rf"([+-]?)(\d+):({_NUM})")
_LETTERS = re.compile(
    rf"([+-]?)(?:(\d+)([hd])(\d+)m(?:({_NUM})s)?|(\d+)([hd])({_NUM})m|({_NUM})([hd]))"
)


def _combine(
    sign: str, whole: str, minutes: str | None, seconds: str | None, scale: float
) -> float:
    m = float(minutes) if minutes else 0.0
    s = float(seconds) if seconds else 0.0
    if not m < 60.0:
        raise ValueError(f"minutes {minutes} must be < 60")
    if not s < 60.0:
        raise ValueError(f"seconds {seconds} must be < 60")
    value = (float(whole) + m / 60.0 + s / 3600.0) * scale
    return -value if sign == "-" else value


def parse_angle(text: str, *, hours: bool) -> float:
    """An angle in degrees from decimal-degree or sexagesimal text.

    Parameters
    ----------
    text : str
        The field as written.
    hours : bool
        Whether colon sexagesimal counts hours (RA) rather than degrees (Dec).

    Returns
    -------
    float
        Degrees (not wrapped).

    Raises
    ------
    ValueError
        With a reason naming the accepted forms.
    """
    t = text.strip()
    if _DECIMAL.fullmatch(t):
        value = float(t)
        if not math.isfinite(value):
            raise ValueError(f"{text!r} is not finite")
        return value
    colon_scale = 15.0 if hours else 1.0
    m = _COLON.fullmatch(t)
    if m:
        return _combine(m[1], m[2], m[3], m[4], colon_scale)
    m = _COLON_LAST_FRAC.fullmatch(t)
    if m:
        return _combine(m[1], m[2], m[3], None, colon_scale)
    m = _LETTERS.fullmatch(t.lower())
    if m:
        sign = m[1]
        if m[2] is not None:
            return _combine(sign, m[2], m[4], m[5], 15.0 if m[3] == "h" else 1.0)
        if m[6] is not None:
            return _combine(sign, m[6], m[8], None, 15.0 if m[7] == "h" else 1.0)
        return _combine(sign, m[9], None, None, 15.0 if m[10] == "h" else 1.0)
    unit = "hh:mm:ss.s" if hours else "dd:mm:ss.s"
    raise ValueError(
        f"cannot read angle {text!r}: use decimal degrees, {unit}, 12h34m56.7s or -30d12m00s"
    )


def _split_sexagesimal(value: float, decimals: int) -> tuple[str, int, int, float]:
    sign = "-" if value < 0 else "+"
    unit = 10**decimals
    total = round(abs(value) * 3600 * unit)
    whole, rest = divmod(total, 3600 * unit)
    minutes, secs = divmod(rest, 60 * unit)
    return sign, whole, minutes, secs / unit


def format_ra(ra_deg: float, decimals: int = 3) -> str:
    """RA as ``hh:mm:ss.sss`` (wrapped into [0, 24) h)."""
    _, h, m, s = _split_sexagesimal((ra_deg % 360.0) / 15.0, decimals)
    width = 3 + decimals if decimals else 2
    return f"{h % 24:02d}:{m:02d}:{s:0{width}.{decimals}f}"


def format_dec(dec_deg: float, decimals: int = 2) -> str:
    """Dec as ``±dd:mm:ss.ss``."""
    sign, d, m, s = _split_sexagesimal(dec_deg, decimals)
    width = 3 + decimals if decimals else 2
    return f"{sign}{d:02d}:{m:02d}:{s:0{width}.{decimals}f}"
