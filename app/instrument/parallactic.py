"""Parallactic angles of a J2000 phase centre at the antennas: how an alt-az dish's beam
and feeds turn on the sky (:mod:`uvlab.app.instrument.jones`,
:mod:`uvlab.app.instrument.row_jones`, ``uvlab pb-correct``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from uvlab.app.observing.observation import Observation


def parallactic_angles(mjd_s, ra0_rad: float, dec0_rad: float, lon_rad, lat_rad) -> np.ndarray:
    """(time, ant) parallactic angle of a J2000 phase centre at antennas, radians.

    The angle from the J2000 north to the zenith at the phase centre, east of north: the
    parallactic angle of the apparent place (hour angle = Greenwich apparent sidereal
    time + the antenna's longitude − the apparent right ascension; the declination of
    date), plus the angle between the apparent and the J2000 north as the uvw turn it
    (:func:`uvlab.app.observing.apparent.apparent_place`; precession: ~3e-3 rad in 2025 at
    Dec −50°), since the sky's (l, m) lie on J2000 axes. Checked against astropy's
    position angle of the zenith to 5e-5 rad.
    """
    from uvlab.app.observing.apparent import apparent_place
    from uvlab.app.observing.observation import earth_orientation
    from uvlab.gpu.predict.beams import parallactic_angle

    mjd_s = np.atleast_1d(np.asarray(mjd_s, dtype=np.float64))
    gast, _ = earth_orientation(mjd_s)
    ra_d, dec_d, e_u0 = apparent_place(mjd_s, ra0_rad, dec0_rad)
    e_u = np.stack([-np.sin(ra_d), np.cos(ra_d), np.zeros_like(ra_d)], axis=-1)
    e_v = np.stack(
        [-np.sin(dec_d) * np.cos(ra_d), -np.sin(dec_d) * np.sin(ra_d), np.cos(dec_d)], axis=-1
    )
    frame = np.arctan2(np.sum(e_u0 * e_v, axis=-1), np.sum(e_u0 * e_u, axis=-1))
    ha = gast[:, None] + np.asarray(lon_rad)[None, :] - ra_d[:, None]
    chi = parallactic_angle(ha, dec_d[:, None], np.asarray(lat_rad)[None, :])
    return chi + frame[:, None]


def antenna_parallactic(obs: Observation, times: slice) -> np.ndarray:
    """(time, ant) parallactic angles of ``obs``'s phase centre (:func:`parallactic_angles`)."""
    lon, lat, _ = obs.layout.geodetic()
    return parallactic_angles(obs.times_mjd_s[times], obs.ra0_rad, obs.dec0_rad, lon, lat)
