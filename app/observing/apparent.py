"""The apparent place of a J2000 direction, and the sidereal time (ERFA, no astropy).

What CASA's UVW recomputation (fixvis, the simulator) and pyuvdata's phasing
use: the phase centre with annual aberration, light deflection and
precession-nutation (``erfa.atci13``, the geocentric CIRS place), on the true
equator and equinox of date (minus the equation of the origins), and the
frame position angle between the J2000 and the apparent north there.
:mod:`uvlab.app.observing.observation` builds the uvw on it.
"""

from __future__ import annotations

import erfa
import numpy as np

from uvlab.app.observing import eop


def sidereal_time(mjd_s: np.ndarray) -> np.ndarray:
    """Greenwich apparent sidereal time (rad) at ``mjd_s`` UTC, one nutation series per time.

    ``erfa.gst06`` with ``erfa.pnm06a``'s matrix is what ``erfa.gst06a`` computes
    (it calls both), so the series is summed once instead of twice.
    """
    utc = eop.utc_jd(mjd_s)
    ut1, tt = eop.ut1_jd(*utc), eop.tt_jd(*utc)
    return erfa.gst06(*ut1, *tt, erfa.pnm06a(*tt))


#: Offset (radians) either side of the apparent phase centre, north and south, whose
#: J2000 places give the u-v rotation (pyuvdata's frame position angle takes 0.5°).
NORTH_OFFSET_RAD = np.radians(0.5)


def apparent_place(mjd_s, ra0: float, dec0: float, node_step_s: float = 3600.0):
    """Apparent (α_d, δ_d) of a J2000 direction and the J2000 east axis there, per time.

    ``erfa.atci13`` (aberration, light deflection, precession-nutation: the
    geocentric CIRS place) minus the equation of the origins gives the place on
    the true equator and equinox of date. It is evaluated on nodes
    ``node_step_s`` apart and interpolated (aberration and nutation change by
    < 0.02″ an hour, linearly to 1e-12 rad).

    The J2000 east axis at the phase centre, (ntime, 3) in the of-date frame,
    follows the frame position angle as pyuvdata (3.2) computes it, whose UVW
    agree with CASA's recomputation to ~1e-5 of the baseline: two points
    :data:`NORTH_OFFSET_RAD` north and south of the apparent place are taken
    back to J2000 (``erfa.atic13``), and the position angle φ of the
    northern one seen from the southern one (``erfa.pas``) is the apparent
    north's in J2000; the J2000 north is then at −φ in the apparent frame.
    """
    mjd_s = np.atleast_1d(np.asarray(mjd_s, dtype=np.float64))
    nnode = max(2, int(np.ceil(np.ptp(mjd_s) / node_step_s)) + 1)
    nodes = np.linspace(mjd_s.min(), mjd_s.max() + 1.0, nnode)
    tt = eop.tt_jd(*eop.utc_jd(nodes))  # TDB − TT < 2 ms: no difference here
    ri, di, eo = _cirs(ra0, dec0, tt)
    up = np.minimum(di + NORTH_OFFSET_RAD, np.pi / 2)
    dn = np.maximum(di - NORTH_OFFSET_RAD, -np.pi / 2)
    ra_up, dec_up, _ = erfa.atic13(ri, up, *tt)
    ra_dn, dec_dn, _ = erfa.atic13(ri, dn, *tt)
    psi = -erfa.pas(ra_dn, dec_dn, ra_up, dec_up)  # J2000 north's PA in the apparent frame
    ra_d = np.interp(mjd_s, nodes, np.unwrap(ri - eo))
    dec_d = np.interp(mjd_s, nodes, di)
    psi = np.interp(mjd_s, nodes, np.unwrap(psi))
    e_east = np.stack([-np.sin(ra_d), np.cos(ra_d), np.zeros_like(ra_d)], axis=-1)
    e_north = np.stack(
        [-np.sin(dec_d) * np.cos(ra_d), -np.sin(dec_d) * np.sin(ra_d), np.cos(dec_d)], axis=-1
    )
    e_u0 = np.cos(psi)[:, None] * e_east - np.sin(psi)[:, None] * e_north
    return np.mod(ra_d, 2 * np.pi), dec_d, e_u0


def _cirs(ra0: float, dec0: float, tt):
    """``erfa.atci13`` of a J2000 direction (no proper motion): CIRS (α, δ) and eo."""
    return erfa.atci13(ra0, dec0, 0.0, 0.0, 0.0, 0.0, *tt)


def apparent_ra(mjd_s: np.ndarray, ra0: float, dec0: float) -> np.ndarray:
    """Apparent right ascension (true equinox of date) at each time: :func:`apparent_place`'s α_d.

    Evaluated at the times themselves, without the frame angle (one or a few times).
    """
    ri, _, eo = _cirs(ra0, dec0, eop.tt_jd(*eop.utc_jd(np.asarray(mjd_s, dtype=np.float64))))
    return np.mod(ri - eo, 2 * np.pi)
