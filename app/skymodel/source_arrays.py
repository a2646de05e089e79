"""Sky components as the engine's flat arrays about a phase centre.

:func:`source_arrays` turns components into :class:`uvlab.gpu.sources.SourceArrays`
(DESIGN §1 direction cosines); :meth:`uvlab.app.skymodel.sky_model.SkyModel.to_source_arrays`
and :meth:`uvlab.app.skymodel.component.Component.flux` use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from uvlab.gpu.sources import SourceArrays

_ARCSEC_TO_RAD = math.pi / (180.0 * 3600.0)


def source_arrays(comps: Sequence, ra0_rad: float, dec0_rad: float) -> SourceArrays:
    """The engine's flat arrays of ``comps`` about the phase centre (α0, δ0).

    Parameters
    ----------
    comps : sequence of Component
        Where their RA/Dec say (:class:`uvlab.app.skymodel.component.Component`).
    ra0_rad, dec0_rad : float
        Phase centre, radians.

    Returns
    -------
    SourceArrays
        ``lmn`` from :func:`uvlab.gpu.geometry.radec_to_lmn`; ``shape`` in
        radians (FWHM major, FWHM minor, PA east of north).
    """
    from uvlab.gpu.geometry import radec_to_lmn
    from uvlab.gpu.sources import SourceArrays

    n = len(comps)
    ra = np.deg2rad(np.array([c.ra_deg for c in comps], dtype=np.float64))
    dec = np.deg2rad(np.array([c.dec_deg for c in comps], dtype=np.float64))
    lmn = radec_to_lmn(ra, dec, ra0_rad, dec0_rad).reshape(n, 3)
    stokes = np.array([c.stokes for c in comps], dtype=np.float64).reshape(n, 4)
    shape = np.array(
        [
            (
                c.major_arcsec * _ARCSEC_TO_RAD,
                c.minor_arcsec * _ARCSEC_TO_RAD,
                math.radians(c.pa_deg),
            )
            for c in comps
        ],
        dtype=np.float64,
    ).reshape(n, 3)
    terms = log_si = None
    nterm = max((len(c.spectral_terms) for c in comps), default=0)
    if nterm:  # some component has more than a power law: every one as terms
        terms = np.zeros((n, nterm))
        for k, c in enumerate(comps):
            row = c.spectral_terms or (c.spectral_index,)
            terms[k, : len(row)] = row
        log_si = np.array([c.log_si for c in comps], dtype=bool)
    return SourceArrays(
        lmn=lmn,
        stokes=stokes,
        spectral_index=np.array([c.spectral_index for c in comps], dtype=np.float64),
        ref_freq=np.array([c.ref_freq_hz for c in comps], dtype=np.float64),
        shape=shape,
        spectral_terms=terms,
        log_si=log_si,
    )
