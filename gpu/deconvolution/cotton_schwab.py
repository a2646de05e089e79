"""Cotton–Schwab CLEAN: Högbom minor cycles between major cycles in the visibilities.

Schwab (1984, AJ 89, 1076). Each major cycle subtracts the model from the
*visibilities* — ``V_res = V − D(model)``, with ``D`` the degridder
(:func:`uvlab.gpu.degridding.degrid`) — and grids the weighted residual
visibilities anew (``I_res = Re G(w·V_res) / Σw``, the dirty image's
normalisation), so that the minor cycles' approximate image-plane subtraction
(the PSF, shifted) never accumulates: what the residual image shows is exactly
what the data still hold. A minor cycle (:func:`uvlab.gpu.deconvolution.hogbom`,
by default as WSClean's sub-minor loop on the brightest pixels,
:mod:`uvlab.gpu.deconvolution.subminor`) runs until the peak falls to
``(1 − mgain)·peak`` (WSClean's ``-mgain``, CASA's
cyclefactor plays the same part), the threshold, or ``niter`` iterations in all.

Gridder and degridder are one algorithm with the same
:class:`~uvlab.gpu.gridders.params.GridParams` (an exact adjoint pair, with
the w-term when ``params.wstack``: every gridder of the catalogue has its
degridder); the DFT, which is no gridder, takes ``conv``'s major cycles.
Arrays are NumPy or CuPy alike (the gridder and degridder of the inputs'
namespace).

The cycles themselves are the one CLEAN driver's
(:func:`uvlab.gpu.deconvolution.driver.iter_clean`), to which a :class:`MajorCycle`
gives the residual of the visibilities; :func:`cotton_schwab` drives it on
visibilities already selected and weighted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.options import MAX_MAJOR
from uvlab.gpu.deconvolution.subminor import ACTIVE_MAX


@dataclass(frozen=True)
class MajorCycles:
    """What Cotton–Schwab CLEAN made.

    Attributes
    ----------
    model : (N, N) float64
        Jy/pixel (the inputs' namespace).
    residual : (N, N) float64
        The image of the residual visibilities after the last major cycle, Jy/beam.
    iterations : int
        Minor iterations in all.
    majors : int
        Major cycles run (residual visibilities formed after each minor cycle).
    stop_reason : str
        What ended the last minor cycle: ``niter``, ``threshold``, ``zero``, ``mgain``
        (the major-cycle limit reached), or ``converged`` (a cycle cleaned nothing).
    peak, rms : (iterations + 1,) float64
        Residual |peak| and RMS at the start and after each minor iteration; at the end
        of a major cycle those of its residual (NumPy; the window plots them).
    major_peaks : (majors + 1,) float64
        The residual image's |peak| at the start of each major cycle and at the end.
    """

    model: object
    residual: object
    iterations: int
    majors: int
    stop_reason: str
    peak: np.ndarray
    rms: np.ndarray
    major_peaks: np.ndarray


def major_cycle_pair(algorithm: str, params, xp):
    """(grid, degrid) of one algorithm with the same GridParams: an exact adjoint pair.

    The DFT (no gridder) takes ``conv``'s at ε = 1e-6 (keeping ``params.wstack``); every
    gridder has its own degridder. ``grid(u, v, wvis, spec, w=None)`` and
    ``degrid(image, u, v, spec, w=None)`` run on ``xp``; with ``params.wstack`` and ``w``
    (wavelengths) both include the w-term, so a major cycle subtracts the model with the
    w-term the dirty image was made with.
    """
    from uvlab.gpu.degridding import degrid
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm as record
    from uvlab.gpu.gridders.registry import get_gridder

    rec = record(algorithm)
    if rec.degrid is None or not rec.is_gridder:
        wstack = bool(params is not None and params.wstack)
        algorithm, params = "conv", GridParams.from_eps(1e-6, wstack=wstack)
    params = params or GridParams()
    gridder = get_gridder(algorithm, xp=xp)

    def grid(u, v, wvis, spec, w=None):
        return gridder(u, v, wvis, spec, params, w=w)

    def degrid_fn(image, u, v, spec, w=None):
        return degrid(image, u, v, spec, algorithm, params, w=w)

    return grid, degrid_fn


def residual_image(u, v, vis, weight, model, spec, grid, degrid_fn, wsum: float, w=None):
    """``Re G(w·(V − D(model))) / Σw`` on ``spec``'s grid (the dirty image's normalisation).

    ``w`` (wavelengths, optional) goes to both the degridder and the gridder.
    """
    xp = get_xp(u)
    res = vis - degrid_fn(model, u, v, spec, w=w) if model is not None else vis
    return xp.asarray(grid(u, v, weight * res, spec, w=w), dtype=xp.float64) / wsum


class MajorCycle:
    """Cotton–Schwab's major cycle on selected, weighted visibilities: ``residual(model)``.

    ``residual(model)`` is ``Re G(w·(V − D(model))) / Σw`` (:func:`residual_image`; no
    model: the gridder's own dirty image), in the namespace of ``u``; ``w``
    (wavelengths) goes to every grid and degrid when the pair corrects the w-term.
    """

    def __init__(self, u, v, vis, weight, spec, grid, degrid_fn, w=None):
        self.u, self.v, self.vis, self.weight, self.w = u, v, vis, weight, w
        self.spec, self.grid, self.degrid_fn = spec, grid, degrid_fn
        self.wsum = float(weight.sum())
        if not self.wsum > 0:
            raise ValueError("the imaging weights sum to zero: nothing to clean")

    def residual(self, model):
        """The residual image of the visibilities minus ``model``'s, (N, N) float64."""
        return residual_image(
            self.u, self.v, self.vis, self.weight, model, self.spec, self.grid, self.degrid_fn,
            self.wsum, w=self.w,
        )  # fmt: skip


def cotton_schwab(
    u,
    v,
    vis,
    weight,
    spec,
    psf,
    *,
    grid,
    degrid_fn,
    gain: float = 0.1,
    niter: int = 1000,
    threshold: float = 0.0,
    auto_threshold: float | None = None,
    mgain: float = 0.8,
    max_major: int = MAX_MAJOR,
    mask=None,
    active_max: int | None = ACTIVE_MAX,
    w=None,
    multiscale: bool = False,
    multiscale_scales=None,
    multiscale_scale_bias: float = 0.6,
) -> MajorCycles:
    """Cotton–Schwab CLEAN of weighted visibilities (see the module docstring).

    Parameters
    ----------
    u, v : (nvis,) float, wavelengths
    vis : (nvis,) complex
    weight : (nvis,) float
        Imaging weights (those the dirty image was made with).
    spec : ImageSpec
    psf : (2N, 2N) or (N, N) float, peak 1 at the centre
    grid : callable(u, v, wvis, spec, w=None) -> (N, N)
        The gridder (unnormalised, real part).
    degrid_fn : callable(image, u, v, spec, w=None) -> (nvis,) complex
        Its adjoint, the degridder.
    gain, niter, threshold, auto_threshold, mask
        As :func:`~uvlab.gpu.deconvolution.hogbom`.
    mgain : float
        A minor cycle ends at ``(1 − mgain)·peak``; 1 runs all of ``niter`` in one.
    max_major : int
        Major cycles at most.
    active_max : int or None
        The minor cycles' sub-minor loop (WSClean's) on at most this many of the
        brightest pixels (:mod:`uvlab.gpu.deconvolution.subminor`); None: Högbom on the
        whole image each iteration. The major cycles make the residual exact either way.
    w : (nvis,) float, optional
        Wavelengths, for a grid/degrid pair that corrects the w-term
        (:func:`major_cycle_pair` with ``params.wstack``); every residual then has it.
    multiscale, multiscale_scales, multiscale_scale_bias
        Multiscale minor cycles (:class:`~uvlab.gpu.deconvolution.options.CleanOptions`).
    """
    from uvlab.gpu.deconvolution.driver import run_clean
    from uvlab.gpu.deconvolution.options import CleanOptions

    major = MajorCycle(u, v, vis, weight, spec, grid, degrid_fn, w=w)
    opts = CleanOptions(
        "cotton-schwab", niter=int(niter), gain=gain, mgain=mgain, threshold_jy=threshold,
        auto_threshold=auto_threshold, active_max=active_max, max_major=max_major,
        multiscale=multiscale, multiscale_scales=multiscale_scales,
        multiscale_scale_bias=multiscale_scale_bias,
    )  # fmt: skip
    out = run_clean(None, psf, opts, mask=mask, major=major)
    return MajorCycles(
        out.model, out.residual, out.iterations, out.majors, out.stop_reason, out.peak, out.rms,
        np.asarray(out.major_peaks),
    )  # fmt: skip
