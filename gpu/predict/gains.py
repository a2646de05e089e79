"""Antenna gains (G-Jones): random, time-correlated complex gains, and applying them.

G is direction-independent, so it leaves the source sum alone and multiplies each
baseline's 2×2 visibility from both sides (Hamaker, Bregman & Sault 1996):

    V_pq ← G_p · V_pq · G_qᴴ

A scalar gain (Stokes I, or the same on both feeds) gives ``V_pq·g_p·conj(g_q)``; a
diagonal gain ``diag(g_x, g_y)`` gives ``V_ij·g_p,i·conj(g_q,j)``.

Random gains (:func:`random_gains`) are ``g = (1 + a(t))·exp(i·φ(t))`` with a and φ
independent, stationary Gaussian processes per antenna and feed, of RMS ``amp_rms`` and
``phase_rms_rad``, and autocorrelation ``exp(−|Δt|/τ)`` (an Ornstein–Uhlenbeck process,
drawn exactly at any times: ``x_k = ρ_k·x_{k−1} + √(1 − ρ_k²)·σ·n_k``,
``ρ_k = exp(−(t_k − t_{k−1})/τ)``). τ = 0 draws every time independently; τ = ∞ draws
one value per antenna. The gain is the same in every channel (a flat bandpass).
Seeded with ``numpy.random.default_rng(seed)``: the same seed gives the same gains.
"""

from __future__ import annotations

import math

import numpy as np


def correlated_series(times_s, sigma: float, corr_time_s: float, shape: tuple, rng):
    """Stationary OU samples of RMS ``sigma`` at ``times_s``: (time, *shape) float64.

    Parameters
    ----------
    times_s : (time,) float, seconds, non-decreasing
    sigma : float, the RMS of every sample
    corr_time_s : float ≥ 0 (``math.inf``: one constant value per series)
    shape : the shape of the independent series (e.g. (ant, feed))
    rng : numpy.random.Generator
    """
    t = np.asarray(times_s, dtype=np.float64)
    noise = rng.standard_normal((len(t), *shape))
    out = np.empty_like(noise)
    if len(t) == 0:
        return out
    out[0] = noise[0]
    if corr_time_s <= 0:
        out[1:] = noise[1:]
    else:
        rho = (
            np.exp(-np.diff(t) / corr_time_s) if math.isfinite(corr_time_s) else np.ones(len(t) - 1)
        )
        for k in range(1, len(t)):
            out[k] = rho[k - 1] * out[k - 1] + math.sqrt(max(1.0 - rho[k - 1] ** 2, 0.0)) * noise[k]
    return sigma * out


def random_gains(
    times_s,
    nant: int,
    nchan: int,
    *,
    amp_rms: float = 0.0,
    phase_rms_rad: float = 0.0,
    corr_time_s: float = 3600.0,
    seed: int | None = None,
    feeds: int = 1,
):
    """Random complex gains ``(1 + a)·exp(iφ)`` per time, antenna, channel (and feed).

    Parameters
    ----------
    times_s : (time,) float, seconds (any origin)
    nant, nchan : int
    amp_rms : float ≥ 0 — RMS of the fractional amplitude error a
    phase_rms_rad : float ≥ 0 — RMS of the phase φ, radians
    corr_time_s : float ≥ 0 — correlation time τ of both, seconds
    seed : int or None
    feeds : 1 (one scalar gain per antenna) or 2 (independent x/y or r/l gains)

    Returns
    -------
    (time, ant, chan) complex128 for ``feeds=1``; (time, ant, chan, 2, 2) complex128, the
    diagonal Jones matrices, for ``feeds=2``.
    """
    if not (amp_rms >= 0 and phase_rms_rad >= 0 and corr_time_s >= 0):
        raise ValueError("gain RMS and correlation time must be ≥ 0")
    if feeds not in (1, 2):
        raise ValueError(f"feeds must be 1 or 2, not {feeds}")
    rng = np.random.default_rng(seed)
    shape = (nant, feeds)
    amp = 1.0 + correlated_series(times_s, amp_rms, corr_time_s, shape, rng)
    phase = correlated_series(times_s, phase_rms_rad, corr_time_s, shape, rng)
    g = amp * np.exp(1j * phase)  # (time, ant, feed)
    g = np.broadcast_to(g[:, :, None, :], (len(g), nant, nchan, feeds))
    if feeds == 1:
        return np.ascontiguousarray(g[..., 0])
    return diagonal_jones(g)


