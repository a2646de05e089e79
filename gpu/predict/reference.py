"""The slow, obviously right predict: a plain float64 triple loop (DESIGN §1).

``V_pq(t,ν) = Σ_s ζ_time·ζ_band·G_s(u,v)·B_s(ν)·exp(+2πi·(ν/c)·(u·l_s + v·m_s + w·(n_s − 1)))``

Every factor is written out with :mod:`math` and :mod:`cmath` for one row,
one channel and one source at a time, so that this module shares no code
with the fast paths it checks. Use it only for small sizes (it runs at about
10⁵ source·visibilities per second).
"""

from __future__ import annotations

import cmath
import math

import numpy as np

C = 299_792_458.0
OMEGA = 7.292_115_9e-5


def _sinc(x: float) -> float:
    return 1.0 if x == 0.0 else math.sin(x) / x


def _brightness(i: float, q: float, u: float, v: float, mode: str):
    if mode == "scalar":
        return complex(i)
    if mode == "linear":
        return np.array([[i + q, u + 1j * v], [u - 1j * v, i - q]], dtype=np.complex128)
    if mode == "circular":
        return np.array([[i + v, q + 1j * u], [q - 1j * u, i - v]], dtype=np.complex128)
    raise ValueError(mode)


def predict_reference(uvw, freq_hz, sources, mode="scalar", smearing=None):
    """Reference visibilities by direct summation in float64.

    Parameters
    ----------
    uvw : (row, 3) float, metres (``uvw(X_p) − uvw(X_q)``)
    freq_hz : (chan,) float, Hz
    sources : uvlab.gpu.sources.SourceArrays
    mode : {"scalar", "linear", "circular"}
        "scalar" returns the Stokes-I term Σ I_s·… only.
    smearing : uvlab.gpu.predict.terms.Smearing or None

    Returns
    -------
    (row, chan) complex128, or (row, chan, 2, 2) complex128 for linear/circular.
    """
    uvw = np.asarray(uvw, dtype=np.float64)
    freq = np.asarray(freq_hz, dtype=np.float64)
    nrow, nchan = len(uvw), len(freq)
    shape = (nrow, nchan) if mode == "scalar" else (nrow, nchan, 2, 2)
    out = np.zeros(shape, dtype=np.complex128)
    widths = None
    if smearing is not None:
        widths = np.broadcast_to(np.asarray(smearing.chan_width_hz, dtype=np.float64), (nchan,))
        sd, cd = math.sin(smearing.dec0_rad), math.cos(smearing.dec0_rad)
    for r in range(nrow):
        u, v, w = (float(x) for x in uvw[r])
        if smearing is not None:
            # d(u, v, w)/dt from Earth rotation, written out (SDP Memo 076 eq. 7).
            du, dv, dw = OMEGA * (cd * w - sd * v), OMEGA * sd * u, -OMEGA * cd * u
        for c in range(nchan):
            nu = float(freq[c])
            for s in range(sources.nsrc):
                l, m, n = (float(x) for x in sources.lmn[s])
                tau = u * l + v * m + w * (n - 1.0)
                term = cmath.exp(2j * math.pi * nu / C * tau)
                if smearing is not None and smearing.band:
                    term *= _sinc(math.pi * float(widths[c]) / C * tau)
                if smearing is not None and smearing.time:
                    rate = du * l + dv * m + dw * (n - 1.0)
                    term *= _sinc(math.pi * nu / C * rate * smearing.int_s)
                fwhm_maj, fwhm_min, pa = (float(x) for x in sources.shape[s])
                if fwhm_maj > 0.0 or fwhm_min > 0.0:
                    ul, vl = u * nu / C, v * nu / C
                    up = ul * math.sin(pa) + vl * math.cos(pa)
                    vp = ul * math.cos(pa) - vl * math.sin(pa)
                    k = math.pi**2 / (4.0 * math.log(2.0))
                    term *= math.exp(-k * (fwhm_maj**2 * up**2 + fwhm_min**2 * vp**2))
                i, q, us, vs = _stokes_at(sources, s, nu)
                out[r, c] += term * _brightness(i, q, us, vs, mode)
    return out


def _stokes_at(sources, s: int, nu: float) -> tuple[float, float, float, float]:
    """(I, Q, U, V) of source s at ν, written out term by term (the power law or WSClean's)."""
    x = nu / float(sources.ref_freq[s])
    stokes = [float(v) for v in sources.stokes[s]]
    if sources.spectral_terms is None:
        scale = x ** float(sources.spectral_index[s])
        return tuple(scale * v for v in stokes)
    coeffs = [float(c) for c in sources.spectral_terms[s]]
    if bool(sources.log_si[s]):
        scale = math.exp(sum(c * math.log(x) ** (k + 1) for k, c in enumerate(coeffs)))
        return tuple(scale * v for v in stokes)
    i = stokes[0] + sum(c * (x - 1.0) ** (k + 1) for k, c in enumerate(coeffs))
    scale = i / stokes[0] if stokes[0] != 0 else 1.0
    return (i, *(scale * v for v in stokes[1:]))
