"""Nearest-cell gridding: the textbook ``nn`` and Muscat's alg. 2.2 ``nn-oversampled``.

``nn`` adds each record to the nearest cell of an image-sized N×N grid and
inverse-FFTs it without correction: every record is displaced by up to half
a cell, and the sky outside the field folds straight in — raw aliasing.

``nn-oversampled`` does the same on a grid β times finer (Nβ × Nβ cells,
image Nβ pixels wide), crops the central N×N and divides by
``sinc(n/(Nβ))`` in each axis, the mean response of a uniform sub-cell
displacement (Muscat eq. 2.31–2.34).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.tables import NearestTaps
from uvlab.gpu.gridders.wstack import dirty_with_w
from uvlab.gpu.image_spec import ImageSpec


def nn_plans(spec: ImageSpec, params: GridParams) -> tuple[AxisPlan, AxisPlan]:
    """Image-sized grid, nearest cell, no correction."""
    plan = AxisPlan(spec.npix, spec.cell_rad, spec.npix, NearestTaps(), correct=False)
    return plan, plan


def nn_oversampled_plans(spec: ImageSpec, params: GridParams) -> tuple[AxisPlan, AxisPlan]:
    """Nβ-cell grid, nearest cell, 1/sinc corrector."""
    plan = AxisPlan(spec.npix, spec.cell_rad, spec.npix * params.oversample, NearestTaps())
    return plan, plan


def dirty_nn(u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, on_block=None):
    """Unnormalised dirty image by nearest-cell gridding on the N×N grid.

    Parameters and return as :func:`uvlab.gpu.gridders.conv.dirty`.
    """
    plans = nn_plans(spec, params)
    return dirty_with_w(u, v, wvis, spec, params, plans, w=w, timer=timer, on_block=on_block)


def dirty_nn_oversampled(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, on_block=None
) -> np.ndarray:
    """Unnormalised dirty image by nearest-cell gridding on an Nβ×Nβ grid (alg. 2.2)."""
    plans = nn_oversampled_plans(spec, params)
    return dirty_with_w(u, v, wvis, spec, params, plans, w=w, timer=timer, on_block=on_block)
