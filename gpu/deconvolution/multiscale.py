"""Multiscale CLEAN's minor cycle (Cornwell 2008; Offringa & Smirnov 2017: WSClean's).

A component is a kernel of one of a few *scales* (diameters in pixels; scale 0 is a
point, Högbom's). The kernel of scale s > 0 is a Gaussian of σ = 3s/16 cut at radius
s/2 and normalised to sum 1, so a component's flux is the flux it adds to the model.
For each scale the minor cycle keeps the scale-convolved PSF ``K_s ⊛ PSF`` and the
twice-convolved ``K_s ⊛ K_s ⊛ PSF``. Then, until the stop level or ``niter``:

1. every scale's residual ``K_s ⊛ R`` is made (FFTs); its |peak| inside the mask,
   times the scale's bias ``β_s`` (:func:`scale_biases`), ranks the scales; the first
   scale whose peak is above the stop level and ranks highest is chosen;
2. the sub-minor loop on that scale: at the peak (j, i) of ``K_s ⊛ R`` with value
   ``v``, a component of flux ``A = gain·v / (K_s ⊛ K_s ⊛ PSF)(0)`` adds
   ``A·K_s`` to the model at (j, i) and subtracts ``A·(K_s ⊛ PSF)`` from R and
   ``A·(K_s ⊛ K_s ⊛ PSF)`` from ``K_s ⊛ R`` — until that peak falls to
   ``(1 − MULTISCALE_GAIN)·`` its start (WSClean's ``-multiscale-gain``) or the
   stop level, or R's peak to the stop level.

With ``small_scale_bias`` (tclean's ``smallscalebias``; Cornwell 2008, CASA's
MatrixCleaner) the scales are chosen, and CLEAN stops, as tclean does: each scale's peak
is normalised to the flux of the component that would explain it,
``v_s = peak(K_s ⊛ R) / (K_s ⊛ PSF)(0)``; the scales rank by ``v_s·(1 − b·s/s_max)``; a
component of flux ``gain·v_s`` is placed; CLEAN goes on while a scale's ``v_s`` is above
the stop level, though R's point peak is below it. A broad residual whose point peak is
under the level still holds flux above it on a large scale: tclean cleans it, WSClean's
rule (R's peak) leaves it (issue 29's field: 1.24σ against 1.44σ at S = 3).

The model image so holds the scale components convolved with their kernels, as
WSClean's model image does. The stop level (Jy/beam; on R's |peak|, or with tclean's
rule on every ``v_s``) is the one the driver gives Högbom
(:func:`~uvlab.gpu.deconvolution.driver.stop_level`).
Arrays are NumPy or CuPy alike (the residual's namespace); the peak of each
iteration is read on the host.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.hogbom import (
    DIVERGENCE_FACTOR,
    CleanDivergedError,
    CleanResult,
    psf_window,
)
from uvlab.gpu.deconvolution.subminor import PsfConvolver

#: WSClean's default -multiscale-scale-bias.
SCALE_BIAS = 0.6
#: A scale's sub-minor loop ends when its peak fell by this fraction (WSClean's -multiscale-gain).
MULTISCALE_GAIN = 0.2


@dataclass(frozen=True)
class MultiscaleResult(CleanResult):
    """A multiscale minor cycle: :class:`~uvlab.gpu.deconvolution.hogbom.CleanResult` and scales.

    ``model`` holds the components convolved with their kernels (Jy/pixel); ``comp_j``,
    ``comp_i`` are each component's centre and ``comp_flux`` its flux (the kernel's sum).

    Attributes
    ----------
    scales : tuple of float
        The scales, pixels (diameters; 0 a point).
    comp_scale : (ncomp,) int64
        Each component's index into ``scales``.
    """

    scales: tuple = ()
    comp_scale: np.ndarray | None = None


def beam_size_pixels(psf) -> float:
    """The PSF main lobe's FWHM in pixels, from its area above half the peak (a Gaussian's)."""
    xp = get_xp(psf)
    p = psf.shape[0]
    h = max(4, p // 8)  # the main lobe, not far sidelobes above half
    core = psf[p // 2 - h : p // 2 + h + 1, p // 2 - h : p // 2 + h + 1]
    area = float(xp.count_nonzero(core >= 0.5 * float(psf[p // 2, p // 2])))
    return math.sqrt(4.0 * area / math.pi)  # an ellipse of axes a, b above half: π·a·b/4


def default_scales(psf, npix: int) -> tuple[float, ...]:
    """WSClean's default scales: 0, then twice the beam size in pixels, doubling to N/2."""
    first = max(2.0 * beam_size_pixels(psf), 4.0)
    scales, s = [0.0], first
    while s <= npix / 2:
        scales.append(float(round(s, 3)))
        s *= 2.0
    return tuple(scales)


