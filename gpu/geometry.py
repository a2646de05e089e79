"""Interferometer geometry: baselines to (u, v, w), and sky directions to (l, m, n).

All formulas follow DESIGN §1 (Thompson, Moran & Swenson ch. 4):

- ``u =  sinH·Lx + cosH·Ly``
- ``v = −sinδ·cosH·Lx + sinδ·sinH·Ly + cosδ·Lz``
- ``w =  cosδ·cosH·Lx − cosδ·sinH·Ly + sinδ·Lz``

with (Lx, Ly, Lz) the local equatorial components of a baseline (Lx in the
site meridian plane, Ly east, Lz toward the pole) and H the hour angle.
Angles are radians, lengths metres.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.constants import OMEGA_EARTH


def ecef_to_equatorial(xyz, lon_rad: float):
    """Rotate ITRF (ECEF) vectors into local equatorial (Lx, Ly, Lz).

    Parameters
    ----------
    xyz : (..., 3) float
        ITRF/ECEF vectors (metres), e.g. antenna positions or baselines.
    lon_rad : float
        East longitude of the site, radians.

    Returns
    -------
    (..., 3) float
        Components in the site's equatorial frame, so that the DESIGN §1
        formula applies with the *local* hour angle H = LST − α.
    """
    xyz = np.asarray(xyz, dtype=np.float64)
    c, s = np.cos(lon_rad), np.sin(lon_rad)
    x, y, z = xyz[..., 0], xyz[..., 1], xyz[..., 2]
    return np.stack([c * x + s * y, -s * x + c * y, z], axis=-1)


def baseline_uvw(l_eq, ha_rad, dec_rad: float):
    """(u, v, w) of baselines at a set of hour angles.

    Parameters
    ----------
    l_eq : (nbl, 3) float
        Baselines ``X_p − X_q`` in local equatorial components, metres.
    ha_rad : (ntime,) float
        Hour angles of the phase centre, radians.
    dec_rad : float
        Declination of the phase centre, radians.

    Returns
    -------
    (ntime, nbl, 3) float64
        uvw in metres.
    """
    l_eq = np.asarray(l_eq, dtype=np.float64)
    ha = np.atleast_1d(np.asarray(ha_rad, dtype=np.float64))[:, None]
    lx, ly, lz = l_eq[None, :, 0], l_eq[None, :, 1], l_eq[None, :, 2]
    sh, ch = np.sin(ha), np.cos(ha)
    sd, cd = np.sin(dec_rad), np.cos(dec_rad)
    u = sh * lx + ch * ly
    v = -sd * ch * lx + sd * sh * ly + cd * lz
    w = cd * ch * lx - cd * sh * ly + sd * lz
    return np.stack([u, v, w], axis=-1)


def uvw_rate(uvw, dec_rad: float):
    """Time derivative of (u, v, w) from Earth rotation, metres per second.

    Differentiating the DESIGN §1 formula with respect to H and using
    ``cosH·Lx − sinH·Ly = cosδ·w − sinδ·v`` gives a form that needs only the
    uvw themselves (SDP Memo 076 eq. 7):
    ``d(u, v, w)/dt = ω⊕·(cosδ·w − sinδ·v, sinδ·u, −cosδ·u)``.

    Parameters
    ----------
    uvw : (..., 3) float
        Baseline coordinates, metres (numpy or cupy).
    dec_rad : float
        Declination of the phase centre, radians.
    """
    sd, cd = np.sin(dec_rad), np.cos(dec_rad)
    u, v, w = uvw[..., 0], uvw[..., 1], uvw[..., 2]
    xp = get_xp(uvw)
    return OMEGA_EARTH * xp.stack([cd * w - sd * v, sd * u, -cd * u], axis=-1)


def radec_to_lmn(ra_rad, dec_rad, ra0_rad: float, dec0_rad: float):
    """Direction cosines (l, m, n) of (α, δ) about the phase centre (α0, δ0).

    ``l = cosδ·sin(α−α0)``, ``m = sinδ·cosδ0 − cosδ·sinδ0·cos(α−α0)``,
    ``n = √(1 − l² − m²)``; l points east, m north.

    Returns
    -------
    (..., 3) float64
    """
    ra = np.asarray(ra_rad, dtype=np.float64)
    dec = np.asarray(dec_rad, dtype=np.float64)
    dra = ra - ra0_rad
    l = np.cos(dec) * np.sin(dra)
    m = np.sin(dec) * np.cos(dec0_rad) - np.cos(dec) * np.sin(dec0_rad) * np.cos(dra)
    n = np.sqrt(np.clip(1.0 - l * l - m * m, 0.0, None))
    return np.stack([l, m, n], axis=-1)


def lmn_to_radec(l, m, ra0_rad: float, dec0_rad: float):
    """Inverse of :func:`radec_to_lmn` for the front hemisphere (n ≥ 0).

    Returns
    -------
    ra, dec : float64 arrays, radians (ra wrapped to [0, 2π)).
    """
    l = np.asarray(l, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    n = np.sqrt(np.clip(1.0 - l * l - m * m, 0.0, None))
    sd0, cd0 = np.sin(dec0_rad), np.cos(dec0_rad)
    dec = np.arcsin(np.clip(m * cd0 + n * sd0, -1.0, 1.0))
    ra = ra0_rad + np.arctan2(l, n * cd0 - m * sd0)
    return np.mod(ra, 2 * np.pi), dec
