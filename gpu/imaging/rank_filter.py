"""WSClean's weighting rank filter: each cell's weight clipped to L times its window's mean.

WSClean (``ImageWeights::RankFilter``, ``windowMean``; applied by its weight cache after
``FinishGridding`` and before any taper, when ``-weighting-rank-filter`` L ≥ 1) filters
the *weights* of its cells, not their density: 1/W for uniform, ``1/(1 + f²·W)`` for
Briggs (:func:`cell_factors`). It holds the v ≥ 0 half of a grid of side M, M/2 rows of
M cells, and every cell whose weight g is not 0 gets ``min(g, L·mean)``, the mean being
that of the non-zero weights of the *unfiltered* grid in the window of columns
``x − S//2 … x + S//2 − 1`` and rows ``y − S//2 … y + S//2 − 1``, cut at the grid's edges
(the row v = 0 included: no mirror across it). An empty cell has weight 0 under uniform
weighting (not in any mean) and 1 under Briggs (in every mean of its windows).

uvlab's density grids (:func:`uvlab.gpu.imaging.weighting.mirrored`) hold both halves on
a grid of side 2M, cells −M … M−1 at positions 0 … 2M−1: WSClean's half is the rows
``M … 3M/2 − 1`` and columns ``M/2 … 3M/2 − 1`` of it, and its mirror the cells
``(−k_u − 1, −k_v − 1)``. :func:`rank_filtered` filters that half as WSClean does and
writes the mirror; the cells beyond WSClean's grid (|u| or |v| ≥ 1/(2Δ), samples WSClean
drops) keep their weights.
"""

from __future__ import annotations

import math

from uvlab.gpu.backend import get_xp


def cell_factors(grid, scheme: str, robust: float, mean: float):
    """((2M)²,) float64: each cell's imaging weight per unit data weight, as WSClean's
    ``FinishGridding`` turns its density grid ``grid`` into it.

    Uniform ``1/W`` (0 for an empty cell), Briggs ``1/(1 + f²·W)`` with
    ``f² = (5·10^−R)² / mean`` (1 for an empty cell; all 1 when ``mean`` is 0).
    """
    xp = get_xp(grid)
    if scheme == "uniform":
        return xp.where(grid > 0, 1.0 / xp.where(grid > 0, grid, 1.0), 0.0)
    if not mean:
        return xp.ones_like(grid)
    f2 = (5.0 * 10.0 ** (-robust)) ** 2 / mean
    return 1.0 / (1.0 + f2 * grid)


def _window_sums(a, d: int):
    """Σ of ``a`` (rows, cols) over each cell's window ``[y−d, y+d) × [x−d, x+d)``,
    cut at the edges: differences of a summed-area table."""
    xp = get_xp(a)
    rows, cols = a.shape
    table = xp.zeros((rows + 1, cols + 1), dtype=xp.float64)
    table[1:, 1:] = xp.cumsum(xp.cumsum(a, axis=0), axis=1)
    y, x = xp.arange(rows), xp.arange(cols)
    y1, y2 = xp.maximum(y - d, 0)[:, None], xp.minimum(y + d, rows)[:, None]
    x1, x2 = xp.maximum(x - d, 0)[None, :], xp.minimum(x + d, cols)[None, :]
    return table[y2, x2] - table[y1, x2] - table[y2, x1] + table[y1, x1]


def rank_filtered(factors, level: float, size: int):
    """``factors`` (:func:`cell_factors`, ((2M)²,)) after WSClean's rank filter of level
    ``level`` (≥ 1) and window ``size`` (≥ 2): a contiguous ``factors`` is filtered in place
    (no second grid of the full size: 773 MB at M = 4916); use the returned array.

    The window's sum and count of non-zero weights come from summed-area tables, so the
    cost is that of a few passes over the grid whatever ``size``; the mean is the window's
    sum over its count, as WSClean's loop takes it (equal but for rounding).
    """
    xp = get_xp(factors)
    side = math.isqrt(factors.size)
    m = side // 2
    grid = factors.reshape(side, side)
    half = grid[m : m + m // 2, m // 2 : m + m // 2]  # WSClean's v ≥ 0 half, [row, col]
    d = size // 2
    nonzero = half != 0
    total = _window_sums(xp.where(nonzero, half, 0.0), d)
    count = _window_sums(nonzero.astype(xp.float64), d)  # ≥ 1 at a non-zero cell
    cap = level * (total / xp.where(count > 0, count, 1.0))
    clipped = xp.where(nonzero & (half > cap), cap, half)
    grid[m : m + m // 2, m // 2 : m + m // 2] = clipped
    grid[m // 2 : m, m // 2 : m + m // 2] = clipped[::-1, ::-1]  # the mirror, (−k−1)
    return grid.reshape(-1)  # ``factors`` itself where that is contiguous (a view)
