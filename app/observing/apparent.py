"""The apparent place of a J2000 direction, and the sidereal time (ERFA, no astropy).

What CASA's UVW recomputation (fixvis, the simulator) and pyuvdata's phasing
use: the phase centre with annual aberration, light deflection and
precession-nutation (``erfa.atci13``, the geocentric CIRS place), on the true
equator and equinox of date (minus the equation of the origins), and the
J2000 axes there as CASA turns them (the smallest rotation from the mean to the
apparent place).
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


def apparent_place(mjd_s, ra0: float, dec0: float, node_step_s: float = 3600.0):
    """Apparent (α_d, δ_d) of a J2000 direction and the J2000 east axis there, per time.

    ``erfa.atci13`` (aberration, light deflection, precession-nutation: the
    geocentric CIRS place) minus the equation of the origins gives the place on
    the true equator and equinox of date. It is evaluated on nodes
    ``node_step_s`` apart and interpolated (aberration and nutation change by
    < 0.02″ an hour, linearly to 1e-12 rad).

    The J2000 east axis at the phase centre, (ntime, 3) in the of-date frame, is
    CASA's (casacore ``MSUVWGenerator``: the baseline taken to J2000 as one rigid
    rotation, projected on the J2000 phase centre's axes): the J2000 (u, v, w) axes,
    precessed and nutated to the date (``erfa.pnm06a``), then turned by the smallest
    rotation that takes the mean direction of date onto the apparent one (about their
    cross product, by the ~20″ of aberration). pyuvdata's frame position angle (the
    J2000 north of points 0.5° either side, taken back through ``erfa.atic13``) turns
    (u, v) about w by up to ~15″ more (Dec −60°), where CASA's UVW differ by 8e-5 of
    the baseline; this rotation matches CASA 6.7's ``fixvis`` to ≤ 5.2e-6.
    """
    mjd_s = np.atleast_1d(np.asarray(mjd_s, dtype=np.float64))
    nnode = max(2, int(np.ceil(np.ptp(mjd_s) / node_step_s)) + 1)
    nodes = np.linspace(mjd_s.min(), mjd_s.max() + 1.0, nnode)
    tt = eop.tt_jd(*eop.utc_jd(nodes))  # TDB − TT < 2 ms: no difference here
    ri, di, eo = _cirs(ra0, dec0, tt)
    ra_n, dec_n = ri - eo, di
    s_app = _unit(ra_n, dec_n)
    e_east, e_north = _east(ra_n), _north(ra_n, dec_n)
    pnm = erfa.pnm06a(*tt)  # GCRS → true equator and equinox of date
    s_mean = pnm @ _unit(np.array(ra0), np.array(dec0))
    east0 = pnm @ _east(np.array(ra0))
    east = _smallest_rotation(s_mean, s_app, east0)
    psi = np.arctan2(-np.sum(east * e_north, axis=-1), np.sum(east * e_east, axis=-1))
    ra_d = np.interp(mjd_s, nodes, np.unwrap(ra_n))
    dec_d = np.interp(mjd_s, nodes, dec_n)
    psi = np.interp(mjd_s, nodes, np.unwrap(psi))
    e_u0 = np.cos(psi)[:, None] * _east(ra_d) - np.sin(psi)[:, None] * _north(ra_d, dec_d)
    return np.mod(ra_d, 2 * np.pi), dec_d, e_u0


def _unit(ra, dec):
    """(..., 3) unit vectors of (α, δ)."""
    return np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], axis=-1)


def _east(ra):
    """(..., 3) the east axis at right ascension α."""
    return np.stack([-np.sin(ra), np.cos(ra), np.zeros_like(ra)], axis=-1)


def _north(ra, dec):
    """(..., 3) the north axis at (α, δ)."""
    return np.stack([-np.sin(dec) * np.cos(ra), -np.sin(dec) * np.sin(ra), np.cos(dec)], axis=-1)


def _smallest_rotation(a, b, x):
    """x turned by the rotation about a × b that takes unit a onto unit b (Rodrigues), per row."""
    axis = np.cross(a, b)
    sin = np.linalg.norm(axis, axis=-1, keepdims=True)
    cos = np.sum(a * b, axis=-1, keepdims=True)
    k = axis / np.where(sin > 0, sin, 1.0)
    kx = np.sum(k * x, axis=-1, keepdims=True)
    return x * cos + np.cross(k, x) * sin + k * kx * (1.0 - cos)


def _cirs(ra0: float, dec0: float, tt):
    """``erfa.atci13`` of a J2000 direction (no proper motion): CIRS (α, δ) and eo."""
    return erfa.atci13(ra0, dec0, 0.0, 0.0, 0.0, 0.0, *tt)


def apparent_ra(mjd_s: np.ndarray, ra0: float, dec0: float) -> np.ndarray:
    """Apparent right ascension (true equinox of date) at each time: :func:`apparent_place`'s α_d.

    Evaluated at the times themselves, without the frame angle (one or a few times).
    """
    ri, _, eo = _cirs(ra0, dec0, eop.tt_jd(*eop.utc_jd(np.asarray(mjd_s, dtype=np.float64))))
    return np.mod(ri - eo, 2 * np.pi)
