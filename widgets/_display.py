"""Display helpers for the image view: stretches, colour levels, sexagesimal text.

A stretch maps an image to the copy that is shown; the data themselves are
never changed. All stretches return finite values wherever the input is
finite (NaN stays NaN, shown transparent by pyqtgraph).

Defaults chosen so that a dirty image or PSF shows its structure at once:
the ``asinh`` stretch is linear within ``ASINH_SOFTENING`` (0.2 %) of the peak
and logarithmic above, keeping the sign of negative sidelobes; automatic
levels run from a low percentile (:data:`LEVEL_PERCENTILE`, so a few extreme
negative pixels do not flatten the rest) to the maximum, so the peak is
always the top of the colour range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Stretch names in the order the image view offers them.
STRETCHES = ("linear", "log", "asinh")

#: Dynamic range kept by the log stretch: values below peak·LOG_FLOOR are clipped.
LOG_FLOOR = 1e-5

#: Softening of the asinh stretch, as a fraction of the peak |value|: a source
#: at 1 % of the peak sits about a third of the way up the colour range.
ASINH_SOFTENING = 0.002

#: Automatic levels start at this percentile of the displayed values.
LEVEL_PERCENTILE = 0.5

#: Past this many pixels the percentile is taken on a regular subsample.
_PERCENTILE_SAMPLES = 1 << 20


def finite_values(x) -> np.ndarray:
    """The finite values of ``x``, flattened: ``x`` itself (no copy) when all are finite."""
    flat = np.asarray(x).ravel()
    finite = np.isfinite(flat)
    return flat if finite.all() else flat[finite]


def finite_range(x) -> tuple[float, float] | None:
    """(min, max) of the finite values of ``x``; None when it has none."""
    values = finite_values(x)
    return (float(values.min()), float(values.max())) if values.size else None


def abs_peak(data_range: tuple[float, float] | None) -> float:
    """max |value| of the values spanning ``data_range`` (:func:`finite_range`); 0 for None."""
    return max(-data_range[0], data_range[1]) if data_range is not None else 0.0


@dataclass(frozen=True)
class Stretch:
    """One stretch with its parameter fixed, as a function of data values.

    Attributes
    ----------
    name : {"linear", "log", "asinh"}
    scale : float
        The log floor or the asinh softening, in data units (1 for linear).
    """

    name: str
    scale: float = 1.0

    def __call__(self, x) -> np.ndarray:
        """The stretched values of ``x`` (any shape), float32."""
        x = np.asarray(x)
        if self.name == "linear":
            out = x.astype(np.float32, copy=True)
        elif self.name == "log":
            with np.errstate(invalid="ignore"):
                out = np.log10(np.maximum(x, self.scale))  # NaN stays NaN
        else:
            out = np.arcsinh(x / self.scale)
        return np.asarray(out, dtype=np.float32)

    def label(self, units: str) -> str:
        """Colour-bar label: the units, with the stretch named."""
        return f"{units} ({self.name} stretch)"


def make_stretch(img: np.ndarray, name: str) -> Stretch:
    """The stretch ``name`` with its parameter fitted to ``img``.

    ``linear`` is a float32 copy. ``log`` is ``log10(max(x, floor))`` with
    ``floor = LOG_FLOOR·max|x|`` (1 if the image is all zero), so zero and
    negative pixels sit at the bottom of the colour scale instead of becoming
    NaN or −inf. ``asinh`` is ``asinh(x / s)`` with ``s = ASINH_SOFTENING·max|x|``:
    linear near zero, logarithmic for bright pixels, and it keeps the sign of
    negative sidelobes.
    """
    return stretch_for_peak(name, abs_peak(finite_range(img)))


def stretch_for_peak(name: str, peak: float) -> Stretch:
    """:func:`make_stretch` for an image whose largest finite |value| is ``peak``."""
    if name not in STRETCHES:
        raise ValueError(f"unknown stretch {name!r}; choose from {STRETCHES}")
    if name == "log":
        return Stretch("log", peak * LOG_FLOOR if peak > 0 else 1.0)
    if name == "asinh":
        return Stretch("asinh", peak * ASINH_SOFTENING if peak > 0 else 1.0)
    return Stretch("linear")


def apply_stretch(img: np.ndarray, name: str) -> np.ndarray:
    """Return the displayed (stretched) copy of an image.

    Parameters
    ----------
    img : (ny, nx) float
        Image values, e.g. Jy/beam.
    name : {"linear", "log", "asinh"}
        See :func:`make_stretch`.

    Returns
    -------
    (ny, nx) float32
    """
    return make_stretch(img, name)(img)


def auto_levels(
    shown: np.ndarray, symmetric: bool = False, *, percentile: float = LEVEL_PERCENTILE
) -> tuple[float, float]:
    """Colour-scale limits for the displayed values.

    Parameters
    ----------
    shown : (ny, nx) float
        The stretched image; NaN pixels are ignored.
    symmetric : bool
        Make the limits ±max|value| (for diverging colour maps).
    percentile : float
        The low limit is this percentile of the finite values (a data value:
        ``method="lower"``; on a regular subsample of about a million pixels
        for larger images). The high limit is always the maximum, so the
        peak is the top of the colour range.
    """
    finite = finite_values(shown)
    if finite.size == 0:
        return 0.0, 1.0
    hi = float(finite.max())
    if symmetric:
        hi = max(abs(float(finite.min())), abs(hi))
        lo = -hi
    else:
        step = max(1, finite.size // _PERCENTILE_SAMPLES)
        lo = float(np.percentile(finite[::step], percentile, method="lower"))
    if hi <= lo:  # a constant image
        pad = abs(hi) * 1e-3 or 1.0
        lo, hi = lo - pad, hi + pad
    return lo, hi


def data_ticks(
    stretch: Stretch, vmin: float, vmax: float, span: float, min_gap: float = 0.08
) -> list[tuple[float, str]]:
    """Colour-bar ticks labelled in data units, for a non-linear stretch.

    Candidates are 0 and ±1, 2, 5 × 10^k between ``vmin`` and ``vmax`` (data
    units). 0 is taken first, then the candidates by decreasing |value|; one is
    kept only when it lands at least ``min_gap·span`` (stretched units) away
    from every kept one.

    Returns
    -------
    list of (stretched position, label)
    """
    if not (np.isfinite(vmin) and np.isfinite(vmax)) or vmax <= vmin or span <= 0:
        return []
    top = max(abs(vmin), abs(vmax))
    k_hi = int(np.ceil(np.log10(top))) + 1
    mags = [m * 10.0**k for k in range(k_hi - 12, k_hi) for m in (1.0, 2.0, 5.0)]
    cands = [0.0] + [s * m for m in mags for s in (1.0, -1.0)]
    cands = [c for c in cands if vmin <= c <= vmax]
    cands.sort(key=lambda c: (c != 0.0, -abs(c)))
    pos = stretch(np.array(cands, dtype=np.float64)) if cands else np.empty(0)
    kept: list[tuple[float, str]] = []
    for c, p in zip(cands, pos, strict=True):
        if np.isfinite(p) and all(abs(p - q) >= min_gap * span for q, _ in kept):
            kept.append((float(p), f"{c:g}"))
    return sorted(kept)


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
