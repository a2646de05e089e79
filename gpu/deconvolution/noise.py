"""The residual's noise σ for auto-threshold and auto-mask, robust to extended emission (issue 29).

The median absolute deviation of the residual (``1.4826·MAD``; WSClean's auto-threshold
σ is the residual's RMS or MAD) is the noise's σ only where most pixels are noise:
uncleaned extended emission and its sidelobes make it tens of times the thermal σ.
Extended emission has its power on the short baselines, the noise on all of them.
:func:`robust_sigma` so measures the noise on the long baselines only:

1. the image, tapered to zero at its edges (a cosine over the outer quarter each side,
   so no edge leaks power to long spacings), is Fourier transformed;
2. the spatial frequencies holding the inner :data:`INNER_WEIGHT` of the imaging
   weights (the PSF's transform) are set to zero;
3. σ′ = 1.4826·MAD of the inverse transform in the image's central half;
4. σ = σ′/c, with c the same measurement's ratio on a simulated noise image of unit σ
   whose correlation is the PSF (the thermal noise's for natural weights), made with a
   fixed seed.

Point sources still count as they count in the MAD (the median ignores their few
pixels; their sidelobes, at all spacings, do not cancel).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.hogbom import MAD_TO_SIGMA

#: The fraction of the imaging weights, from the shortest spacings out, left out of σ.
INNER_WEIGHT = 0.7
#: The seed of the simulated noise that calibrates the estimate.
_SEED = 29


def _spectrum(psf, n: int, xp):
    """The imaging weights on the N² image's FFT grid: FFT(PSF) ≥ 0, sampled every P/N cells.

    The truncated PSF's transform rings below zero where no weights are: those cells are 0.
    """
    p = psf.shape[0]
    w = xp.maximum(xp.fft.fft2(xp.fft.ifftshift(psf)).real, 0.0)
    return w[:: p // n, :: p // n] if p != n else w


def _taper(n: int, xp):
    x = np.arange(n)
    t = np.clip(np.minimum(x, n - 1 - x) / (n / 4), 0.0, 1.0)
    t = 0.5 - 0.5 * np.cos(np.pi * t)
    return xp.asarray(np.outer(t, t))


def _highpass_mad(image, keep, taper) -> float:
    xp = get_xp(image)
    n = image.shape[0]
    out = xp.fft.ifft2(xp.fft.fft2(image * taper) * keep).real[
        n // 4 : 3 * n // 4, n // 4 : 3 * n // 4
    ]
    return MAD_TO_SIGMA * float(xp.median(xp.abs(out - xp.median(out))))


def robust_sigma(image, psf) -> float:
    """σ of the thermal noise in ``image``, which extended emission does not inflate.

    Parameters
    ----------
    image : (N, N) float
        A residual or dirty image, Jy/beam (NumPy or CuPy).
    psf : (P, P) float, P = N or 2N
        Its PSF, peak 1 at ``[P//2, P//2]``.
    """
    xp = get_xp(image)
    n, p = image.shape[0], psf.shape[0]
    psf = xp.asarray(psf, dtype=xp.float64)
    weights = _spectrum(psf, n, xp)
    f = xp.fft.fftfreq(n)
    radius = xp.hypot(f[:, None], f[None, :]).ravel()
    order = xp.argsort(radius)
    cum = xp.cumsum(weights.ravel()[order]) / weights.sum()
    k0 = float(radius[order][int(xp.searchsorted(cum, INNER_WEIGHT))])
    keep = (radius >= k0).reshape(n, n).astype(xp.float64)
    taper = _taper(n, xp)
    # noise correlated as the PSF: white noise shaped by √(its transform) on the PSF's grid
    white = xp.asarray(np.random.default_rng(_SEED).normal(size=(p, p)))
    shape = xp.sqrt(_spectrum(psf, p, xp))
    sim = xp.fft.ifft2(xp.fft.fft2(white) * shape).real[:n, :n]
    calibration = _highpass_mad(sim, keep, taper) / float(sim.std())
    return _highpass_mad(xp.asarray(image, dtype=xp.float64), keep, taper) / calibration
