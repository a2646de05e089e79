"""One-line warnings about the image a job will make: its cell at the horizon, its sky outside.

Both sources (:mod:`uvlab.app.lab.synthetic_source`, :mod:`uvlab.app.lab.ms_source`)
yield them as urgent partials.
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.app.lab.jobs import JobRequest
from uvlab.app.skymodel import SkyModel


def image_note(request: JobRequest, spec) -> str | None:
    """One line when the automatic (or requested) cell meets the horizon; None otherwise.

    Only for the lab's own geometry (no ``request.spec``, previews on): the
    commands choose theirs in :func:`uvlab.app.commands.ms_imaging.choose_geometry`.
    """
    from uvlab.gpu.image_spec import ARCSEC, horizon_note

    if request.spec is not None or not request.preview:
        return None
    cell = request.imaging.cell_arcsec
    return horizon_note(spec, cell * ARCSEC if cell else None)


def outside_image_note(sky: SkyModel, spec, ra0_rad: float, dec0_rad: float) -> str | None:
    """One line when every component of ``sky`` lies outside the image, else None.

    Outside: beyond the image's half-width ``npix·cell/2`` in l or m, or on or
    behind the phase centre's horizon (n ≤ 0), where a relative sky is placed
    at its offsets (:meth:`~uvlab.app.skymodel.SkyModel.sources_for`). None for
    an empty sky. The line names the sky, the image, the nearest component's
    distance from the phase centre and that centre, e.g. ``every source of sky
    'my field' lies outside the 512² image (nearest 3.2° from the phase centre
    at RA 201.3650°, Dec -43.0190°): …``.
    """
    if not len(sky):
        return None
    ref = sky.centre_deg or (math.degrees(ra0_rad), math.degrees(dec0_rad))
    l, m, n = sky.lmn_about(*ref).T  # a relative sky sits at its offsets
    half = 0.5 * spec.npix * spec.cell_rad
    if np.any((n > 0) & (np.abs(l) <= half) & (np.abs(m) <= half)):
        return None
    nearest = math.degrees(float(np.min(np.arctan2(np.hypot(l, m), n))))
    what = f"sky {sky.name!r}" if sky.name else "the sky"
    why = (
        "its components keep their RA/Dec; point at them, or use a demo sky"
        if sky.centre_deg is None
        else "make the image larger or move the components in"
    )
    return (
        f"every source of {what} lies outside the {spec.npix}² image (nearest "
        f"{nearest:.3g}° from the phase centre at RA {math.degrees(ra0_rad) % 360.0:.4f}°, "
        f"Dec {math.degrees(dec0_rad):.4f}°): {why}"
    )
