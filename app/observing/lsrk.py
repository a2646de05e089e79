"""The ratio of a sky frequency in the LSRK frame to the one observed (TOPO), with ERFA.

tclean reports every channel's frequency in the image's frame (``outframe='LSRK'`` by
default, also for ``specmode='mfs'``) and counts uniform and Briggs weight densities on
uv coordinates scaled by those frequencies (``VisImagingWeight``: ``u·ν/c`` with the row's
LSRK ν). The observer moves against the kinematic local standard of rest at up to
~50 km/s, so ν_LSRK/ν_TOPO = 1 − β differs from 1 by up to ~1.7e-4 and moves samples
across the density grid's cell boundaries (``docs/conventions.md``, Weighting).

β = (v_⊕ + v_site + v_LSRK)·ŝ / c, to first order (β²/2 < 2e-8): the Earth's barycentric
velocity (``erfa.epv00``), the site's from the Earth's rotation (ITRS → GCRS with
``erfa.c2t06a``), and the Sun's motion in the LSRK frame, 20 km/s towards
(α, δ) = (18h, +30°) of B1900 — casacore's ``MeasTable::velocityLSRK``, in J2000.
Matches casacore's TOPO → LSRK conversion to 3e-9 (tests/app/observing/test_lsrk.py).
"""

from __future__ import annotations

import erfa
import numpy as np

from uvlab.app.observing import eop

#: The Sun's velocity in the LSRK frame, km/s, J2000 axes: 20 km/s towards (270°, +30°) B1900.
SUN_LSRK_KMS = np.array([0.28999706, -17.31726384, 10.00141208])
#: Speed of light, km/s.
C_KMS = 299792.458
#: The Earth's rotation rate, rad/s (IERS).
OMEGA_EARTH = 7.292115e-5
_AU_KM = 149597870.7


def lsrk_ratio(mjd_s: float, ra0_rad: float, dec0_rad: float, site_ecef_m) -> float:
    """ν_LSRK / ν_TOPO of a J2000 direction seen from ``site_ecef_m`` (ITRF, m) at ``mjd_s`` UTC."""
    utc = eop.utc_jd(np.array([float(mjd_s)]))
    tt, ut1 = eop.tt_jd(*utc), eop.ut1_jd(*utc)
    tt1, tt2 = float(tt[0][0]), float(tt[1][0])
    _, pvb = erfa.epv00(tt1, tt2)  # TDB − TT < 2 ms: no difference here
    v_earth = np.asarray(pvb[1] if pvb.dtype.names is None else pvb["v"], dtype=float).ravel()
    xp, yp = eop.polar_motion(*utc)
    c2t = erfa.c2t06a(tt1, tt2, float(ut1[0][0]), float(ut1[1][0]), float(xp[0]), float(yp[0]))
    x, y, _ = np.asarray(site_ecef_m, dtype=float) / 1000.0
    v_site = c2t.T @ (OMEGA_EARTH * np.array([-y, x, 0.0]))
    s = np.array(
        [np.cos(dec0_rad) * np.cos(ra0_rad), np.cos(dec0_rad) * np.sin(ra0_rad), np.sin(dec0_rad)]
    )
    beta = (v_earth * _AU_KM / 86400.0 + v_site + SUN_LSRK_KMS) @ s / C_KMS
    return float(1.0 - beta)
