"""Checks of a FITS image sky's WCS: finite, not singular, pixels of a physical size.

Errors are one line naming the file (:class:`~uvlab.app.skymodel.checks.SkyModelError`);
WCSLIB's own exceptions (a singular matrix, a non-numeric keyword) are folded into them.
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.limits import MAX_PIXEL_DEG


def wcslib_reason(exc: BaseException) -> str:
    """WCSLIB's error as a short phrase: ``ERROR 3 in wcsset() at line … of file …:`` dropped."""
    import re

    text = " ".join(str(exc).split()) or type(exc).__name__
    if "singular" in text.lower():
        return "the pixel scale matrix is singular (CDELT 0, or a degenerate PC/CD matrix)"
    parts = re.split(r"ERROR \d+ in \w+\(\) at line \d+ of file \S+: ", text)
    reasons = list(dict.fromkeys(p.strip() for p in parts if p.strip()))
    return " ".join(reasons) or text


def check_pixels(wcs, path) -> None:
    """Refuse a WCS whose pixels are not finite, singular or larger than :data:`MAX_PIXEL_DEG`."""
    try:
        with np.errstate(all="ignore"):
            scale = np.asarray(wcs.pixel_scale_matrix, dtype=np.float64)
            det = float(np.linalg.det(scale))
    except Exception as exc:  # WCSLIB: singular matrix, non-numeric CDELT
        raise SkyModelError(f"no usable WCS: {wcslib_reason(exc)}", path) from None
    cdelt = np.asarray(wcs.wcs.cdelt, dtype=np.float64)
    if not (np.all(np.isfinite(scale)) and np.all(np.isfinite(cdelt)) and math.isfinite(det)):
        raise SkyModelError("no usable WCS: CDELT/CD/PC are not finite numbers", path)
    if det == 0:
        raise SkyModelError("no usable WCS: the pixel scale matrix is singular (CDELT 0?)", path)
    side = math.sqrt(abs(det))
    if side > MAX_PIXEL_DEG:
        raise SkyModelError(
            f"pixels of {side:g}° are beyond the physical limit of {MAX_PIXEL_DEG:g}° a side",
            path,
        )
    try:
        with np.errstate(all="ignore"):
            wcs.wcs_pix2world([[0.0, 0.0]], 0)
    except Exception as exc:
        raise SkyModelError(f"no usable WCS: {wcslib_reason(exc)}", path) from None
