"""Convolutional gridding (Muscat alg. 2.4; DESIGN §2 ``conv``).

Each record is convolved with a separable GCF of support S — read from a
table oversampled β times by nearest or linear lookup, or evaluated exactly — onto a
grid padded σ times; the grid is inverse-FFT'd, cropped and divided by the
numerically computed response of the taps actually used
(:mod:`~uvlab.gpu.gridders.correction`).

``conv`` is the stated kernel, support, β, lookup and σ on every device: on
the CPU the NumPy ladder rung
(:func:`~uvlab.gpu.gridders.separable.separable_dirty`), on the GPU the CUDA
chain built from the same plans. With ``params.wstack`` it corrects the
w-term by w-stacking (:mod:`~uvlab.gpu.gridders.wstack`, given this module's
plans), as every separable algorithm does; with ``params.wprojplanes`` by
w-projection (:mod:`~uvlab.gpu.gridders.wproject`), which only conv offers.
ducc0, which chooses its own kernel from ε, is the catalogue's ``ducc`` entry
(:mod:`uvlab.gpu.gridders.ducc`).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.params import GridParams, good_size
from uvlab.gpu.gridders.tables import gcf_taps
from uvlab.gpu.gridders.wproject import wproject_dirty
from uvlab.gpu.gridders.wstack import dirty_with_w
from uvlab.gpu.image_spec import ImageSpec


def conv_axis(spec: ImageSpec, params: GridParams, on_block=None) -> AxisPlan:
    """The conv chain along one axis: GCF taps on a grid of ``good_size(σ·N)`` cells.

    ``on_block``: a cancel check between the pieces of a least-misfit table's solve.
    """
    n_grid = good_size(float(params.sigma) * spec.npix)
    rule = gcf_taps(
        params.kernel,
        params.support,
        params.oversample,
        n_grid / spec.npix,
        exact=params.exact,
        shape=params.shape,
        lookup=params.lookup,
        on_block=on_block,
    )
    return AxisPlan(spec.npix, spec.cell_rad, n_grid, rule)


def conv_plans(spec: ImageSpec, params: GridParams, on_block=None) -> tuple[AxisPlan, AxisPlan]:
    """(u plan, v plan): the same chain on both axes."""
    plan = conv_axis(spec, params, on_block)
    return plan, plan


def dirty(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, on_block=None
) -> np.ndarray:
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
        Wavelengths; used only when ``params.wstack`` or ``params.wprojplanes``
        (w-projection, :mod:`~uvlab.gpu.gridders.wproject`).
    timer : StageTimer, optional

    Returns
    -------
    (N, N) float64
        ``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the spec's grid.
    """
    if params.compress:
        raise ValueError("compress needs a nearest-cell axis: conv has none")
    if params.wprojplanes:
        if w is not None:
            return wproject_dirty(u, v, w, wvis, spec, params, timer=timer, on_block=on_block)
        params = params.with_(wprojplanes=0)  # no w given: the flat image
    plans = conv_plans(spec, params, on_block)
    return dirty_with_w(u, v, wvis, spec, params, plans, w=w, timer=timer, on_block=on_block)
