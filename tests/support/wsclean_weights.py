"""WSClean's uniform and Briggs weights, written from its description, for tests to compare with.

Independent of :mod:`uvlab.gpu.imaging.weighting`: WSClean (``ImageWeights``,
``Settings::RecalculatePaddedDimensions``, ``WSClean::createWeightCache``) counts on a grid
the size of its *padded* image, ``M = ceil(N·padding)`` rounded up to a multiple of 4, that
holds only the v ≥ 0 half, ``M/2`` rows of ``M``. A sample with v < 0 is mirrored to
(−u, −v) first; it lands in column ``floor(u·M·Δ + M/2)``, row ``floor(v·M·Δ)``, and is
dropped (weight 0, not counted) outside the grid. Uniform divides the data weight by its
cell's sum; Briggs by ``1 + W·(5·10^−R)² / (Σ_cells W² / Σ w)``.

``-super-weight F`` makes the grid's side ``round(M/F)`` (one more when odd) with the same
pixel scale; ``-weighting-rank-filter L`` (applied when L ≥ 1, after the weights are made)
clips each cell's non-zero weight to L times the mean of the non-zero weights of the
unfiltered grid in its window, columns ``x − S//2 … x + S//2 − 1`` and the same rows, cut
at the half grid's edges (``ImageWeights::RankFilter``, ``windowMean``). Written here as
WSClean's loop, cell by cell.
"""

from __future__ import annotations

import math

import numpy as np


def wsclean_grid_side(npix: int, padding: float) -> int:
    """Side of WSClean's padded image (and weight grid) for an ``npix``² image."""
    side = math.ceil(npix * padding)
    return side + (4 - side % 4) % 4


def super_weight_side(side: int, super_weight: float) -> int:
    """``ImageWeights``' grid side for ``-super-weight``: ``round(M/F)``, made even."""
    side = int(np.floor(side / super_weight + 0.5))  # C's round(): half away from zero
    return side + 1 if side % 2 else side


def rank_filter(grid, level, size):
    """WSClean's ``RankFilter`` of the (M/2, M) half grid of weights, cell by cell."""
    rows, cols = grid.shape
    d = size // 2
    out = grid.copy()
    for y in range(rows):
        for x in range(cols):
            if grid[y, x] == 0.0:
                continue
            window = grid[max(y - d, 0) : min(y + d, rows), max(x - d, 0) : min(x + d, cols)]
            mean = window[window != 0.0].sum() / np.count_nonzero(window)
            if grid[y, x] > mean * level:
                out[y, x] = mean * level
    return out


def wsclean_weights(
    u, v, weight, npix, cell_rad, padding, scheme, robust=0.0, super_weight=1.0,
    rank_level=0.0, rank_size=16,
):  # fmt: skip
    """(nvis,) float64: WSClean's imaging weight × data weight of each sample."""
    side = super_weight_side(wsclean_grid_side(npix, padding), super_weight)
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
    if rank_level >= 1.0:
        factor = rank_filter(factor, rank_level, rank_size)
    out = np.zeros(len(u))
    out[inside] = weight[inside] * factor[y[inside], x[inside]]
    return out
