"""WSClean's uniform and Briggs weights, written from its description, for tests to compare with.

Independent of :mod:`uvlab.gpu.imaging.weighting`: WSClean (``ImageWeights``,
``Settings::RecalculatePaddedDimensions``, ``WSClean::createWeightCache``) counts on a grid
the size of its *padded* image, ``M = ceil(N·padding)`` rounded up to a multiple of 4, that
holds only the v ≥ 0 half, ``M/2`` rows of ``M``. A sample with v < 0 is mirrored to
(−u, −v) first; it lands in column ``floor(u·M·Δ + M/2)``, row ``floor(v·M·Δ)``, and is
dropped (weight 0, not counted) outside the grid. Uniform divides the data weight by its
cell's sum; Briggs by ``1 + W·(5·10^−R)² / (Σ_cells W² / Σ w)``.
"""

from __future__ import annotations

import math

import numpy as np


def wsclean_grid_side(npix: int, padding: float) -> int:
    """Side of WSClean's padded image (and weight grid) for an ``npix``² image."""
    side = math.ceil(npix * padding)
    return side + (4 - side % 4) % 4


def wsclean_weights(u, v, weight, npix, cell_rad, padding, scheme, robust=0.0):
    """(nvis,) float64: WSClean's imaging weight × data weight of each sample."""
    side = wsclean_grid_side(npix, padding)
    flip = v < 0
    u, v = np.where(flip, -u, u), np.where(flip, -v, v)
    x = np.floor(u * side * cell_rad + side / 2).astype(np.int64)
    y = np.floor(v * side * cell_rad).astype(np.int64)
    inside = (x >= 0) & (x < side) & (y < side // 2)
    grid = np.zeros((side // 2, side))
    np.add.at(grid, (y[inside], x[inside]), weight[inside])
    if scheme == "uniform":
        factor = np.divide(1.0, grid, out=np.zeros_like(grid), where=grid != 0)
    else:
        mean = (grid**2).sum() / weight[inside].sum()
        factor = 1.0 / (1.0 + grid * (5.0 * 10.0 ** (-robust)) ** 2 / mean)
    out = np.zeros(len(u))
    out[inside] = weight[inside] * factor[y[inside], x[inside]]
    return out
