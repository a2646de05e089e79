"""Per-source and per-baseline factors of the measurement equation (DESIGN §1).

Everything here is written once with an array module ``xp`` (NumPy or CuPy)
and is shared by the vectorised NumPy path, the CuPy fallback and the tests:

- :func:`spectral_scale` — ``(ν/ν0)^α``;
- :func:`stokes_to_brightness` — the 2×2 brightness matrix B for linear or
  circular feeds, and :func:`brightness_to_stokes`, its inverse;
- :func:`gaussian_quadratic` / :func:`gaussian_factor` — the Gaussian shape
  factor G(u, v) = exp(−(π²/(4 ln 2))·(θ_maj²·u'² + θ_min²·v'²));
- :func:`sinc`, :func:`band_smearing`, :func:`time_smearing` — SDP Memo 076
  eqs 6–8 with the unnormalised sinc(x) = sin(x)/x.

Units: uvw in metres, frequencies in Hz, angles in radians, τ (the geometric
path difference ``u·l + v·m + w·(n − 1)``) in metres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.constants import C_LIGHT

#: Polarisation modes and the number of visibility products each returns.
MODES = ("scalar", "linear", "circular")

#: π²/(4 ln 2): the Gaussian FWHM → Fourier-plane exponent constant.
GAUSS_CONST = math.pi**2 / (4.0 * math.log(2.0))


@dataclass(frozen=True, eq=False)
class Smearing:
    """Time- and bandwidth-smearing parameters (SDP Memo 076 eqs 6–8).

    Attributes
    ----------
    chan_width_hz : float or (chan,) float
        Channel width Δν, Hz.
    int_s : float
        Integration time τ, seconds.
    dec0_rad : float
        Declination of the phase centre, radians (for the uvw rates,
        :func:`uvlab.gpu.geometry.uvw_rate`).
    time : bool
        Apply ζ_time = sinc(π·(ν/c)·τ·(u̇·l + v̇·m + ẇ·(n − 1))).
    band : bool
        Apply ζ_band = sinc(π·(Δν/c)·(u·l + v·m + w·(n − 1))).
    """

    chan_width_hz: float | np.ndarray
    int_s: float
    dec0_rad: float
    time: bool = True
    band: bool = True

    @property
    def active(self) -> bool:
        return bool(self.time or self.band)

    def widths(self, nchan: int) -> np.ndarray:
        """Channel widths as a (chan,) float64 array."""
        w = np.broadcast_to(np.asarray(self.chan_width_hz, dtype=np.float64), (nchan,))
        return np.ascontiguousarray(w)


def check_mode(mode: str) -> int:
    """Validate ``mode`` and return the number of Stokes accumulators (1 or 4)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    return 1 if mode == "scalar" else 4


def n_minus_one(lmn, xp=np):
    """n − 1 for each source, (nsrc,) float64, from the stored n."""
    return xp.asarray(lmn)[:, 2] - 1.0


def delay_m(uvw, lmn, xp=np):
    """τ = u·l + v·m + w·(n − 1), metres.

    Parameters
    ----------
    uvw : (..., 3) float64, metres
    lmn : (nsrc, 3) float64

    Returns
    -------
    (..., nsrc) float64
    """
    lmn = xp.asarray(lmn, dtype=xp.float64)
    coef = xp.stack([lmn[:, 0], lmn[:, 1], lmn[:, 2] - 1.0], axis=0)  # (3, nsrc)
    return xp.asarray(uvw, dtype=xp.float64) @ coef


