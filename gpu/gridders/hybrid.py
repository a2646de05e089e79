"""Hybrid gridding (Muscat 2021, alg. 2.5).

Along u each record is convolved with the GCF (support S, table oversampled
β and read by nearest or linear lookup, grid of σN cells — Muscat's σ = 1
makes it the N × Nβ grid of the thesis); along v it goes to the nearest
cell of a β-times finer grid of Nβ cells. A column pruner
(:mod:`~uvlab.gpu.gridders.pruning`) then convolves the v axis with the
least-misfit kernel Z(2v) and decimates it by α = β/2 to 2N cells (Muscat
eq. 2.56). The σN × 2N grid is inverse-FFT'd, cropped to N×N and corrected
by ``h_co(l)·h_pr(m)``, both computed from the taps used (the corrector
along m includes the nearest-cell sinc).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.conv import conv_axis
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruning import make_pruner
from uvlab.gpu.gridders.tables import NearestTaps
from uvlab.gpu.gridders.wstack import dirty_with_w
from uvlab.gpu.image_spec import ImageSpec

#: Pruned grids are oversampled ζ = 2 relative to the image (Muscat §2.4.5),
#: and the least-misfit pruner is optimised for the central |x| ≤ 1/(2ζ).
ZETA = 2


def pruned_axis(spec: ImageSpec, params: GridParams) -> AxisPlan:
    """Nearest cell on Nβ cells, then a pruner decimating by α = β/2 to 2N cells."""
    beta = int(params.oversample)
    if beta % ZETA:
        raise ValueError(f"the pruned algorithms need an even β (α = β/2), got β = {beta}")
    alpha = beta // ZETA
    pruner = make_pruner(params.prune_kernel, params.prune_support, alpha, x0=0.5 / ZETA)
    return AxisPlan(spec.npix, spec.cell_rad, spec.npix * beta, NearestTaps(), pruner)


def hybrid_plans(spec: ImageSpec, params: GridParams, on_block=None) -> tuple[AxisPlan, AxisPlan]:
    """(u plan: GCF as conv, v plan: nearest cell + column pruner).

    ``on_block``: a cancel check between the pieces of the u table's least-misfit solve
    (:func:`~uvlab.gpu.gridders.conv.conv_axis`); the pruner solves with its apply's.
    """
    return conv_axis(spec, params, on_block), pruned_axis(spec, params)


def dirty(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, on_block=None
) -> np.ndarray:
    """Unnormalised dirty image by hybrid gridding.

    Parameters and return as :func:`uvlab.gpu.gridders.conv.dirty`.
    """
    plans = hybrid_plans(spec, params, on_block)  # a cancel stops the u table's solve too
    return dirty_with_w(u, v, wvis, spec, params, plans, w=w, timer=timer, on_block=on_block)
