"""How a record's grid coordinate becomes S tap indices and weights.

Three tap rules share one interface, ``taps(xi) -> (k0, w)``: the record at
grid coordinate ``xi`` (cells, float) adds ``value·w[:, j]`` to cells
``k0 + j`` (j = 0 … S−1; indices not yet wrapped). Each also reports its mean
response for the corrector (:mod:`uvlab.gpu.gridders.correction`).

- :class:`NearestTaps`: the nearest cell (S = 1), Muscat alg. 2.2.
- :class:`TableTaps`: a GCF tabulated β times finer than the grid, read by
  nearest lookup — the record is first moved to the nearest fine point
  ``q = round(xi·β)``, which is why a β-oversampled table equals
  nearest-cell gridding on a β-times finer grid followed by a convolution
  (Muscat §2.4.2, alg. 2.3/2.4).
- :class:`ExactTaps`: the GCF evaluated at the exact offsets.

Tap cells are ``k0 = ⌈xi − S/2⌉ … k0 + S − 1``: every cell with offset
``k − xi`` in [−S/2, S/2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from uvlab.gpu.gridders import correction
from uvlab.gpu.gridders.gcf import kernel_function
from uvlab.gpu.gridders.least_misfit import least_misfit_taps


@dataclass(frozen=True)
class NearestTaps:
    """Nearest-cell assignment (S = 1, weight 1)."""

    support: int = 1

    def taps(self, xi):
        xi = np.asarray(xi, dtype=np.float64)
        return np.floor(xi + 0.5).astype(np.int64), np.ones((xi.size, 1))

    def response(self, t):
        return correction.nn_response(t)


@dataclass(frozen=True, eq=False)
class TableTaps:
    """A kernel table ``C(d/β)``, ``d = −D … D``, read by nearest lookup.

    Attributes
    ----------
    table : (2D+1,) float
    oversample : int
        β, table entries per grid cell.
    support : int
        S taps per record.
    """

    table: np.ndarray
    oversample: int
    support: int

    @property
    def half(self) -> int:
        return (len(self.table) - 1) // 2

    def taps(self, xi):
        b, half = self.oversample, self.half
        q = np.floor(np.asarray(xi, dtype=np.float64) * b + 0.5).astype(np.int64)
        k0 = -((half - q) // b)  # ⌈(q − D)/β⌉
        d = (k0[:, None] + np.arange(self.support)) * b - q[:, None]
        return k0, self.table[d + half]

    def used_offsets(self) -> np.ndarray:
        """Table offsets d some record can read: −D … −D + S·β − 1."""
        return np.arange(-self.half, -self.half + self.support * self.oversample)

    def response(self, t):
        return correction.table_response(self.table, self.oversample, self.used_offsets(), t)


@dataclass(frozen=True, eq=False)
class ExactTaps:
    """A kernel evaluated at the exact offsets ``k − xi``."""

    kernel: Callable = field(repr=False)
    support: int

    def taps(self, xi):
        xi = np.asarray(xi, dtype=np.float64)
        k0 = np.ceil(xi - self.support / 2.0).astype(np.int64)
        off = (k0 - xi)[:, None] + np.arange(self.support)
        return k0, self.kernel(off)

    def response(self, t):
        return correction.kernel_ft(self.kernel, self.support, t)


def make_table(kernel: Callable, support: int, oversample: int) -> np.ndarray:
    """Sample a kernel at ``d/β`` for ``d = −D … D``, ``D = ⌊S·β/2⌋``."""
    half = (support * oversample) // 2
    return kernel(np.arange(-half, half + 1) / oversample)


def gcf_taps(
    kernel: str,
    support: int,
    oversample: int,
    sigma: float,
    exact: bool = False,
    shape: float | None = None,
):
    """The tap rule for a named GCF on a grid padded σ times.

    ``kernel="lm"`` gives the least-misfit table for ``x0 = 1/(2σ)``
    (table only: it has no closed form to evaluate exactly).
    """
    if kernel == "lm":
        if exact:
            raise ValueError("the least-misfit kernel is tabulated only: use exact=False")
        table = least_misfit_taps(support, oversample, x0=0.5 / sigma)
        return TableTaps(np.asarray(table), oversample, support)
    fn = kernel_function(kernel, support, sigma, shape)
    if exact:
        return ExactTaps(fn, support)
    return TableTaps(make_table(fn, support, oversample), oversample, support)
