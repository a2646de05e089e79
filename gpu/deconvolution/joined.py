"""Joined-channel CLEAN: WSClean's ``-join-channels`` minor loop (Offringa & Smirnov 2017, §2).

C output channels, each with its own residual image and its own PSF, are CLEANed
together. Each iteration (Radler's joined Högbom, WSClean's "wideband deconvolution"):

1. the peak is found on the MFS residual, the channels' weighted mean
   ``R = Σ_c W_c·R_c / Σ_c W_c`` (W_c: each channel's Σ of imaging weights, the weights
   of WSClean's MFS image), its |value| inside the mask;
2. at that pixel every channel's residual value ``R_c(x)`` is taken; with
   ``-fit-spectral-pol K`` they are replaced by the K-term polynomial fitted to them
   (:class:`~uvlab.gpu.deconvolution.spectral_fit.SpectralFit`, as Radler fits at each
   iteration);
3. channel c gets the component ``gain·R_c(x)`` at x, and its own PSF, shifted there
   and scaled alike, is subtracted from its own residual.

So a source's component spectrum follows its spectrum, channel by channel, while the
peaks are found at the MFS image's signal-to-noise. The stop level and the peaks
recorded are the MFS residual's. Arrays are NumPy or CuPy alike (one ``xp`` body); the
driver (:func:`~uvlab.gpu.deconvolution.driver.iter_clean` with ``channels``) runs
the cycles, Cotton–Schwab's major cycles per channel (:class:`JoinedMajor`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.hogbom import (
    DIVERGENCE_FACTOR,
    CleanDivergedError,
    CleanResult,
    psf_window,
)


@dataclass(frozen=True, eq=False)
class JoinedChannels:
    """The channels CLEANed jointly.

    Attributes
    ----------
    weights : (C,) float
        Each channel's weight in the MFS mean (its Σ of imaging weights), ≥ 0, not all 0.
    fit : SpectralFit or None
        ``-fit-spectral-pol``: each component's channel values replaced by the fit.
    """

    weights: tuple
    fit: object = None

    def __post_init__(self):
        w = np.asarray(self.weights, dtype=np.float64).ravel()
        if not (w.size and np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
            raise ValueError(f"joined channels need weights ≥ 0, not all 0, got {w.tolist()}")
        if self.fit is not None and len(self.fit.weights) != w.size:
            raise ValueError(f"a spectral fit over {len(self.fit.weights)} of {w.size} channels")
        object.__setattr__(self, "weights", tuple(w.tolist()))

    @property
    def nchan(self) -> int:
        return len(self.weights)

    def normalised(self, xp):
        """(C,) W_c / Σ W, on ``xp``."""
        w = np.asarray(self.weights)
        return xp.asarray(w / w.sum())

    def mean(self, stack):
        """The MFS image Σ_c W_c·stack_c / Σ W of a (C, ...) stack, in its namespace."""
        xp = get_xp(stack)
        return xp.tensordot(self.normalised(xp), stack, axes=1)


def joined_hogbom(
    residuals, psfs, channels: JoinedChannels, *, gain: float = 0.1, niter: int = 1000,
    threshold: float = 0.0, mask=None,
) -> CleanResult:  # fmt: skip
    """Högbom's joined minor cycle (module docstring) down to ``threshold`` on the MFS residual.

    Parameters
    ----------
    residuals : (C, N, N) float
        Each channel's residual, Jy/beam (NumPy or CuPy; kept, a copy is cleaned).
    psfs : (C, P, P) float, P = N or 2N
        Each channel's PSF, peak 1 at ``[P//2, P//2]``.
    channels : JoinedChannels
    gain, niter, threshold, mask
        As :func:`~uvlab.gpu.deconvolution.hogbom.hogbom`'s; the threshold is the MFS
        residual's.

    Raises
    ------
    ValueError
        On shapes that do not match (one line).
    CleanDivergedError
        When the MFS peak grows past 1.5× its start or is not finite.
    """
    xp = get_xp(residuals)
    res = xp.array(residuals, dtype=xp.float64, order="C")
    psf = xp.ascontiguousarray(xp.asarray(psfs, dtype=xp.float64))
    c, n = channels.nchan, res.shape[-1]
    if res.shape != (c, n, n) or psf.ndim != 3 or psf.shape[0] != c:
        raise ValueError(f"{c} channels need residuals (C, N, N) and PSFs (C, P, P), got "
                         f"{tuple(res.shape)} and {tuple(psf.shape)}")  # fmt: skip
    p = psf.shape[-1]
    if psf.shape[1] != p or p not in (n, 2 * n):
        raise ValueError(f"the PSFs must be ({c}, {n}, {n}) or ({c}, {2 * n}, {2 * n})")
    wn = channels.normalised(xp)
    proj = None if channels.fit is None else xp.asarray(channels.fit.projection())
    maskf = None if mask is None else xp.asarray(mask, dtype=xp.float64)
    mfs = xp.tensordot(wn, res, axes=1)
    pos, flux, peaks, rms = [], [], [], []
    stop, limit = float(threshold), None
    for _ in range(int(niter) + 1):
        a = xp.abs(mfs) if maskf is None else xp.abs(mfs) * maskf
        k = int(xp.argmax(a))
        peaks.append(float(a.reshape(-1)[k]))
        rms.append(float(xp.sqrt(xp.mean(mfs * mfs))))
        peak = peaks[-1]
        limit = DIVERGENCE_FACTOR * peak if limit is None else limit
        if len(pos) == niter or not (peak > stop) or not peak <= limit:
            break
        j, i = divmod(k, n)
        values = res[:, j, i]
        if proj is not None:
            values = proj @ values
        f = gain * values
        rows, cols, prow, pcol = psf_window(n, p, j, i)
        res[:, rows, cols] -= f[:, None, None] * psf[:, prow, pcol]
        mfs[rows, cols] = xp.tensordot(wn, res[:, rows, cols], axes=1)
        pos.append(k)
        flux.append(f)
    peak = np.asarray(peaks)
    if not np.isfinite(peak).all() or (peak > limit).any():
        raise CleanDivergedError(
            f"joined CLEAN diverged: the MFS residual peak {peak[-1]:.4g} Jy/beam grew past "
            f"{DIVERGENCE_FACTOR:g}× the starting {peak[0]:.4g} Jy/beam"
        )
    if len(pos) == niter and peak[-1] > stop:
        reason = "niter"
    else:
        reason = "zero" if peak[-1] == 0.0 else "threshold"
    comp = xp.stack(flux) if flux else xp.zeros((0, c), dtype=xp.float64)
    comp = np.asarray(comp.get() if xp is not np else comp, dtype=np.float64)
    j, i = np.divmod(np.asarray(pos, dtype=np.int64), n)
    model = xp.zeros((c, n * n), dtype=xp.float64)
    if pos:
        for ch in range(c):  # repeated pixels add up, in CLEAN's order
            xp.add.at(model[ch], xp.asarray(pos), xp.asarray(comp[:, ch]))
    return CleanResult(  # model and residual (C, N, N), comp_flux (m, C); no mgain level
        model.reshape(c, n, n), res, j, i, comp, peak, np.asarray(rms), stop, 0.0, reason
    )


class JoinedMajor:
    """Cotton–Schwab's major cycle of each channel: ``residual(models)`` → (C, N, N).

    ``majors``: one :class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle` per channel,
    each on that channel's visibilities; channel c's residual is made from its model c.
    """

    def __init__(self, majors):
        self.majors = list(majors)

    def residual(self, model):
        """Each channel's residual image of its visibilities minus its model (None: dirty)."""
        images = [m.residual(None if model is None else model[c]) for c, m in
                  enumerate(self.majors)]  # fmt: skip
        xp = get_xp(images[0])
        return xp.stack(images)
