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
  (Muscat §2.4.2, alg. 2.3/2.4) — or by linear interpolation between the two
  neighbouring entries (``lookup="linear"``): no record is moved, and the
  kernel used is the table's piecewise-linear interpolant, whose error falls
  as 1/β² instead of 1/β.
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
from uvlab.gpu.gridders.params import LOOKUPS


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
    """A kernel table ``C(d/β)``, ``d = −D … D``, read by nearest or linear lookup.

    Nearest lookup reads ``table[k·β − q]`` with ``q = round(xi·β)``. Linear
    lookup reads the interpolant at ``s = xi·β`` between the entries
    ``d0 − 1`` and ``d0 = k·β − ⌊s⌋``: ``(1 − f)·C[d0] + f·C[d0 − 1]`` with
    ``f = s − ⌊s⌋``, on the window ``k·β − s ∈ [−D, D)`` (cells
    ``k0 = ⌈(⌈s⌉ − D)/β⌉ … k0 + S − 1``) and zero past ``±D``: the kernel
    used is the table's piecewise-linear interpolant on [−D/β, D/β], i.e.
    the table convolved with a triangle one table step wide, cut there
    (:func:`~uvlab.gpu.gridders.correction.linear_table_response`).

    Attributes
    ----------
    table : (2D+1,) float
    oversample : int
        β, table entries per grid cell.
    support : int
        S taps per record.
    lookup : {"nearest", "linear"}
    """

    table: np.ndarray
    oversample: int
    support: int
    lookup: str = "nearest"

    def __post_init__(self):
        if self.lookup not in LOOKUPS:
            raise ValueError(f"unknown table lookup {self.lookup!r}; choose one of {LOOKUPS}")

    @property
    def half(self) -> int:
        return (len(self.table) - 1) // 2

    def taps(self, xi):
        if self.lookup == "linear":
            return self._linear_taps(xi)
        b, half = self.oversample, self.half
        q = np.floor(np.asarray(xi, dtype=np.float64) * b + 0.5).astype(np.int64)
        k0 = -((half - q) // b)  # ⌈(q − D)/β⌉
        d = (k0[:, None] + np.arange(self.support)) * b - q[:, None]
        return k0, self.table[d + half]

    def _linear_taps(self, xi):
        b, half = self.oversample, self.half
        s = np.asarray(xi, dtype=np.float64) * b
        q0 = np.floor(s)
        f = (s - q0)[:, None]
        k0 = -((half - np.ceil(s).astype(np.int64)) // b)  # ⌈(⌈s⌉ − D)/β⌉
        d0 = (k0[:, None] + np.arange(self.support)) * b - q0.astype(np.int64)[:, None]
        return k0, linear_read(self.table, d0, f)

    def used_offsets(self) -> np.ndarray:
        """Table offsets d some record can read: −D … −D + S·β − 1 (nearest lookup)."""
        return np.arange(-self.half, -self.half + self.support * self.oversample)

    def response(self, t):
        if self.lookup == "linear":
            return correction.linear_table_response(self.table, self.oversample, t)
        return correction.table_response(self.table, self.oversample, self.used_offsets(), t)


def linear_read(table, d0, f):
    """``(1 − f)·C[d0] + f·C[d0 − 1]``, zero where ``d0`` lies outside [−D, D].

    Parameters
    ----------
    table : (2D+1,) float
        ``C[d]`` for ``d = −D … D``.
    d0 : int array
        Upper entry of each read.
    f : float array, broadcast with d0
        Fraction in [0, 1) of a table step below ``d0``.
    """
    table = np.asarray(table, dtype=np.float64)
    half = (len(table) - 1) // 2
    padded = np.concatenate(([0.0], table, [0.0]))  # entry d at d + D + 1
    idx = np.where(np.abs(d0) <= half, d0 + half + 1, 0)  # 0: a zero entry
    hi, lo = padded[idx], padded[np.maximum(idx - 1, 0)]
    return hi + f * (lo - hi)


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
    lookup: str = "nearest",
    on_block=None,
):
    """The tap rule for a named GCF on a grid padded σ times.

    ``kernel="lm"`` gives the least-misfit table for ``x0 = 1/(2σ)``
    (table only: it has no closed form to evaluate exactly), solved with
    ``on_block`` between its pieces (a cancel check). ``lookup``
    says how a table is read (ignored when ``exact``).
    """
    if kernel == "lm":
        if exact:
            raise ValueError("the least-misfit kernel is tabulated only: use exact=False")
        table = least_misfit_taps(support, oversample, x0=0.5 / sigma, on_block=on_block)
        return TableTaps(np.asarray(table), oversample, support, lookup)
    fn = kernel_function(kernel, support, sigma, shape)
    if exact:
        return ExactTaps(fn, support)
    return TableTaps(make_table(fn, support, oversample), oversample, support, lookup)
