"""NaN and Inf written into a real MeasurementSet, and the flags that stand for them.

paper_xy.ms (285 rows × 11 channels, one correlation XY): :func:`pick` chooses
the cross-correlation rows whose UVW and the (row, channel) cells whose DATA
:func:`spoil` makes non-finite; :func:`flag_instead` is the oracle, the same
samples flagged in FLAG with their values left finite.
"""

from __future__ import annotations

import numpy as np
from casacore import tables

#: paper_xy.ms (285 rows × 11 channels, one correlation XY): rows to spoil.
NAN_UVW_ROWS = (7, 40, 41)  # cross-correlation rows
NAN_DATA = ((12, 3), (12, 4), (100, 0), (200, 10))  # (row, channel)


def cross_rows(path) -> np.ndarray:
    """Main-table row numbers of the cross-correlations."""
    t = tables.table(str(path), readonly=True, ack=False)
    try:
        return np.flatnonzero(t.getcol("ANTENNA1") != t.getcol("ANTENNA2"))
    finally:
        t.close()


def spoil(path, rows, cells) -> None:
    """Write NaN into the UVW of ``rows`` and the DATA of ``cells`` (all correlations)."""
    t = tables.table(str(path), readonly=False, ack=False)
    try:
        uvw = t.getcol("UVW")
        uvw[list(rows), 1] = np.nan
        t.putcol("UVW", uvw)
        data = t.getcol("DATA")
        for r, c in cells:
            data[r, c, :] = complex(np.nan, 0.0) if c % 2 else complex(0.0, np.inf)
        t.putcol("DATA", data)
    finally:
        t.close()


def flag_instead(path, rows, cells) -> None:
    """The oracle: flag the same rows and samples, values left finite."""
    t = tables.table(str(path), readonly=False, ack=False)
    try:
        flag = t.getcol("FLAG")
        flag[list(rows)] = True
        for r, c in cells:
            flag[r, c, :] = True
        t.putcol("FLAG", flag)
    finally:
        t.close()


def pick(path):
    """(rows, cells) of :data:`NAN_UVW_ROWS` and :data:`NAN_DATA` among the cross-correlations."""
    cross = cross_rows(path)
    rows = tuple(int(cross[i]) for i in NAN_UVW_ROWS)
    cells = tuple((int(cross[i]), c) for i, c in NAN_DATA)
    return rows, cells
