"""Move the phase centre of visibilities: new (u, v, w) and the phase that goes with them.

As CASA's ``phaseshift`` and WSClean's ``-shift`` do it, exactly (no small-angle
step): the baseline b is taken back from (u, v, w) on the old centre's axes
(DESIGN §1: u towards increasing RA, v north, w at the centre, on the J2000
axes an MS stores) to equatorial (X, Y, Z), and projected on the new centre's
axes. With predict's ``exp(+2πi(ν/c)(u·l + v·m + w·(n − 1)))`` a source at unit
vector s gives ``exp(2πi(ν/c)·b·(s − s0))``, so phasing to s1 multiplies by
``exp(−2πi(ν/c)·(w' − w))`` with ``w = b·s0``, ``w' = b·s1``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np


def uvw_axes(ra_rad: float, dec_rad: float) -> np.ndarray:
    """(3, 3): rows are the unit vectors of u (east), v (north) and w (the centre), in XYZ."""
    sa, ca, sd, cd = np.sin(ra_rad), np.cos(ra_rad), np.sin(dec_rad), np.cos(dec_rad)
    return np.array([[-sa, ca, 0.0], [-sd * ca, -sd * sa, cd], [cd * ca, cd * sa, sd]])


def rotate_uvw(uvw_m, old_rad: tuple[float, float], new_rad: tuple[float, float]) -> np.ndarray:
    """(row, 3) uvw on the new centre's axes from (row, 3) uvw on the old one's (metres)."""
    rot = uvw_axes(*new_rad) @ uvw_axes(*old_rad).T
    return np.asarray(uvw_m, dtype=np.float64) @ rot.T


def shift_phase_centre(data, ra_deg: float, dec_deg: float):
    """``data`` (VisData) phased to (ra_deg, dec_deg): new UVW, visibilities and centre.

    Flagged samples are shifted too (they stay flagged). The phase is computed
    in float64 and the visibilities keep their dtype.
    """
    from uvlab.gpu.constants import C_LIGHT

    old = (float(data.ra0_rad), float(data.dec0_rad))
    new = (np.radians(ra_deg % 360.0), np.radians(dec_deg))
    uvw = rotate_uvw(data.uvw, old, new)
    dw = (uvw[:, 2] - np.asarray(data.uvw, dtype=np.float64)[:, 2])[:, None]  # (row, 1) m
    phase = np.exp(-2j * np.pi * dw * (np.asarray(data.freq_hz) / C_LIGHT)[None, :])
    vis = (data.vis * phase).astype(data.vis.dtype, copy=False)
    return replace(data, uvw=uvw, vis=vis, ra0_rad=float(new[0]), dec0_rad=float(new[1]))
