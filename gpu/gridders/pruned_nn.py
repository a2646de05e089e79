"""Pruned nearest-neighbour interpolation (Muscat 2021, alg. 2.6).

Each record goes to the nearest cell of an Nβ × Nβ grid (Muscat eq. 2.59).
The column pruner then the row pruner convolve the grid with the
least-misfit kernel Z(2ξ) and decimate it by α = β/2 in each axis, to
2N × 2N cells (eq. 2.60); the 4N² grid is inverse-FFT'd, cropped to N×N and
corrected by the response of the nearest-cell step and the pruner taps.

Only the Hermitian half of the fine grid is held: Nβ × (Nβ/2 + 1) complex
cells. On the numba rung the u axis skips its fine cells: each record goes
straight onto the pruned ones with the row pruner's taps as its kernel, the same
sums (:mod:`~uvlab.gpu.gridders.direct_prune`), on an Nβ × (N + 1 + 2·pad) grid.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.hybrid import pruned_axis
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.wstack import dirty_with_w
from uvlab.gpu.image_spec import ImageSpec


def pruned_nn_plans(spec: ImageSpec, params: GridParams) -> tuple[AxisPlan, AxisPlan]:
    """Nearest cell on Nβ cells and a pruner to 2N, on both axes."""
    plan = pruned_axis(spec, params)
    return plan, plan


def dirty(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, on_block=None
) -> np.ndarray:
    """Unnormalised dirty image by pruned NN interpolation.

    Parameters and return as :func:`uvlab.gpu.gridders.conv.dirty`.
    """
    plans = pruned_nn_plans(spec, params)
    return dirty_with_w(u, v, wvis, spec, params, plans, w=w, timer=timer, on_block=on_block)
