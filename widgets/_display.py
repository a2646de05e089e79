"""Display helpers for the image view: stretches, colour levels, sexagesimal text.

A stretch maps an image to the copy that is shown; the data themselves are
never changed. All stretches return finite values wherever the input is
finite (NaN stays NaN, shown transparent by pyqtgraph).
"""

from __future__ import annotations

import numpy as np

#: Stretch names in the order the image view offers them.
STRETCHES = ("linear", "log", "asinh")

#: Dynamic range kept by the log stretch: values below peak·LOG_FLOOR are clipped.
LOG_FLOOR = 1e-5

#: Softening of the asinh stretch, as a fraction of the peak |value|.
ASINH_SOFTENING = 0.02


def _abs_peak(img: np.ndarray) -> float:
    finite = img[np.isfinite(img)]
    return float(np.max(np.abs(finite))) if finite.size else 0.0


def apply_stretch(img: np.ndarray, name: str) -> np.ndarray:
    """Return the displayed (stretched) copy of an image.

    Parameters
    ----------
    img : (ny, nx) float
        Image values, e.g. Jy/beam.
    name : {"linear", "log", "asinh"}
        ``linear`` is a float32 copy. ``log`` is ``log10(max(x, floor))``
        with ``floor = LOG_FLOOR·max|x|`` (1 if the image is all zero), so
        zero and negative pixels sit at the bottom of the colour scale instead
        of becoming NaN or −inf. ``asinh`` is ``asinh(x / s)`` with
        ``s = ASINH_SOFTENING·max|x|``: linear near zero, logarithmic for
        bright pixels, and it keeps the sign of negative sidelobes.

    Returns
    -------
    (ny, nx) float32
    """
    img = np.asarray(img)
    peak = _abs_peak(img)
    if name == "linear":
        out = img.astype(np.float32, copy=True)
    elif name == "log":
        floor = peak * LOG_FLOOR if peak > 0 else 1.0
        with np.errstate(invalid="ignore"):
            out = np.log10(np.maximum(img, floor))  # NaN stays NaN
    elif name == "asinh":
        scale = peak * ASINH_SOFTENING if peak > 0 else 1.0
        out = np.arcsinh(img / scale)
    else:
        raise ValueError(f"unknown stretch {name!r}; choose from {STRETCHES}")
    return np.asarray(out, dtype=np.float32)


def auto_levels(shown: np.ndarray, symmetric: bool = False) -> tuple[float, float]:
    """Colour-scale limits covering the finite displayed values.

    Parameters
    ----------
    shown : (ny, nx) float
        The stretched image.
    symmetric : bool
        Make the limits ±max|value| (for diverging colour maps).
    """
    finite = shown[np.isfinite(shown)]
    if finite.size == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if symmetric:
        hi = max(abs(lo), abs(hi))
        lo = -hi
    if hi <= lo:  # a constant image
        pad = abs(hi) * 1e-3 or 1.0
        lo, hi = lo - pad, hi + pad
    return lo, hi


def format_hms(ra_rad: float, precision: int = 2) -> str:
    """Right ascension as ``HHhMMmSS.sss`` (wrapped to [0, 24h))."""
    scale = 10**precision
    n = round((float(ra_rad) % (2 * np.pi)) * 12 / np.pi * 3600 * scale)
    h, rem = divmod(n, 3600 * scale)
    m, s = divmod(rem, 60 * scale)
    sec = f"{s / scale:0{3 + precision if precision else 2}.{precision}f}"
    return f"{h % 24:02d}h{m:02d}m{sec}s"


def format_dms(dec_rad: float, precision: int = 1) -> str:
    """Declination as ``±DDdMMmSS.ss`` with an explicit sign."""
    scale = 10**precision
    deg = float(np.degrees(dec_rad))
    n = round(abs(deg) * 3600 * scale)
    d, rem = divmod(n, 3600 * scale)
    m, s = divmod(rem, 60 * scale)
    sign = "-" if deg < 0 else "+"  # as astropy: -0.00001° reads -00d00m00.0s
    sec = f"{s / scale:0{3 + precision if precision else 2}.{precision}f}"
    return f"{sign}{d:02d}d{m:02d}m{sec}s"
