"""Convolutional gridding (Muscat alg. 2.4; DESIGN §2 ``conv``).

Each record is convolved with a separable GCF of support S — read from a
table oversampled β times by nearest lookup, or evaluated exactly — onto a
grid padded σ times; the grid is inverse-FFT'd, cropped and divided by the
numerically computed response of the taps actually used
(:mod:`~uvlab.gpu.gridders.correction`).

Two engines share the name: the NumPy ladder rung
(:func:`~uvlab.gpu.gridders.separable.separable_dirty`), which supports every
GCF, tables and exact evaluation, and ducc0's ``wgridder`` for the ES kernel.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.params import GridParams, good_size
from uvlab.gpu.gridders.separable import separable_dirty, timed
from uvlab.gpu.gridders.tables import gcf_taps
from uvlab.gpu.imaging.spec import ImageSpec


def conv_axis(spec: ImageSpec, params: GridParams) -> AxisPlan:
    """The conv chain along one axis: GCF taps on a grid of ``good_size(σ·N)`` cells."""
    n_grid = good_size(params.padding(spec.pad) * spec.npix)
    rule = gcf_taps(
        params.kernel,
        params.support,
        params.oversample,
        n_grid / spec.npix,
        exact=params.exact,
        shape=params.shape,
    )
    return AxisPlan(spec.npix, spec.cell_rad, n_grid, rule)


def conv_plans(spec: ImageSpec, params: GridParams) -> tuple[AxisPlan, AxisPlan]:
    """(u plan, v plan): the same chain on both axes."""
    plan = conv_axis(spec, params)
    return plan, plan


def uses_ducc(params: GridParams, npix: int = 32) -> bool:
    """Whether ``conv`` runs on ducc0: engine "ducc", or "auto" with the ES kernel.

    ducc0 needs images of at least 32 pixels; "auto" falls back to NumPy below.
    """
    if params.engine == "ducc":
        return True
    return params.engine == "auto" and params.kernel == "es" and npix >= 32


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
    if uses_ducc(params, spec.npix):
        return dirty_ducc(u, v, wvis, spec, params, w=w, timer=timer)
    if params.wstack and w is not None:
        from uvlab.gpu.gridders.wstack import dirty_wstack

        return dirty_wstack(u, v, w, wvis, spec, params, timer=timer)
    plan_u, plan_v = conv_plans(spec, params)
    return separable_dirty(u, v, wvis, plan_u, plan_v, chunk=params.chunk, timer=timer)


def dirty_ducc(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None
) -> np.ndarray:
    """The same image by ``ducc0.wgridder.experimental.vis2dirty(flip_v=True)``.

    uvw in wavelengths are passed as metres at ``freq = c``. ducc0's output
    ``D[a, b]`` has a → −l and b → +m, so the uvlab image is ``D.T``
    (DESIGN §1). The whole call is timed as "grid".
    """
    from ducc0.wgridder.experimental import vis2dirty

    u = np.asarray(u, dtype=np.float64)
    wcol = np.zeros_like(u) if w is None else np.asarray(w, dtype=np.float64)
    uvw = np.stack([u, np.asarray(v, dtype=np.float64), wcol], axis=1)
    with timed(timer, "grid"):
        d = vis2dirty(
            uvw=uvw,
            freq=np.array([C_LIGHT]),
            vis=np.asarray(wvis, dtype=np.complex128)[:, None],
            npix_x=spec.npix,
            npix_y=spec.npix,
            pixsize_x=spec.cell_rad,
            pixsize_y=spec.cell_rad,
            epsilon=params.accuracy(),
            do_wgridding=bool(params.wstack and w is not None),
            divide_by_n=False,
            flip_v=True,
            nthreads=int(params.threads),
        )
    return np.ascontiguousarray(d.T)