def scale_biases(scales, bias: float = SCALE_BIAS) -> np.ndarray:
    """``β_s``: 1 for scale 0 and the first scale, ``bias^(−log2(s/s₁))`` above it.

    A point source peaks highest on scale 0 (its scale-convolved peak falls faster than
    ``β`` grows); emission broader than a scale peaks alike on it and the next, so the
    larger wins. A smaller bias favours larger scales, as WSClean's does.
    """
    s = np.asarray(scales, dtype=np.float64)
    positive = s[s > 0]
    if positive.size == 0:
        return np.ones_like(s)
    s1 = positive.min()
    out = np.ones_like(s)
    out[s > 0] = bias ** (-np.log2(s[s > 0] / s1))
    return out


def scale_kernel(scale: float, xp=np):
    """The kernel of ``scale`` pixels: odd side, sum 1; [[1]] for scale 0."""
    if scale <= 0:
        return xp.ones((1, 1), dtype=xp.float64)
    r = max(1, math.ceil(scale / 2))
    y, x = np.mgrid[-r : r + 1, -r : r + 1]
    rr2 = (x * x + y * y).astype(np.float64)
    sigma = 3.0 * scale / 16.0
    k = np.exp(-0.5 * rr2 / sigma**2) * (rr2 <= (scale / 2) ** 2)
    return xp.asarray(k / k.sum())


