"""Write clean components as a WSClean component list (what :mod:`uvlab.app.skymodel.wsclean` reads).

One POINT line per model pixel with nonzero flux, at the pixel's direction
through the image's own WCS (DESIGN §1 FITS axes), Stokes I, no spectral
index, the image frequency as ReferenceFrequency::

    Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency='1.4e+09', MajorAxis, MinorAxis, Orientation
    c0,POINT,09:59:57.123456,+30.02.00.12345,0.4971,[],false,1.4e+09,,,
"""  # noqa: E501

from __future__ import annotations

import numpy as np

FORMAT = (
    "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, "
    "ReferenceFrequency='{freq:.10g}', MajorAxis, MinorAxis, Orientation"
)


def _ra(deg: float) -> str:
    total = (deg % 360.0) / 15.0 * 3600.0
    h, rest = divmod(total, 3600.0)
    m, s = divmod(rest, 60.0)
    text = f"{int(h):02d}:{int(m):02d}:{s:09.6f}"
    return "00:00:00.000000" if text.startswith("24:") else text


def _dec(deg: float) -> str:
    sign = "-" if deg < 0 else "+"
    total = abs(deg) * 3600.0
    d, rest = divmod(total, 3600.0)
    m, s = divmod(rest, 60.0)
    return f"{sign}{int(d):02d}.{int(m):02d}.{s:08.5f}"


def component_lines(model: np.ndarray, header, freq_hz: float) -> list[str]:
    """The component list's lines for ``model`` (N, N) Jy/pixel and its FITS ``header``."""
    from astropy.wcs import WCS

    wcs = WCS(header).celestial
    rows, cols = np.nonzero(model)
    ra, dec = wcs.pixel_to_world_values(cols.astype(float), rows.astype(float))
    lines = [FORMAT.format(freq=freq_hz)]
    for k, (j, i, a, d) in enumerate(zip(rows, cols, np.atleast_1d(ra), np.atleast_1d(dec))):
        flux = float(model[j, i])
        lines.append(f"c{k},POINT,{_ra(a)},{_dec(d)},{flux:.10g},[],false,{freq_hz:.10g},,,")
    return lines


def write_component_list(path, model, header, freq_hz: float):
    """Write :func:`component_lines` atomically to ``path``; returns the path."""
    from uvlab.app.atomic import write_text

    return write_text(path, "\n".join(component_lines(model, header, freq_hz)) + "\n")
