"""Which rows of the main table a selection reads, and where a part of them lies.

:func:`selected` runs the selection's TaQL query (:mod:`uvlab.app.ms.selection`);
:func:`check_readable` refuses one with no rows or an empty data column. For data read
in parts (``row_range``, :mod:`uvlab.app.scale`), :func:`plan_for` finds the selection's
rows once per process as runs of consecutive main-table rows (:class:`Plan`), and
:func:`row_part` gives a part's rows: the main table itself where they are consecutive.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.selection import Selection, select
from uvlab.app.ms.tables import MSTables, translated


def selected(ms: MSTables, **selection):
    """(the :class:`Selection`, its rows as a TaQL table) of ``select``'s keyword arguments."""
    sel = select(ms, **selection)
    return sel, ms.query(sel.where)


def describe(sel: Selection) -> str:
    """The field and spectral window of ``sel``, for messages."""
    return f"field {sel.field.id} '{sel.field.name}', spectral window {sel.spw.id}"


def check_readable(ms: MSTables, sel: Selection, tab, time_range) -> None:
    """Refuse (MSError) a selection with no rows or whose data column holds nothing."""
    if tab.nrows() == 0:
        within = " within the time range" if time_range is not None else ""
        raise MSError(f"{ms.path}: no cross-correlation rows for {describe(sel)}{within}")
    if not tab.iscelldefined(sel.column, 0):
        raise MSError(f"{ms.path}: column {sel.column} holds no data for {describe(sel)}")


@dataclass(frozen=True)
class Plan:
    """A selection and where its rows lie in the main table: runs of consecutive rows."""

    sel: Selection
    starts: np.ndarray  # (run,) int64, main-table row of each run's first row
    ends: np.ndarray  # (run,) int64, the selection's row count at each run's end

    @property
    def nrows(self) -> int:
        return int(self.ends[-1]) if self.ends.size else 0

    def main_rows(self, first: int, stop: int) -> tuple[int, int] | np.ndarray:
        """The main-table rows of selection rows ``first`` … ``stop``: (start, count)
        where they are consecutive, else their row numbers."""
        i = int(np.searchsorted(self.ends, first, side="right"))
        begin = self.ends[i - 1] if i else 0
        if stop <= self.ends[i]:
            return int(self.starts[i] + first - begin), stop - first
        j = int(np.searchsorted(self.ends, stop, side="left"))
        rows = [
            np.arange(
                self.starts[k], self.starts[k] + self.ends[k] - (self.ends[k - 1] if k else 0)
            )
            for k in range(i, j + 1)
        ]
        return np.concatenate(rows)[first - begin : stop - begin]


def _runs(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each run of consecutive ``rows``, the count at each run's end)."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        return rows, rows
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    return rows[np.r_[0, breaks]], np.r_[breaks, rows.size].astype(np.int64)


#: Per process, the latest selections read in parts, by (path, row count, the newest
#: change of the main table's files, the selection): a worker reading chunk after chunk
#: of one selection runs its TaQL query and opens the subtables once (a query scans the
#: whole main table). Any change to the main table's files makes a new plan.
_PLANS: OrderedDict = OrderedDict()
_PLANS_KEPT = 8


def _plan_key(ms: MSTables, time_range, selection: dict) -> tuple:
    with os.scandir(ms.path) as files:
        changed = max(f.stat().st_mtime_ns for f in files if f.name.startswith("table.")
                      and f.name != "table.lock" and f.is_file())  # fmt: skip
    return (os.path.realpath(ms.path), ms.main.nrows(), changed, time_range,
            tuple(sorted((k, repr(v)) for k, v in selection.items())))  # fmt: skip


def plan_for(ms: MSTables, time_range, **selection) -> Plan:
    """The selection's :class:`Plan`: this process's kept one, else made by its query."""
    key = _plan_key(ms, time_range, selection)
    plan = _PLANS.get(key)
    if plan is None:
        sel, tab = selected(ms, time_range=time_range, **selection)
        check_readable(ms, sel, tab, time_range)
        plan = Plan(sel, *_runs(tab.rownumbers()))
        _keep(key, plan)
    _PLANS.move_to_end(key)
    return plan


def adopt_plan(ms: MSTables, time_range, plan: Plan, **selection) -> None:
    """Keep ``plan``, made by another process for this MS and selection, as this process's
    own (a worker then reads its chunks without the query, which scans the whole main
    table: 22.5 M rows in seconds). Keyed as :func:`plan_for` keys it here, so a change of
    the main table since makes a new plan as before."""
    _keep(_plan_key(ms, time_range, selection), plan)


def _keep(key: tuple, plan: Plan) -> None:
    _PLANS[key] = plan
    _PLANS.move_to_end(key)
    while len(_PLANS) > _PLANS_KEPT:
        _PLANS.popitem(last=False)


def row_part(ms: MSTables, plan: Plan, row_range: tuple[int, int]):
    """(table, first row in it, rows) of the part ``row_range`` of the selection: the
    main table itself where the part's rows are consecutive there."""
    n = plan.nrows
    first, stop = int(row_range[0]), int(row_range[1])
    if not 0 <= first < stop <= n:
        raise ValueError(f"row range {row_range} is not within 0 … {n}")
    rows = plan.main_rows(first, stop)
    if isinstance(rows, tuple):
        return ms.main, rows[0], rows[1]
    with translated(ms.path):
        return ms.main.selectrows(rows), 0, stop - first