class _Scale:
    """One scale's kernel, ``K ⊛ PSF``, ``K ⊛ K ⊛ PSF`` and the convolver of N² images.

    ``unit``: what a peak of ``K ⊛ R`` is divided by before it meets the stop level (1;
    tclean's rule: ``(K ⊛ PSF)(0)``); ``norm``: a component's flux is ``gain·peak/norm``;
    ``bias``: the rank's factor after ``unit``.
    """

    def __init__(self, scale, bias, psf, n, tclean: bool = False):
        xp = get_xp(psf)
        p = psf.shape[0]
        self.scale, self.bias = scale, float(bias)
        self.kernel = scale_kernel(scale, xp)
        if scale <= 0:
            self.kpsf = self.kkpsf = psf
            self.smooth = None
        else:
            conv_p = PsfConvolver(self.kernel, p)
            self.kpsf = conv_p(psf)
            self.kkpsf = conv_p(self.kpsf)
            self.smooth = PsfConvolver(self.kernel, n)
        self.norm = float(self.kkpsf[p // 2, p // 2])
        self.unit, self.tclean = 1.0, tclean
        if tclean:  # Cornwell 2008 / CASA's MatrixCleaner: peaks in a component's flux
            self.norm = self.unit = float(self.kpsf[p // 2, p // 2])

    def convolved(self, residual):
        return residual if self.smooth is None else self.smooth(residual)


def multiscale(
    dirty,
    psf,
    *,
    scales,
    scale_bias: float = SCALE_BIAS,
    gain: float = 0.1,
    niter: int = 1000,
    threshold: float = 0.0,
    mask=None,
    mgain_level: float = 0.0,
    reason: str = "threshold",
    prepared=None,
    small_scale_bias: float | None = None,
) -> MultiscaleResult:
    """A multiscale minor cycle on ``dirty`` down to ``threshold`` (see the module docstring).

    Parameters
    ----------
    dirty : (N, N) float
        Residual image, Jy/beam (NumPy or CuPy; the result follows).
    psf : (P, P) float, P = N or 2N
        Peak 1 at ``[P//2, P//2]``.
    scales : sequence of float
        Scales in pixels (:func:`default_scales`).
    scale_bias : float
        :func:`scale_biases`' bias.
    gain : float
        Loop gain of each component.
    niter : int
        Components at most.
    threshold : float
        The stop level on R's |peak|, Jy/beam (the driver's, levels combined).
    mask : (N, N) bool, optional
        Component centres only where True.
    mgain_level, reason : float, str
        Reported as :class:`CleanResult` reports them (the level's name when it stops there).
    prepared : list of _Scale, optional
        :func:`prepare_scales`' for these scales and PSF (kept between cycles), made with
        the same ``small_scale_bias``.
    small_scale_bias : float, optional
        tclean's ``smallscalebias`` in [−1, 1]: choose and stop as tclean does (see the
        module docstring; ``scale_bias`` is then unused). None: WSClean's rule.

    Raises
    ------
    CleanDivergedError
        When R's peak grows past 1.5× the start or is not finite.
    """
    xp = get_xp(dirty)
    residual = xp.array(dirty, dtype=xp.float64, order="C")
    psf = xp.asarray(psf, dtype=xp.float64)
    n, p = residual.shape[0], psf.shape[0]
    info = prepared or prepare_scales(scales, scale_bias, psf, n, small_scale_bias)
    tclean = info[0].tclean
    maskf = None if mask is None else xp.asarray(mask, dtype=xp.float64)
    model = xp.zeros((n, n), dtype=xp.float64)
    masked = (lambda a: xp.abs(a)) if maskf is None else (lambda a: xp.abs(a) * maskf)
    stop = float(threshold)
    peak0 = float(masked(residual).max())
    if not math.isfinite(peak0):
        raise CleanDivergedError("the dirty image holds non-finite values: nothing to clean")
    limit = DIVERGENCE_FACTOR * peak0
    comps: list[tuple[int, int, float, int]] = []
    peaks, rms = [peak0], [float(xp.sqrt(xp.mean(residual * residual)))]
    while len(comps) < niter and (peaks[-1] > stop or tclean):
        smoothed = [sc.convolved(residual) for sc in info]
        ranks, above = [], False
        for k, (sc, s) in enumerate(zip(info, smoothed, strict=True)):
            top = float(masked(s).max()) / sc.unit
            above = above or top > stop
            if top > stop or k == 0:
                ranks.append((top * sc.bias, -k, k))
        if not above:
            break  # every scale's peak at or below the level
        _, _, k = max(ranks)
        sc, s = info[k], smoothed[k]
        start = len(comps)
        if s is residual:
            s = None  # scale 0: the residual is its own convolved image
        sub_stop = None
        while len(comps) < niter:
            search = masked(residual if s is None else s)
            at = int(search.argmax())
            top = float(search.reshape(-1)[at]) / sc.unit
            sub_stop = max(stop, (1.0 - MULTISCALE_GAIN) * top) if sub_stop is None else sub_stop
            if not top > sub_stop or (peaks[-1] <= stop and not tclean):
                break
            j, i = divmod(at, n)
            value = float((residual if s is None else s)[j, i])
            flux = gain * value / sc.norm
            rows, cols, prow, pcol = psf_window(n, p, j, i)
            residual[rows, cols] -= flux * sc.kpsf[prow, pcol]
            if s is not None:
                s[rows, cols] -= flux * sc.kkpsf[prow, pcol]
            krows, kcols, kr, kc = psf_window(n, sc.kernel.shape[0], j, i)
            model[krows, kcols] += flux * sc.kernel[kr, kc]
            comps.append((j, i, flux, k))
            peaks.append(float(masked(residual).max()))
            rms.append(float(xp.sqrt(xp.mean(residual * residual))))
            if not peaks[-1] <= limit:
                raise CleanDivergedError(
                    f"multiscale CLEAN diverged at iteration {len(comps)}: the residual peak "
                    f"{peaks[-1]:.4g} Jy/beam grew past {DIVERGENCE_FACTOR:g}× the starting "
                    f"{peak0:.4g} Jy/beam"
                )
        if sub_stop is not None and len(comps) == start:
            break
    if peaks[-1] == 0.0:
        reason = "zero"
    elif len(comps) >= niter or (peaks[-1] > stop and not tclean):
        reason = "niter"
    c = np.asarray(comps, dtype=np.float64).reshape(-1, 4)
    return MultiscaleResult(
        model, residual, c[:, 0].astype(np.int64), c[:, 1].astype(np.int64), c[:, 2].copy(),
        np.asarray(peaks), np.asarray(rms), stop, float(mgain_level), reason,
        tuple(float(s) for s in scales), c[:, 3].astype(np.int64),
    )  # fmt: skip


def tclean_biases(scales, small_scale_bias: float) -> np.ndarray:
    """tclean's scale biases: ``1 − b·s/s_max`` (CASA's MatrixCleaner; b = 0: all 1)."""
    s = np.asarray(scales, dtype=np.float64)
    top = s.max()
    return 1.0 - float(small_scale_bias) * (s / top if top > 0 else np.zeros_like(s))


def prepare_scales(
    scales, scale_bias: float, psf, n: int, small_scale_bias: float | None = None
) -> list[_Scale]:
    """Each scale's kernels and convolved PSFs (made once for a CLEAN).

    ``small_scale_bias`` (tclean's) given: tclean's rule, its biases (:func:`tclean_biases`).
    """
    tclean = small_scale_bias is not None
    biases = tclean_biases(scales, small_scale_bias) if tclean else scale_biases(scales, scale_bias)
    return [_Scale(float(s), b, psf, n, tclean) for s, b in zip(scales, biases, strict=True)]