def spectral_flux(freq_hz, sources, npol: int = 4, xp=np):
    """Stokes flux densities of every source in every channel, (chan, nsrc, npol) float64.

    The power law ``S0·(ν/ν0)^α``, or WSClean's spectral terms where the
    sources carry them (:class:`~uvlab.gpu.sources.SourceArrays`:
    logarithmic ``S0·exp(Σ c_k·(ln x)^k)``; ordinary ``I0 + Σ c_k·(x − 1)^k``
    for I, with Q, U and V scaled by I(ν)/I0 (unscaled where I0 = 0)).
    """
    stokes = xp.asarray(sources.stokes[:, :npol], dtype=xp.float64)
    if sources.spectral_terms is None:
        scale = spectral_scale(freq_hz, sources.spectral_index, sources.ref_freq, xp)
        return scale[:, :, None] * stokes[None, :, :]
    x = xp.asarray(freq_hz, dtype=xp.float64)[:, None] / xp.asarray(sources.ref_freq)[None, :]
    terms = xp.asarray(sources.spectral_terms, dtype=xp.float64)  # (nsrc, K)
    log_si = xp.asarray(sources.log_si, dtype=bool)[None, :]
    lnx, xm1 = xp.log(x), x - 1.0
    log_sum, lin_sum = xp.zeros_like(x), xp.zeros_like(x)
    for k in range(terms.shape[1]):  # Horner-free: K is a handful of terms
        log_sum += terms[None, :, k] * lnx ** (k + 1)
        lin_sum += terms[None, :, k] * xm1 ** (k + 1)
    i0 = stokes[None, :, 0]
    lin_i = i0 + lin_sum
    ratio_lin = xp.where(i0 != 0, lin_i / xp.where(i0 != 0, i0, 1.0), 1.0)
    ratio = xp.where(log_si, xp.exp(log_sum), ratio_lin)
    flux = ratio[:, :, None] * stokes[None, :, :]
    flux[:, :, 0] = xp.where(log_si, flux[:, :, 0], lin_i)  # I exactly, I0 = 0 included
    return flux


def spectral_scale(freq_hz, spectral_index, ref_freq, xp=np):
    """(ν/ν0)^α for every channel and source, (chan, nsrc) float64."""
    freq = xp.asarray(freq_hz, dtype=xp.float64)[:, None]
    alpha = xp.asarray(spectral_index, dtype=xp.float64)[None, :]
    nu0 = xp.asarray(ref_freq, dtype=xp.float64)[None, :]
    return xp.exp(alpha * xp.log(freq / nu0))


def stokes_to_brightness(i, q, u, v, mode: str, xp=np):
    """Brightness matrix B from Stokes parameters (DESIGN §1).

    Linear feeds ``[[I+Q, U+iV], [U−iV, I−Q]]``; circular feeds
    ``[[I+V, Q+iU], [Q−iU, I−V]]``. The inputs may be real Stokes values or
    complex accumulators ``Σ c_s·S_s`` (the combination is linear).

    Returns
    -------
    (..., 2, 2) complex
    """
    if mode == "linear":
        rows = ((i + q, u + 1j * v), (u - 1j * v, i - q))
    elif mode == "circular":
        rows = ((i + v, q + 1j * u), (q - 1j * u, i - v))
    else:
        raise ValueError(f"brightness matrix needs mode linear or circular, not {mode!r}")
    return xp.stack([xp.stack(r, axis=-1) for r in rows], axis=-2)


def brightness_to_stokes(b, mode: str, xp=np):
    """The inverse of :func:`stokes_to_brightness`: (…, 2, 2) → (…, 4) (I, Q, U, V).

    Linear: ``I = (b₀₀ + b₁₁)/2``, ``Q = (b₀₀ − b₁₁)/2``, ``U = (b₀₁ + b₁₀)/2``,
    ``V = (b₀₁ − b₁₀)/(2i)``; circular swaps the roles of Q, U and V. Complex in and out
    (real Stokes for a Hermitian B).
    """
    b00, b01, b10, b11 = b[..., 0, 0], b[..., 0, 1], b[..., 1, 0], b[..., 1, 1]
    i, d = (b00 + b11) / 2, (b00 - b11) / 2
    re, im = (b01 + b10) / 2, (b01 - b10) / 2j
    if mode == "linear":
        out = (i, d, re, im)
    elif mode == "circular":
        out = (i, re, im, d)
    else:
        raise ValueError(f"brightness matrix needs mode linear or circular, not {mode!r}")
    return xp.stack(out, axis=-1)


