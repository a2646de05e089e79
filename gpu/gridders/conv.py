"""Convolutional gridding (Muscat alg. 2.4; DESIGN §2 ``conv``).

Each record is convolved with a separable GCF of support S — read from a
table oversampled β times by nearest or linear lookup, or evaluated exactly — onto a
grid padded σ times; the grid is inverse-FFT'd, cropped and divided by the
numerically computed response of the taps actually used
(:mod:`~uvlab.gpu.gridders.correction`).

Two engines share the name: the NumPy ladder rung
(:func:`~uvlab.gpu.gridders.separable.separable_dirty`), which supports every
GCF, tables and exact evaluation, and ducc0 for the ES kernel (through
:mod:`uvlab.gpu.ducc_engine`): its type-1 NUFFT, whose plan (the samples
sorted for the grid, :func:`nufft_plan`) a caller may keep for further images
of the same samples, or with ``params.wstack`` its w-gridder. With
``params.wstack`` the NumPy rung corrects the w-term by w-stacking
(:mod:`~uvlab.gpu.gridders.wstack`, given this module's plans).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu import ducc_engine
from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.params import GridParams, good_size
from uvlab.gpu.gridders.separable import separable_dirty
from uvlab.gpu.gridders.tables import gcf_taps
from uvlab.gpu.gridders.wstack import dirty_wstack
from uvlab.gpu.imaging.spec import ImageSpec
from uvlab.gpu.timing import timed


def conv_axis(spec: ImageSpec, params: GridParams) -> AxisPlan:
    """The conv chain along one axis: GCF taps on a grid of ``good_size(σ·N)`` cells."""
    n_grid = good_size(float(params.sigma) * spec.npix)
    rule = gcf_taps(
        params.kernel,
        params.support,
        params.oversample,
        n_grid / spec.npix,
        exact=params.exact,
        shape=params.shape,
        lookup=params.lookup,
    )
    return AxisPlan(spec.npix, spec.cell_rad, n_grid, rule)


def conv_plans(spec: ImageSpec, params: GridParams) -> tuple[AxisPlan, AxisPlan]:
    """(u plan, v plan): the same chain on both axes."""
    plan = conv_axis(spec, params)
    return plan, plan


def uses_ducc(params: GridParams, npix: int = ducc_engine.MIN_NPIX) -> bool:
    """Whether ``conv`` runs on ducc0: engine "ducc", or "auto" with the ES kernel.

    ducc0 needs images of at least :data:`~uvlab.gpu.ducc_engine.MIN_NPIX`
    pixels; "auto" falls back to NumPy below.
    """
    if params.engine == "ducc":
        return True
    return params.engine == "auto" and params.kernel == "es" and npix >= ducc_engine.MIN_NPIX


def dirty(u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None) -> np.ndarray:
    """Unnormalised dirty image by convolutional gridding.

    Parameters
    ----------
    u, v : (nvis,) float
        Baseline coordinates, wavelengths.
    wvis : (nvis,) complex
        Weight × visibility (one Hermitian half of the data).
    spec : ImageSpec
    params : GridParams
    w : (nvis,) float, optional
        Wavelengths; used only when ``params.wstack``.
    timer : StageTimer, optional

    Returns
    -------
    (N, N) float64
        ``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the spec's grid.
    """
    if params.compress:
        raise ValueError("compress needs a nearest-cell axis: conv has none")
    if uses_ducc(params, spec.npix):
        return dirty_ducc(u, v, wvis, spec, params, w=w, timer=timer)
    plans = conv_plans(spec, params)
    if params.wstack and w is not None:
        return dirty_wstack(u, v, w, wvis, spec, params, plans=plans, timer=timer)
    plan_u, plan_v = plans
    return separable_dirty(u, v, wvis, plan_u, plan_v, chunk=params.chunk, timer=timer)


def uses_nufft(params: GridParams, npix: int) -> bool:
    """Whether ``conv`` runs as ducc0's NUFFT (:func:`uses_ducc`, without the w-term)."""
    return uses_ducc(params, npix) and not params.wstack


def nufft_plan(u, v, spec: ImageSpec, params: GridParams, *, timer=None):
    """ducc0's NUFFT plan of samples at (u, v) for ``spec``, timed as ``"sort / bin"``.

    At accuracy :meth:`GridParams.accuracy`, the grid padded at least
    ``params.sigma`` times, on ``params.threads`` threads
    (:func:`uvlab.gpu.ducc_engine.nufft_plan`).
    """
    args = (u, v, spec.npix, spec.cell_rad, params.accuracy())
    kwargs = dict(sigma=params.sigma, nthreads=params.threads)
    with timed(timer, "sort / bin"):
        return ducc_engine.nufft_plan(*args, **kwargs)


def dirty_ducc(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, plan=None
) -> np.ndarray:
    """The same image by ducc0: its NUFFT, or its w-gridder for the w-term.

    At accuracy :meth:`GridParams.accuracy`, on ``params.threads`` threads.
    With ``params.wstack`` and ``w`` given, ducc0's w-gridder includes the
    w-term (:func:`uvlab.gpu.ducc_engine.dirty_image`); otherwise the NUFFT
    of ``plan`` (:func:`nufft_plan` of these u, v, ``spec`` and ``params``;
    made here when None) images ``wvis``, which may hold several rows
    ``(ntrans, nvis)`` for as many images. The ducc0 call is timed as "grid".
    """
    if not (params.wstack and w is not None):
        plan = plan if plan is not None else nufft_plan(u, v, spec, params, timer=timer)
        return ducc_engine.plan_images(plan, wvis, timer=timer)
    return ducc_engine.dirty_image(
        u,
        v,
        np.asarray(wvis, dtype=np.complex128),
        spec.npix,
        spec.cell_rad,
        params.accuracy(),
        w=w,
        wgridding=True,
        nthreads=params.threads,
        timer=timer,
    )
