"""A pruned nearest-cell u axis gridded straight onto the pruned cells (the numba rung).

``pruned-nn``'s u axis (Muscat alg. 2.6) puts each record on the nearest of Nβ
fine cells, then the row pruner convolves the fine axis with the taps ``Z[d]``,
``d = −D … D``, and keeps every α-th cell (:mod:`~uvlab.gpu.gridders.pruning`)::

    out[c] = Σ_f Z[f − c·α] · in[f]

A record on fine cell ``q`` therefore adds ``Z[q − c·α]`` to every coarse cell c
within D fine cells: a table oversampled α times, read by nearest lookup
(:class:`~uvlab.gpu.gridders.tables.TableTaps`, whose ``q = round(ξ·α)`` is the
fine cell; Muscat §2.4.2 makes the same identity for conv's tables). Gridded so,
the u axis needs no Nβ-cell grid and no row pruner: the numba rung's grid is
Nβ × (N + 1 + 2·pad) cells instead of Nβ × (Nβ/2 + 1), and its image is the chain's
own, the same products summed in another order. Two things differ by rounding
only: the Hermitian fold happens on the coarse cells (it commutes with the pruner
because the least-misfit taps are even, to ~1e-13), and for α not a power of two
the fine cell is found from ξ/α·α, which may round a record lying within one ulp
of a cell boundary the other way.

Which rung runs is :func:`~uvlab.gpu.gridders.jit_grid.cpu_rung`'s choice: the
NumPy rung keeps the textbook chain (fine grid, then pruner: STYLE §2's ladder),
the numba rung grids by :func:`direct_plans`.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.jit_grid import cpu_rung
from uvlab.gpu.gridders.tables import NearestTaps, TableTaps


def direct_axis(plan: AxisPlan, on_block=None) -> AxisPlan:
    """The u axis ``plan`` to grid with: pruned nearest cells as a table, or ``plan`` itself.

    A plan of nearest cells on ``n_grid`` cells with a pruner becomes a plan on its
    ``n_fft`` pruned cells whose rule reads the pruner's taps, reversed, as a table
    oversampled α times (``Z[q − c·α]`` at cell c), with S_z + 1 taps per record (both
    ends of ``−D … D`` fall on cells when ``q − D`` is a multiple of α; the table is
    zero past D). It keeps the original plan's corrector (the response of the chain
    it computes). Any other plan is returned as it is. ``on_block`` is the cancel check
    of the pruner's solve (its least-misfit taps, made at first use).
    """
    if plan.pruner is None or not isinstance(plan.rule, NearestTaps):
        return plan
    alpha = plan.pruner.alpha
    taps = np.asarray(plan.pruner.solved(on_block), dtype=np.float64)
    half = (taps.size - 1) // 2
    table = np.concatenate([taps[::-1], np.zeros(alpha)])  # entry d + D is Z[−d]
    rule = TableTaps(table, alpha, 2 * half // alpha + 1)
    direct = AxisPlan(plan.npix, plan.cell_rad, plan.n_fft, _Centred(rule, half), None,
                      plan.correct)  # fmt: skip
    direct.__dict__["corrector"] = plan.corrector  # frozen: set as the cached_property would
    return direct


def direct_plans(plans: tuple[AxisPlan, AxisPlan], on_block=None) -> tuple[AxisPlan, AxisPlan]:
    """The (u, v) plans the CPU gridder grids with: on the numba rung the u axis by
    :func:`direct_axis` (``on_block`` its cancel check), else ``plans`` as they are (the
    NumPy rung's chain)."""
    plan_u, plan_v = plans
    if cpu_rung() != "numba":
        return plans
    return direct_axis(plan_u, on_block), plan_v


class _Centred(TableTaps):
    """A :class:`TableTaps` whose table runs past its half-width D (zeros after +D).

    ``half`` is D, not ``(len(table) − 1) // 2``: the first cell is ``⌈(q − D)/α⌉``.
    """

    def __init__(self, rule: TableTaps, half: int):
        super().__init__(rule.table, rule.oversample, rule.support, rule.lookup)
        object.__setattr__(self, "_half", int(half))

    @property
    def half(self) -> int:
        return self._half