def gaussian_quadratic(shape, xp=np):
    """Coefficients (a, b, c) with G = exp(−(a·u² + b·v² + c·u·v)), u and v in wavelengths.

    Expands ``(π²/(4 ln 2))·(θ_maj²·u'² + θ_min²·v'²)`` with
    ``u' = u·sinPA + v·cosPA`` and ``v' = u·cosPA − v·sinPA``.

    Parameters
    ----------
    shape : (nsrc, 3) float64
        FWHM major, FWHM minor (radians), position angle (radians, east of north).

    Returns
    -------
    (nsrc, 3) float64
    """
    shape = xp.asarray(shape, dtype=xp.float64)
    maj2, min2 = shape[:, 0] ** 2, shape[:, 1] ** 2
    s, c = xp.sin(shape[:, 2]), xp.cos(shape[:, 2])
    a = maj2 * s * s + min2 * c * c
    b = maj2 * c * c + min2 * s * s
    uv = 2.0 * (maj2 - min2) * s * c
    return GAUSS_CONST * xp.stack([a, b, uv], axis=-1)


def gaussian_factor(u_lambda, v_lambda, shape, xp=np):
    """G(u, v) for each source; u and v in wavelengths, broadcast against (nsrc,).

    Returns
    -------
    array broadcast from ``u_lambda`` and (nsrc,), float64; 1 for point sources.
    """
    quad = gaussian_quadratic(shape, xp)
    return xp.exp(
        -(quad[:, 0] * u_lambda**2 + quad[:, 1] * v_lambda**2 + quad[:, 2] * u_lambda * v_lambda)
    )


def sinc(x, xp=np):
    """Unnormalised sinc(x) = sin(x)/x with sinc(0) = 1 (``numpy.sinc`` is sin(πx)/(πx))."""
    x = xp.asarray(x)
    y = xp.where(x == 0, 1e-30, x)  # sin(y)/y is exactly 1 for tiny y
    return xp.sin(y) / y


def band_smearing(tau_m, chan_width_hz, xp=np):
    """ζ_band = sinc(π·Δν·τ/c), SDP Memo 076 eq. 6 (τ in metres, broadcasting)."""
    return sinc((math.pi / C_LIGHT) * chan_width_hz * tau_m, xp)


def time_smearing(tau_rate_m_s, freq_hz, int_s: float, xp=np):
    """ζ_time = sinc(π·ν·τ_int·τ̇/c), SDP Memo 076 eq. 8.

    Over an integration of length ``int_s`` the baseline moves by
    ``d(uvw)/dt·int_s`` (Memo eq. 7 in terms of uvw:
    :func:`uvlab.gpu.geometry.uvw_rate`), so the phase 2π·(ν/c)·τ sweeps
    2π·(ν/c)·τ̇·int_s; the average of exp(iφ) over that sweep is the sinc of
    half of it. ``tau_rate_m_s`` is τ̇ = u̇·l + v̇·m + ẇ·(n − 1) in m/s.
    """
    return sinc((math.pi * int_s / C_LIGHT) * freq_hz * tau_rate_m_s, xp)


def phasor_of_turns(turns, real, cplx, xp=np):
    """exp(2πi·turns) in ``cplx`` precision; whole turns are taken off in float64 first.

    ``turns`` (float64, any shape) is a temporary the caller gives up: it is
    reduced in place. cos and sin are written into one complex array (no
    complex exp).
    """
    turns -= xp.rint(turns)
    phase = (2 * math.pi) * turns.astype(real, copy=False)
    out = xp.empty(phase.shape, dtype=cplx)
    out.real = xp.cos(phase)
    out.imag = xp.sin(phase)
    return out
