"""Joined-channel Högbom CLEAN: WSClean's ``-join-channels`` without ``-fit-spectral-pol``.

Offringa & Smirnov (2017, MNRAS 471, 301), §2.3: the peak is found on the integrated
image, the channels' residuals averaged with their weights,
``I = Σ_k W_k·R_k / Σ_k W_k``; at that pixel every channel k gets a component of
``gain · R_k[peak]``, its own value, subtracted with its own PSF. A source's spectrum is
followed channel by channel, while the components sit at the same pixels in all of them.

Arrays in, arrays out, in the namespace of the inputs (NumPy or CuPy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.hogbom import psf_window


@dataclass(frozen=True, eq=False)
class JoinedResult:
    """The joined CLEAN's outcome.

    Attributes
    ----------
    models : (C, N, N) float64
        Jy/pixel per channel.
    residuals : (C, N, N) float64
        Jy/beam per channel.
    iterations : int
        Components found (each one in every channel).
    stop_reason : str
        ``niter``, ``threshold`` or ``zero`` (nothing left to clean).
    peaks : (iterations + 1,) float64 NumPy
        The integrated image's |peak| (inside the mask) at the start and after each iteration.
    """

    models: object
    residuals: object
    iterations: int
    stop_reason: str
    peaks: np.ndarray


def joined_hogbom(residuals, psfs, weights, *, gain: float, niter: int, threshold: float = 0.0,
                  mask=None) -> JoinedResult:  # fmt: skip
    """CLEAN C channel images together, the peaks found on their weighted mean.

    Parameters
    ----------
    residuals : (C, N, N) float
        The channels' dirty images, Jy/beam (copied, not changed).
    psfs : (C, 2N, 2N) float
        Each channel's PSF of side 2N, peak 1 at ``[N, N]``.
    weights : (C,) float
        The channels' weights in the integrated image (their sums of imaging weights).
    gain : float
        Loop gain in (0, 1].
    niter : int
        Components at most.
    threshold : float
        Stop when the integrated image's |peak| is at or below this, Jy/beam.
    mask : (N, N) bool, optional
        Peaks only where True.
    """
    xp = get_xp(residuals)
    res = xp.array(residuals, dtype=xp.float64)
    psfs = xp.asarray(psfs, dtype=xp.float64)
    n = res.shape[1]
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    wx = xp.asarray(w)
    models = xp.zeros_like(res)
    integrated = xp.tensordot(wx, res, axes=1)
    allowed = None if mask is None else xp.asarray(mask, dtype=bool)
    peaks, reason, done = [], "niter", 0
    while True:
        search = xp.abs(integrated) if allowed is None else xp.where(allowed, xp.abs(integrated), 0)
        k = int(xp.argmax(search))
        peak = float(search.ravel()[k])
        peaks.append(peak)
        if done == niter:
            break
        if not peak > threshold:
            reason = "threshold" if peak > 0 else "zero"
            break
        j, i = divmod(k, n)
        rows, cols, prow, pcol = psf_window(n, psfs.shape[1], j, i)
        flux = gain * res[:, j, i]  # each channel's own value at the joint peak
        models[:, j, i] += flux
        res[:, rows, cols] -= flux[:, None, None] * psfs[:, prow, pcol]
        integrated[rows, cols] -= xp.tensordot(wx * flux, psfs[:, prow, pcol], axes=1)
        done += 1
    return JoinedResult(models, res, done, reason, np.asarray(peaks))