def diagonal_jones(g, xp=np):
    """(..., 2) feed gains → (..., 2, 2) diagonal Jones matrices."""
    g = xp.asarray(g)
    out = xp.zeros((*g.shape, 2), dtype=xp.result_type(g.dtype, xp.complex64))
    out[..., 0, 0] = g[..., 0]
    out[..., 1, 1] = g[..., 1]
    return out


def apply_row_gains(vis, gp, gq, xp=np):
    """V ← G_p·V·G_qᴴ per row: ``vis`` (row, chan[, 2, 2]), ``gp``, ``gq`` (row, chan[, 2, 2]).

    Scalar gains (row, chan) multiply 2×2 visibilities as g_p·conj(g_q); 2×2 gains need
    2×2 visibilities.
    """
    gp, gq = xp.asarray(gp), xp.asarray(gq)
    if gp.ndim == 2:
        factor = (gp * xp.conj(gq)).astype(vis.dtype, copy=False)
        return vis * (factor if vis.ndim == 2 else factor[..., None, None])
    if vis.ndim != 4:
        raise ValueError("2×2 gains need 2×2 visibilities (mode 'linear' or 'circular')")
    gp, gq = gp.astype(vis.dtype, copy=False), gq.astype(vis.dtype, copy=False)
    return xp.matmul(xp.matmul(gp, vis), xp.conj(xp.swapaxes(gq, -1, -2)))


def apply_gains(vis, gains, ant1, ant2, xp=np):
    """V_pq ← G_p·V_pq·G_qᴴ for every time, baseline and channel, in place where possible.

    Parameters
    ----------
    vis : (time, bl, chan) complex, or (time, bl, chan, 2, 2)
    gains : (time, ant, chan) complex (scalar), or (time, ant, chan, 2, 2) (Jones); the
        time axis may be 1 (constant gains)
    ant1, ant2 : (bl,) int — antennas p and q of each baseline

    Returns
    -------
    The gain-corrupted visibilities, ``vis``'s shape and dtype.
    """
    g = xp.asarray(gains)
    if xp is not np and vis.flags.c_contiguous and g.ndim in (3, 5):
        from uvlab.gpu.predict.cuda_gains import apply_gains_cuda

        if g.ndim == 3 or (g.shape[-2:] == (2, 2) and vis.ndim == 5):
            return apply_gains_cuda(vis, g, ant1, ant2)
    p, q = xp.asarray(ant1), xp.asarray(ant2)
    gp, gq = g[:, p], g[:, q]  # (time, bl, chan[, 2, 2])
    if g.ndim == 3:
        if vis.ndim == 3:
            vis *= (gp * xp.conj(gq)).astype(vis.dtype, copy=False)
        else:
            vis *= (gp * xp.conj(gq)).astype(vis.dtype, copy=False)[..., None, None]
        return vis
    if g.ndim != 5 or g.shape[-2:] != (2, 2):
        raise ValueError(
            f"gains must be (time, ant, chan) or (time, ant, chan, 2, 2), got {g.shape}"
        )
    if vis.ndim != 5:
        raise ValueError("2×2 gains need 2×2 visibilities (mode 'linear' or 'circular')")
    gp = gp.astype(vis.dtype, copy=False)
    gq = gq.astype(vis.dtype, copy=False)
    return xp.matmul(xp.matmul(gp, vis), xp.conj(xp.swapaxes(gq, -1, -2)))
