"""Thermal noise from the radiometer equation.

For one correlation of antennas p and q with system-equivalent flux densities SEFD_p and
SEFD_q, channel width Δν and integration time Δt, the noise on the real part and on the
imaginary part of the visibility each has the RMS (Wrobel & Walker 1999, *Synthesis
Imaging in Radio Astronomy II*, eq. 9-23, with the system efficiency η_s = 1)

    σ = √(SEFD_p·SEFD_q / (2·Δν·Δt))      (= SEFD/√(2·Δν·Δt) for identical antennas)

so the complex visibility's noise has E|n|² = 2σ². This is the per-component σ that
uvlab's ``--noise-jy``, the MS SIGMA column and hera_sim's ``thermal_noise`` (σ·(n₁ +
i·n₂) with σ = SEFD/√(2ΔνΔt)) use. Stokes I = (XX + YY)/2 then has σ_I = σ/√2 per
component, and a naturally weighted dirty image of N such visibilities (counting
channels) a pixel RMS of σ_I/√N.
"""

from __future__ import annotations

import math

import numpy as np


def radiometer_sigma(sefd_jy, chan_width_hz, int_s, sefd_q_jy=None):
    """σ per real/imaginary part of one correlation, Jy: √(SEFD_p·SEFD_q/(2·Δν·Δt)).

    Parameters
    ----------
    sefd_jy : float or array, SEFD of antenna p (and q when ``sefd_q_jy`` is None), Jy
    chan_width_hz : float or array, Δν, Hz (its absolute value)
    int_s : float or array, Δt, seconds
    sefd_q_jy : float or array, optional — SEFD of antenna q

    Raises
    ------
    ValueError
        For a negative or non-finite SEFD, or a zero channel width or integration.
    """
    sp = np.asarray(sefd_jy, dtype=np.float64)
    sq = sp if sefd_q_jy is None else np.asarray(sefd_q_jy, dtype=np.float64)
    bw = np.abs(np.asarray(chan_width_hz, dtype=np.float64))
    dt = np.asarray(int_s, dtype=np.float64)
    if not (
        np.all(np.isfinite(sp)) and np.all(sp >= 0) and np.all(np.isfinite(sq)) and np.all(sq >= 0)
    ):
        raise ValueError("SEFD must be a finite number ≥ 0 Jy")
    if not (np.all(bw > 0) and np.all(dt > 0)):
        raise ValueError("the radiometer equation needs a channel width and integration > 0")
    out = np.sqrt(sp * sq / (2.0 * bw * dt))
    return float(out) if out.ndim == 0 else out


def complex_noise(shape, sigma, rng, dtype=np.complex128):
    """σ·(n₁ + i·n₂) with n₁, n₂ standard normal: ``shape`` complex, ``sigma`` broadcasting."""
    re = rng.standard_normal(shape)
    im = rng.standard_normal(shape)
    return (np.asarray(sigma) * (re + 1j * im)).astype(dtype, copy=False)


def image_noise(sigma, nvis: int, npol: int = 2) -> float:
    """Expected RMS of a naturally weighted Stokes-I dirty image: σ/√(npol·N).

    ``sigma`` is per real/imaginary part of one correlation (:func:`radiometer_sigma`),
    ``nvis`` the unflagged visibilities (rows × channels) and ``npol`` the parallel-hand
    correlations averaged into I (2: (XX + YY)/2). The image is Re Σ V·e^{−iφ}/N, and
    each term's real part has variance σ²/npol.
    """
    return float(sigma) / math.sqrt(npol * nvis)
