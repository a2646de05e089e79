"""Högbom CLEAN in the image plane (Högbom 1974, A&AS 15, 417).

Each minor iteration finds the residual's largest absolute value (inside the
mask), adds ``gain`` times it to the model at that pixel and subtracts the PSF,
shifted there and scaled alike, from the residual. It stops at ``niter``
iterations, or when the peak falls to the stop level:

``stop = max(threshold, S·1.4826·MAD(dirty), (1 − mgain)·peak₀)``

with ``S`` the auto-threshold, ``MAD`` the median absolute deviation of the
residual at the start (σ of Gaussian noise is 1.4826·MAD) and ``peak₀`` the
starting peak. A minor cycle that reaches the mgain level ends with
``stop_reason == "mgain"``, which a Cotton–Schwab loop reads to start the next
major cycle (the level itself: :attr:`CleanResult.mgain_level`).

The PSF has side P = N or 2N with its peak (1) at ``[P//2, P//2]``, as
:func:`uvlab.gpu.imaging.imager.make_image` lays it out (P = N: a component
far from the centre subtracts only the part of the PSF that overlaps the image).

On CuPy the loop runs a batch of iterations on the device between host
reads: the peak's index stays on the device, a kernel subtracts the shifted
PSF (:mod:`uvlab.gpu.deconvolution.cuda_hogbom`), and once the stop level is
reached the remaining iterations of the batch subtract nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp

#: σ of Gaussian noise per unit median absolute deviation.
MAD_TO_SIGMA = 1.4826
#: The residual peak may grow to this many times the starting peak before CLEAN is stopped.
DIVERGENCE_FACTOR = 1.5


class CleanDivergedError(RuntimeError):
    """The residual peak grew (or went non-finite): CLEAN stopped. One-line message."""


@dataclass(frozen=True)
class CleanResult:
    """What a Högbom minor cycle made.

    Attributes
    ----------
    model : (N, N) float64
        Clean components summed per pixel, Jy/pixel (the dirty image's namespace).
    residual : (N, N) float64
        Dirty image minus model ⊛ PSF, Jy/beam.
    comp_j, comp_i : (ncomp,) int64
        Row and column of each iteration's component (NumPy, in order).
    comp_flux : (ncomp,) float64
        Its flux, Jy.
    peak, rms : (ncomp + 1,) float64
        Residual |peak| and RMS before each iteration and after the last, Jy/beam (NumPy).
    threshold : float
        The stop level used, Jy/beam (threshold, auto-threshold and mgain combined).
    mgain_level : float
        ``(1 − mgain)·peak₀``: where the minor cycle hands back to a major cycle (0 without mgain).
    stop_reason : str
        ``"niter"``, ``"threshold"``, ``"auto-threshold"``, ``"mgain"`` or ``"zero"``
        (nothing left to clean).
    """

    model: object
    residual: object
    comp_j: np.ndarray
    comp_i: np.ndarray
    comp_flux: np.ndarray
    peak: np.ndarray
    rms: np.ndarray
    threshold: float
    mgain_level: float
    stop_reason: str

    @property
    def iterations(self) -> int:
        """Components found (a joined cycle's ``comp_flux`` is (m, C): m of them)."""
        return int(self.comp_j.size)


def auto_sigma(image) -> float:
    """σ from the median absolute deviation: ``1.4826·median(|x − median(x)|)``."""
    xp = get_xp(image)
    x = image.ravel()
    return float(MAD_TO_SIGMA * xp.median(xp.abs(x - xp.median(x))))


def hogbom(
    dirty,
    psf,
    *,
    gain: float = 0.1,
    niter: int = 1000,
    threshold: float = 0.0,
    auto_threshold: float | None = None,
    mgain: float | None = None,
    mask=None,
    batch: int = 64,
    active_max: int | None = None,
) -> CleanResult:
    """Högbom CLEAN of ``dirty`` with ``psf``.

    Parameters
    ----------
    dirty : (N, N) float
        Dirty (or residual) image, Jy/beam; numpy or cupy, the result follows.
    psf : (P, P) float, P = N or 2N
        PSF with its peak 1 at ``[P//2, P//2]``.
    gain : float
        Loop gain, 0 < gain ≤ 1.
    niter : int
        Most minor iterations (≥ 0).
    threshold : float
        Stop when the residual's |peak| is at or below this, Jy/beam.
    auto_threshold : float, optional
        S: stop at S·σ, σ from the residual's MAD at the start (:func:`auto_sigma`).
    mgain : float, optional
        0 < mgain ≤ 1: stop when the peak falls to (1 − mgain)·peak₀.
    mask : (N, N) bool, optional
        Components only where True (:func:`~uvlab.gpu.deconvolution.mask.box_mask`).
    batch : int
        CuPy: iterations run on the device between host reads.
    active_max : int, optional
        None: every iteration searches and updates the whole image (Högbom). k: WSClean's
        sub-minor loop on at most k of the brightest pixels, the residual brought up to
        date by one FFT convolution per sub-loop
        (:mod:`uvlab.gpu.deconvolution.subminor`; the RMS is NaN inside a sub-loop), where
        k is under a quarter of the image's pixels (on smaller images the whole-image loop
        costs no more).

    Raises
    ------
    ValueError
        On bad shapes or parameters (one line).
    CleanDivergedError
        When the residual peak grows past 1.5× the starting peak or is not finite.
    """
    xp = get_xp(dirty)
    # a C-ordered copy: the caller's image is kept, and the loops update it through flat views
    # (an F-ordered dirty image, as the NumPy conv gridder returns, would be copied by ravel)
    residual = xp.array(dirty, dtype=xp.float64, order="C")
    psf = xp.ascontiguousarray(xp.asarray(psf, dtype=xp.float64))
    _check(residual, psf, gain, niter, threshold, auto_threshold, mgain, mask, active_max)
    n = residual.shape[0]
    maskf = None if mask is None else xp.asarray(mask, dtype=xp.float64)
    search = residual if maskf is None else residual * maskf
    peak0 = float(xp.abs(search).max())
    if not np.isfinite(peak0):
        raise CleanDivergedError("the dirty image holds non-finite values: nothing to clean")
    levels = {"threshold": float(threshold)}
    if auto_threshold:
        levels["auto-threshold"] = float(auto_threshold) * auto_sigma(residual)
    mgain_level = (1.0 - float(mgain)) * peak0 if mgain is not None else 0.0
    if mgain is not None:
        levels["mgain"] = mgain_level
    reason, stop = max(levels.items(), key=lambda kv: kv[1])
    limit = DIVERGENCE_FACTOR * peak0
    if active_max is not None and 4 * int(active_max) < n * n:  # else the whole image is no more
        from uvlab.gpu.deconvolution.subminor import loop_subminor

        pos, flux, peak, rms, n_done = loop_subminor(
            residual, psf, maskf, gain, niter, stop, limit, active_max
        )
    elif xp is np:
        pos, flux, peak, rms, n_done = _loop_numpy(residual, psf, maskf, gain, niter, stop, limit)
    else:
        from uvlab.gpu.deconvolution.cuda_hogbom import loop_cupy

        pos, flux, peak, rms, n_done = loop_cupy(
            residual, psf, maskf, gain, niter, stop, limit, batch
        )
    bad = ~np.isfinite(peak) | (peak > limit)
    if bad.any():
        k = int(np.argmax(bad))
        raise CleanDivergedError(
            f"CLEAN diverged at iteration {k}: the residual peak {peak[k]:.4g} Jy/beam grew past "
            f"{DIVERGENCE_FACTOR:g}× the starting {peak0:.4g} Jy/beam (gain too high, or a PSF "
            "not normalised to 1?)"
        )
    if n_done < niter:
        final = peak[n_done]
        if final == 0.0:
            reason = "zero"
        elif final > stop:  # cannot happen: a loop ends early only at the stop level
            raise AssertionError("CLEAN stopped above its stop level")
    else:
        reason = "niter" if peak[n_done] > stop else reason
    model = xp.zeros(n * n, dtype=xp.float64)
    xp.add.at(model, xp.asarray(pos), xp.asarray(flux))  # repeated pixels add up
    j, i = np.divmod(pos.astype(np.int64), n)
    return CleanResult(
        model.reshape(n, n), residual, j, i, flux, peak, rms, stop, mgain_level, reason
    )


def _check(residual, psf, gain, niter, threshold, auto_threshold, mgain, mask, active_max) -> None:
    if residual.ndim != 2 or residual.shape[0] != residual.shape[1]:
        raise ValueError(f"the dirty image must be square (N, N), got shape {residual.shape}")
    n = residual.shape[0]
    if psf.ndim != 2 or psf.shape[0] != psf.shape[1] or psf.shape[0] not in (n, 2 * n):
        raise ValueError(f"the PSF must be ({n}, {n}) or ({2 * n}, {2 * n}), got {psf.shape}")
    if not 0.0 < gain <= 1.0:
        raise ValueError(f"gain must be in (0, 1], got {gain}")
    if int(niter) != niter or niter < 0:
        raise ValueError(f"niter must be a whole number ≥ 0, got {niter}")
    if not (threshold >= 0.0 and np.isfinite(threshold)):
        raise ValueError(f"threshold must be ≥ 0 Jy/beam, got {threshold}")
    if auto_threshold is not None and not (auto_threshold >= 0.0 and np.isfinite(auto_threshold)):
        raise ValueError(f"auto-threshold must be ≥ 0 (σ), got {auto_threshold}")
    if mgain is not None and not 0.0 < mgain <= 1.0:
        raise ValueError(f"mgain must be in (0, 1], got {mgain}")
    if active_max is not None and not (int(active_max) == active_max and active_max >= 1):
        raise ValueError(f"active_max must be a whole number ≥ 1, got {active_max}")
    if mask is not None and tuple(mask.shape) != (n, n):
        raise ValueError(f"the mask must be ({n}, {n}), got {tuple(mask.shape)}")


def psf_window(n: int, p: int, j: int, i: int):
    """Slices (image rows, image cols, PSF rows, PSF cols) of the PSF centred on pixel (j, i)."""
    c = p // 2
    r0, r1 = max(0, j - c), min(n, j - c + p)
    c0, c1 = max(0, i - c), min(n, i - c + p)
    return (
        slice(r0, r1),
        slice(c0, c1),
        slice(r0 - j + c, r1 - j + c),
        slice(c0 - i + c, c1 - i + c),
    )


def _loop_numpy(residual, psf, maskf, gain, niter, stop, limit):
    """The minor cycle on the host; ``residual`` is updated in place.

    Returns (flat positions, fluxes, peaks, rms, iterations done); peaks and
    rms have one more entry than iterations done (the state after the last).
    """
    n, p = residual.shape[0], psf.shape[0]
    flat = residual.ravel()
    buf = np.empty_like(residual)
    pos, flux, peaks, rms = [], [], [], []
    for _ in range(int(niter) + 1):
        if maskf is None:
            hi, lo = int(flat.argmax()), int(flat.argmin())
            k = hi if abs(flat[hi]) >= abs(flat[lo]) else lo
        else:
            np.abs(residual, out=buf)
            buf *= maskf
            k = int(buf.argmax())
        value = float(flat[k])
        peaks.append(abs(value) if maskf is None else float(buf.flat[k]))
        rms.append(float(np.sqrt(np.vdot(flat, flat) / flat.size)))
        peak = peaks[-1]
        if len(pos) == niter or not (peak > stop) or not peak <= limit:
            break  # niter reached, the stop level, or diverged (the caller raises)
        j, i = divmod(k, n)
        rows, cols, prow, pcol = psf_window(n, p, j, i)
        f = gain * value
        residual[rows, cols] -= f * psf[prow, pcol]
        pos.append(k)
        flux.append(f)
    return (
        np.asarray(pos, dtype=np.int64),
        np.asarray(flux, dtype=np.float64),
        np.asarray(peaks),
        np.asarray(rms),
        len(pos),
    )
