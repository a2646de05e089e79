"""The cursor readout of a sky image view: pixel, (l, m), RA/Dec and value at a point."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from uvlab.gpu.geometry import lmn_to_radec
from uvlab.widgets._display import format_dms, format_hms
from uvlab.widgets.image_geometry import ARCMIN

if TYPE_CHECKING:
    from uvlab.gpu.image_spec import ImageSpec


def readout_at(
    l: float,
    m: float,
    *,
    data: np.ndarray | None,
    spec: ImageSpec | None,
    radec0: tuple[float, float] | None,
    units: str,
) -> dict:
    """Everything the cursor readout shows at direction cosines (l, m).

    Parameters
    ----------
    l, m : float
        Direction cosines of the point.
    data : (N, N) float or None
        The image, ``data[j, i]`` (read only when ``spec`` is given).
    spec : ImageSpec or None
        The image's geometry; None before the first image.
    radec0 : (float, float) or None
        Phase centre (RA, Dec) radians; None leaves RA/Dec out.
    units : str
        Units of ``data``.

    Returns
    -------
    dict
        ``l``, ``m`` (direction cosines), ``l_arcmin``, ``m_arcmin``;
        ``j``, ``i`` (nearest pixel, None outside the image) and
        ``value`` (None outside); ``ra_rad``, ``dec_rad``, ``ra_hms``,
        ``dec_dms`` (None without a phase centre); ``units``.
    """
    out = {"l": l, "m": m, "l_arcmin": l / ARCMIN, "m_arcmin": m / ARCMIN}
    out.update(j=None, i=None, value=None, units=units)
    out.update(ra_rad=None, dec_rad=None, ra_hms=None, dec_dms=None)
    if spec is not None:
        jf, if_ = spec.pixel_of(l, m)
        j, i = int(np.floor(jf + 0.5)), int(np.floor(if_ + 0.5))
        if 0 <= j < spec.npix and 0 <= i < spec.npix:
            out.update(j=j, i=i, value=float(data[j, i]))
    if radec0 is not None and l * l + m * m < 1.0:
        ra, dec = lmn_to_radec(l, m, *radec0)
        out.update(ra_rad=float(ra), dec_rad=float(dec))
        out.update(ra_hms=format_hms(ra), dec_dms=format_dms(dec))
    return out


def readout_text(r: dict) -> str:
    """One line for the readout label, from a :func:`readout_at` dict."""
    parts = []
    if r["j"] is not None:
        parts.append(f"j={r['j']} i={r['i']}")
    parts.append(f"l={r['l_arcmin']:+.3f}′ m={r['m_arcmin']:+.3f}′")
    if r["ra_hms"] is not None:
        parts.append(f"RA {r['ra_hms']} Dec {r['dec_dms']}")
    if r["value"] is not None:
        parts.append(f"{r['value']:.4g} {r['units']}")
    return "   ".join(parts)
