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

*Joined planes* (WSClean's ``-join-channels -multiscale``, ``-join-polarizations
-multiscale``; :func:`joined_multiscale`): P planes (output channels or polarisations),
each with its own residual ``R_p`` and PSF, are CLEANed by the same loop on their stack.
Every scale's convolved images ``K_s ⊛ R_p`` are made per plane; the scale and the
position are chosen on the planes' *search image* of them (the channels' MFS mean, the
polarisations' root sum of squares: :mod:`uvlab.gpu.deconvolution.joined`) with the
scale biases, tclean's rule dividing by the joined PSF's ``(K_s ⊛ PSF)(0)`` (the planes'
linear combination of theirs); at that pixel plane p's component has the flux
``gain·(K_s ⊛ R_p)(x) / (K_s ⊛ K_s ⊛ PSF_p)(0)`` — its own residual and its own PSF's
normalisation (Radler divides every plane by the joined PSF's) — replaced, with
``-fit-spectral-pol``, by the polynomial fitted to the channels' fluxes; and plane p's
``R_p`` and ``K_s ⊛ R_p`` lose that flux times its own ``K_s ⊛ PSF_p`` and
``K_s ⊛ K_s ⊛ PSF_p``. The stop level and the peaks recorded are the search image's.
One plane (:func:`multiscale`) is the same loop with the residual its own search image.

The model image so holds the scale components convolved with their kernels, as
WSClean's model image does. The stop level (Jy/beam; on R's |peak|, or with tclean's
rule on every ``v_s``) is the one the driver gives Högbom
(:func:`~uvlab.gpu.deconvolution.levels.stop_level`).
Arrays are NumPy or CuPy alike (the residual's namespace); the peak of each
iteration is read on the host.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from uvlab.gpu.backend import get_xp, to_numpy
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
    Joined planes (:func:`joined_multiscale`): ``model`` and ``residual`` (P, N, N),
    ``comp_flux`` (ncomp, P), the peaks and RMS the search image's.

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

    ``psf``: (Q, Q), or (P, Q, Q) for joined planes, each plane's PSF convolved alike.
    ``unit``: what a peak of ``K ⊛ R`` is divided by before it meets the stop level (1;
    tclean's rule: ``(K ⊛ PSF)(0)``, per plane); ``norm``: a component's flux is
    ``gain·peak/norm`` (NumPy, per plane); ``bias``: the rank's factor after ``unit``.
    """

    def __init__(self, scale, bias, psf, n, tclean: bool = False):
        xp = get_xp(psf)
        p = psf.shape[-1]
        self.scale, self.bias = scale, float(bias)
        self.kernel = scale_kernel(scale, xp)
        if scale <= 0:
            self.kpsf = self.kkpsf = psf
            self.smooth = None
        else:
            conv_p = PsfConvolver(self.kernel, p)
            self.kpsf = _each(conv_p, psf)
            self.kkpsf = _each(conv_p, self.kpsf)
            self.smooth = PsfConvolver(self.kernel, n)
        peak = (self.kpsf if tclean else self.kkpsf)[..., p // 2, p // 2]
        self.norm = np.asarray(to_numpy(peak), dtype=np.float64)  # () or (P,)
        self.unit, self.tclean = 1.0, tclean
        if tclean:  # Cornwell 2008 / CASA's MatrixCleaner: peaks in a component's flux
            self.unit = self.norm

    def convolved(self, residual):
        """``K ⊛ residual`` of an (N, N) image or each plane of a (P, N, N) stack."""
        return residual if self.smooth is None else _each(self.smooth, residual)


def _each(convolve, images):
    """``convolve`` of an image, or of each plane of a stack (one convolver, its FFT kept)."""
    if images.ndim == 2:
        return convolve(images)
    return get_xp(images).stack([convolve(im) for im in images])


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
    info = prepared or prepare_scales(scales, scale_bias, psf, residual.shape[0], small_scale_bias)
    res = _minor(residual[None], psf.shape[-1], None, info, gain, niter, threshold, mask,
                 mgain_level, reason, scales)  # fmt: skip
    return replace(res, model=res.model[0], residual=residual, comp_flux=res.comp_flux[:, 0])


def joined_multiscale(
    residuals, psfs, planes, *, scales, scale_bias: float = SCALE_BIAS, gain: float = 0.1,
    niter: int = 1000, threshold: float = 0.0, mask=None, mgain_level: float = 0.0,
    reason: str = "threshold", prepared=None, small_scale_bias: float | None = None,
) -> MultiscaleResult:  # fmt: skip
    """Joined multiscale minor cycle of P planes (module docstring, *Joined planes*).

    Parameters
    ----------
    residuals : (P, N, N) float
        Each plane's residual, Jy/beam (NumPy or CuPy; kept, a copy is cleaned).
    psfs : (P, Q, Q) float, Q = N or 2N
        Each plane's PSF, peak 1 at ``[Q//2, Q//2]``.
    planes : JoinedChannels, JoinedPolarizations or JoinedChannelsPolarizations
        Their search image, linear combination and component values
        (:mod:`uvlab.gpu.deconvolution.joined`).
    scales, scale_bias, gain, niter, threshold, mask, mgain_level, reason, small_scale_bias
        As :func:`multiscale`'s; the threshold is the search image's.
    prepared : list of _Scale, optional
        :func:`prepare_scales`' of ``psfs`` (the stack).

    Returns
    -------
    MultiscaleResult
        ``model`` and ``residual`` (P, N, N), ``comp_flux`` (ncomp, P); the peaks and RMS
        are the search image's.

    Raises
    ------
    ValueError
        On shapes that do not match (one line).
    CleanDivergedError
        When the search image's peak grows past 1.5× its start or is not finite.
    """
    from uvlab.gpu.deconvolution.joined import checked_stacks

    res, psf = checked_stacks(residuals, psfs, planes)
    info = prepared or prepare_scales(scales, scale_bias, psf, res.shape[-1], small_scale_bias)
    return _minor(res, psf.shape[-1], planes, info, gain, niter, threshold, mask, mgain_level,
                  reason, scales)  # fmt: skip


def _minor(res, p, planes, info, gain, niter, threshold, mask, mgain_level, reason, scales):
    """The multiscale minor cycle of the (P, N, N) stack ``res`` (C-ordered, cleaned in place).

    ``planes`` None: one plane, its own search image (:func:`multiscale`); ``p`` the PSFs' side.
    """
    xp = get_xp(res)
    n = res.shape[-1]
    one = planes is None
    look = (lambda s: s[0]) if one else planes.search  # the image peaks are found on
    maskf = None if mask is None else xp.asarray(mask, dtype=xp.float64)
    masked = (lambda a: xp.abs(a)) if maskf is None else (lambda a: xp.abs(a) * maskf)
    tclean = info[0].tclean
    # a scale's peak is divided by its joined PSF's: the planes' linear combination
    units = [float(sc.unit if one or not tclean else planes.linear(sc.unit)) for sc in info]
    model = xp.zeros(res.shape, dtype=xp.float64)
    search = look(res)  # one plane: a view of it
    stop = float(threshold)
    peak0 = float(masked(search).max())
    if not math.isfinite(peak0):
        raise CleanDivergedError("the dirty image holds non-finite values: nothing to clean")
    limit = DIVERGENCE_FACTOR * peak0
    comps: list[tuple[int, int, int]] = []
    fluxes = []
    peaks, rms = [peak0], [float(xp.sqrt(xp.mean(search * search)))]
    while len(comps) < niter and (peaks[-1] > stop or tclean):
        smoothed = [sc.convolved(res) for sc in info]
        looks = [search if s is res else look(s) for s in smoothed]
        ranks, above = [], False
        for k, (sc, a) in enumerate(zip(info, looks, strict=True)):
            top = float(masked(a).max()) / units[k]
            above = above or top > stop
            if top > stop or k == 0:
                ranks.append((top * sc.bias, -k, k))
        if not above:
            break  # every scale's peak at or below the level
        _, _, k = max(ranks)
        sc, s, a = info[k], smoothed[k], looks[k]
        if s is res:
            s = None  # scale 0: the residual is its own convolved image
        kpsf, kkpsf = sc.kpsf.reshape(-1, p, p), sc.kkpsf.reshape(-1, p, p)
        norm = xp.asarray(sc.norm.reshape(-1))
        start = len(comps)
        sub_stop = None
        while len(comps) < niter:
            found = masked(search if s is None else a)
            at = int(found.argmax())
            top = float(found.reshape(-1)[at]) / units[k]
            sub_stop = max(stop, (1.0 - MULTISCALE_GAIN) * top) if sub_stop is None else sub_stop
            if not top > sub_stop or (peaks[-1] <= stop and not tclean):
                break
            j, i = divmod(at, n)
            flux = gain * (res if s is None else s)[:, j, i] / norm
            flux = flux if one else planes.values(flux)  # -fit-spectral-pol's fit
            rows, cols, prow, pcol = psf_window(n, p, j, i)
            res[:, rows, cols] -= flux[:, None, None] * kpsf[:, prow, pcol]
            if not one:
                search[rows, cols] = look(res[:, rows, cols])
            if s is not None:
                s[:, rows, cols] -= flux[:, None, None] * kkpsf[:, prow, pcol]
                if not one:
                    a[rows, cols] = look(s[:, rows, cols])
            krows, kcols, kr, kc = psf_window(n, sc.kernel.shape[0], j, i)
            model[:, krows, kcols] += flux[:, None, None] * sc.kernel[kr, kc]
            comps.append((j, i, k))
            fluxes.append(flux)
            peaks.append(float(masked(search).max()))
            rms.append(float(xp.sqrt(xp.mean(search * search))))
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
    c = np.asarray(comps, dtype=np.int64).reshape(-1, 3)
    flux = to_numpy(xp.stack(fluxes)) if fluxes else np.zeros((0, res.shape[0]))
    return MultiscaleResult(
        model, res, c[:, 0].copy(), c[:, 1].copy(), np.asarray(flux, dtype=np.float64),
        np.asarray(peaks), np.asarray(rms), stop, float(mgain_level), reason,
        tuple(float(s) for s in scales), c[:, 2].copy(),
    )  # fmt: skip


def tclean_biases(scales, small_scale_bias: float) -> np.ndarray:
    """tclean's scale biases: ``1 − b·s/s_max`` (CASA's MatrixCleaner; b = 0: all 1)."""
    s = np.asarray(scales, dtype=np.float64)
    top = s.max()
    return 1.0 - float(small_scale_bias) * (s / top if top > 0 else np.zeros_like(s))


def prepare_scales(
    scales, scale_bias: float, psf, n: int, small_scale_bias: float | None = None
) -> list[_Scale]:
    """Each scale's kernels and convolved PSFs (made once for a CLEAN); ``psf`` (Q, Q), or
    the (P, Q, Q) stack of joined planes' PSFs.

    ``small_scale_bias`` (tclean's) given: tclean's rule, its biases (:func:`tclean_biases`).
    """
    tclean = small_scale_bias is not None
    biases = tclean_biases(scales, small_scale_bias) if tclean else scale_biases(scales, scale_bias)
    return [_Scale(float(s), b, psf, n, tclean) for s, b in zip(scales, biases, strict=True)]
