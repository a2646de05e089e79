"""Tap rules and algorithm chains of the CUDA gridders (DESIGN §2).

The CUDA kernels (``gpu/kernels/grid_*.cu``) know four tap rules per axis,
each with a NumPy reference here (:class:`AxisRule`):

- ``"es"``: the exponential of semicircle evaluated exactly in the kernel
  (no table, no quantisation error): window start ``k0 = ⌈x − S/2⌉``;
- ``"table"``: a kernel table oversampled B times read by nearest lookup
  (:class:`~uvlab.gpu.gridders.tables.TableTaps`): ``q = ⌊x·B + ½⌋``,
  ``k0 = ⌈(q − D)/B⌉``, weight ``table[(k0 + j)·B − q + D]``;
- ``"linear"``: the same table read by linear interpolation
  (``TableTaps(lookup="linear")``): stored position ``s = x·B`` (table
  steps, not rounded), ``k0 = ⌈(⌈s⌉ − D)/B⌉``, and with ``d0 = k·B − ⌊s⌋``,
  ``f = s − ⌊s⌋`` the weight ``(1 − f)·table[d0 + D] + f·table[d0 − 1 + D]``,
  zero for ``d0 > D``;
- ``"nearest"``: the nearest cell, weight 1.

:func:`gpu_chain` turns an algorithm's NumPy :class:`AxisPlan` pair (from its
catalogue record's plan function, passed in by the caller) into what the GPU
runs. Each GPU chain is the NumPy chain's exact linear equivalent:

- ``conv``, ``nn``, ``nn-oversampled``: the same rules on the same grids;
- ``hybrid``: the conv rule along u, the nearest cell on the Nβ fine grid
  along v, then the column pruner (a "prune" stage);
- ``pruned-nn``: the row pruner is fused into the gridding — nearest cell on
  the fine u grid followed by the pruner ``out[c] = Σ_d Z[d]·in[c·α + d]`` is
  exactly a table rule with the pruner taps Z oversampled α on the pruned
  2N-cell grid (Muscat §2.4.2, alg. 2.3/2.4), with ``⌊2D/α⌋ + 1`` taps — so
  the Nβ × Nβ fine grid is never held; only the v axis keeps its fine grid
  (Nβ × N + 1 cells) and its column pruner.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.gcf import default_shape
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruning import Pruner
from uvlab.gpu.gridders.tables import ExactTaps, NearestTaps, TableTaps, linear_read
from uvlab.gpu.image_spec import ImageSpec

#: Rule name → the kernels' template/integer id.
RULE_IDS = {"es": 0, "table": 1, "nearest": 2, "linear": 3}
#: Rules whose stored position counts table steps (B per cell) rather than cells.
TABLE_KINDS = ("table", "linear")


@dataclass(frozen=True, eq=False)
class AxisRule:
    """How records are spread along one axis of the grid the kernel fills.

    Attributes
    ----------
    kind : {"es", "table", "nearest", "linear"}
    support : int
        Taps per record S.
    n_grid : int
        Cells of the (periodic) axis.
    scale : float
        Grid cells per wavelength, ``n_grid·cell_rad``.
    beta : float
        ES shape β (``"es"`` only).
    table : (2D+1,) float64 or None
        Kernel samples at ``d/B``, ``d = −D … D`` (``"table"``, ``"linear"``).
    oversample : int
        B (``"table"``, ``"linear"``).
    """

    kind: str
    support: int
    n_grid: int
    scale: float
    beta: float = 0.0
    table: np.ndarray | None = None
    oversample: int = 1

    @property
    def rule_id(self) -> int:
        return RULE_IDS[self.kind]

    @property
    def half(self) -> int:
        """D, the table's half-width (0 for the other rules)."""
        return (len(self.table) - 1) // 2 if self.table is not None else 0

    def window(self, x) -> tuple[np.ndarray, np.ndarray]:
        """Window start k0 and stored position of records at coordinate x (cells).

        The position is x itself (``"es"``), ``q`` (``"table"``), ``x·B``
        (``"linear"``) or k0 (``"nearest"``), as float64; the same formulas
        serve absolute and tile-local coordinates.
        """
        x = np.asarray(x, dtype=np.float64)
        if self.kind == "es":
            return np.ceil(x - 0.5 * self.support).astype(np.int64), x
        if self.kind == "linear":
            s = x * self.oversample
            return self.start_from_position(s), s
        if self.kind == "table":
            q = np.floor(x * self.oversample + 0.5).astype(np.int64)
            return -((self.half - q) // self.oversample), q.astype(np.float64)
        k = np.floor(x + 0.5).astype(np.int64)
        return k, k.astype(np.float64)

    def start_from_position(self, pos) -> np.ndarray:
        """Window start from a stored position (what the tile kernels recompute)."""
        pos = np.asarray(pos, dtype=np.float64)
        if self.kind == "es":
            return np.ceil(pos - 0.5 * self.support).astype(np.int64)
        if self.kind == "table":
            return -((self.half - pos.astype(np.int64)) // self.oversample)
        if self.kind == "linear":
            return -((self.half - np.ceil(pos).astype(np.int64)) // self.oversample)
        return pos.astype(np.int64)

    def weights(self, k0, pos) -> np.ndarray:
        """(n, S) float64 tap weights of cells ``k0 + j`` for stored positions."""
        k = np.asarray(k0)[:, None] + np.arange(self.support)
        pos = np.asarray(pos, dtype=np.float64)[:, None]
        if self.kind == "es":
            t = (k - pos) * (2.0 / self.support)
            y = 1.0 - t * t
            return np.where(y > 0, np.exp(self.beta * (np.sqrt(np.clip(y, 0, None)) - 1.0)), 0.0)
        if self.kind == "table":
            d = k * self.oversample - pos.astype(np.int64)
            ok = np.abs(d) <= self.half
            return np.where(ok, np.asarray(self.table)[np.where(ok, d + self.half, 0)], 0.0)
        if self.kind == "linear":
            q0 = np.floor(pos)
            return linear_read(self.table, k * self.oversample - q0.astype(np.int64), pos - q0)
        return np.ones(k.shape)


@dataclass(frozen=True, eq=False)
class GpuChain:
    """What the CUDA pipeline runs for one algorithm on one ImageSpec.

    Attributes
    ----------
    npix : int
    rule_u, rule_v : AxisRule
        u is the Hermitian-half axis (``rule_u.n_grid/2 + 1`` columns).
    pruner_v : Pruner or None
        Column pruner decimating the v axis before the FFT.
    n_fft_u, n_fft_v : int
        FFT sizes.
    corr_u, corr_v : (N,) float64
        The NumPy plans' correctors (from the taps used).
    """

    npix: int
    rule_u: AxisRule
    rule_v: AxisRule
    pruner_v: Pruner | None
    n_fft_u: int
    n_fft_v: int
    corr_u: np.ndarray
    corr_v: np.ndarray

    @property
    def one_row(self) -> bool:
        """The v rule is the nearest cell: the one-row kernel applies."""
        return self.rule_v.kind == "nearest"


def rule_from_plan(plan: AxisPlan, spec: ImageSpec, params: GridParams) -> AxisRule | None:
    """The GPU rule of a NumPy plan's tap rule; None when the GPU cannot run it."""
    rule, n, scale = plan.rule, plan.n_grid, plan.n_grid * spec.cell_rad
    if isinstance(rule, NearestTaps):
        return AxisRule("nearest", 1, n, scale)
    if isinstance(rule, TableTaps):
        table = np.asarray(rule.table, dtype=np.float64)
        kind = "linear" if rule.lookup == "linear" else "table"
        return AxisRule(kind, rule.support, n, scale, table=table, oversample=rule.oversample)
    if isinstance(rule, ExactTaps) and params.kernel == "es":
        beta = params.shape or default_shape("es", rule.support, n / spec.npix)
        return AxisRule("es", rule.support, n, scale, beta=float(beta))
    return None


def fused_pruner_rule(plan: AxisPlan, spec: ImageSpec) -> AxisRule:
    """Nearest cell on the fine grid + the plan's pruner as one table rule on n_fft cells."""
    p = plan.pruner
    half = p.half
    support = (2 * half) // p.alpha + 1
    taps = np.asarray(p.taps, dtype=np.float64)
    return AxisRule(
        "table", support, plan.n_fft, plan.n_fft * spec.cell_rad, table=taps, oversample=p.alpha
    )


def gpu_chain(
    plans: tuple[AxisPlan, AxisPlan], spec: ImageSpec, params: GridParams
) -> GpuChain | None:
    """The GPU chain of an algorithm, or None when only the host can run it.

    Parameters
    ----------
    plans : (AxisPlan, AxisPlan)
        The algorithm's NumPy (u, v) plans for ``spec`` and ``params``
        (:func:`uvlab.gpu.gridders.registry.axis_plans`).
    spec : ImageSpec
    params : GridParams

    Returns
    -------
    GpuChain or None
        None for: w-stacking, w-projection and exact evaluation of a
        GCF other than ES.
    """
    if params.w_term:
        return None
    plan_u, plan_v = plans
    if plan_u.pruner is not None:
        rule_u = fused_pruner_rule(plan_u, spec)
    else:
        rule_u = rule_from_plan(plan_u, spec, params)
    if plan_v.pruner is not None and not isinstance(plan_v.rule, NearestTaps):
        return None
    rule_v = rule_from_plan(plan_v, spec, params)
    if rule_u is None or rule_v is None:
        return None
    return GpuChain(
        spec.npix,
        rule_u,
        rule_v,
        plan_v.pruner,
        plan_u.n_fft,
        plan_v.n_fft,
        np.asarray(plan_u.corrector, dtype=np.float64),
        np.asarray(plan_v.corrector, dtype=np.float64),
    )
