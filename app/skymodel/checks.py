"""SkyModelError, and the checks of the single values a sky is built from.

Numbers must be finite and within the physical limits of
:mod:`uvlab.app.skymodel.limits`; component names one printable word without
``#``; phase centres (RA, Dec) in degrees. Every refusal is a
:class:`SkyModelError`, one line naming where it went wrong.
"""

from __future__ import annotations

import math
import os


class SkyModelError(ValueError):
    """A sky model that cannot be built or read, with where it went wrong.

    Parameters
    ----------
    reason : str
        What was wrong, e.g. ``"expected 13 columns, got 9"``.
    path : str or os.PathLike, optional
        The file (or a label such as ``"<string>"``) being read.
    line : int, optional
        1-based line number in that file.

    The message reads ``"sky.txt, line 7: expected 13 columns, got 9"``: the
    file's base name, then the line, then the reason. ``path`` keeps the full
    path.
    """

    def __init__(self, reason: str, path: str | os.PathLike | None = None, line: int | None = None):
        self.reason = str(reason)
        self.path = None if path is None else os.fspath(path)
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.path is not None:
            where = os.path.basename(self.path) or self.path
        if self.line is not None:
            where = f"{where}, line {self.line}" if where else f"line {self.line}"
        return f"{where}: {self.reason}" if where else self.reason

    def __reduce__(self):
        return (type(self), (self.reason, self.path, self.line))


def finite(value, what: str) -> float:
    """``value`` as a float, or SkyModelError naming ``what`` when it is not a finite number."""
    if isinstance(value, bool):
        raise SkyModelError(f"{what} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise SkyModelError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(out):
        raise SkyModelError(f"{what} must be finite, got {out!r}")
    return out


def capped(value: float, what: str, cap: float, unit: str = "") -> float:
    """``value`` when ``|value| ≤ cap`` (:mod:`uvlab.app.skymodel.limits`), else SkyModelError."""
    if abs(value) > cap:
        unit = f" {unit}" if unit else ""
        raise SkyModelError(f"{what} {value:g} is beyond the physical limit of ±{cap:g}{unit}")
    return value


def check_name(name) -> str:
    """Validate a component name: non-empty, no whitespace, no ``#``."""
    if not isinstance(name, str) or not name:
        raise SkyModelError(f"component name must be a non-empty string, got {name!r}")
    if any(ch.isspace() for ch in name) or "#" in name or not name.isprintable():
        raise SkyModelError(
            f"component name {name!r} must not contain whitespace, '#' or control characters"
        )
    return name


def check_centre(centre) -> tuple[float, float]:
    """A phase centre ``(ra_deg, dec_deg)`` checked: finite, RA wrapped into [0, 360)."""
    try:
        ra, dec = centre
    except (TypeError, ValueError):
        raise SkyModelError(f"centre must be (RA, Dec) in degrees, got {centre!r}") from None
    ra = finite(ra, "centre RA") % 360.0
    dec = finite(dec, "centre Dec")
    if not -90.0 <= dec <= 90.0:
        raise SkyModelError(f"centre Dec {dec!r} deg is outside [-90, 90]")
    return (0.0 if ra == 360.0 else ra, dec)
