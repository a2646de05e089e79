"""Validate a MeasurementSet and summarise it (what ``uvlab info`` prints).

:func:`open_ms` reads the subtables and scans the main table in row chunks
(memory stays bounded); it also reads one cell of every column it relies on,
so a MeasurementSet with a missing storage file fails here with a clear
:class:`~uvlab.app.ms.errors.MSError` rather than halfway through an image.
Call it from the single I/O thread (see :mod:`uvlab.app.ms.tables`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from uvlab.app.ms.metadata import (
    DataDescInfo,
    FieldInfo,
    MSInfo,
    read_data_descs,
    read_fields,
    read_polarizations,
    read_spws,
)
from uvlab.app.ms.tables import DATA_COLUMNS, MSTables, row_chunks, translated

_SCAN_ROWS = 1_000_000
_FLAG_CHUNK_BYTES = 32 * 2**20
_PROBE_COLUMNS = (
    "TIME",
    "ANTENNA1",
    "ANTENNA2",
    "FIELD_ID",
    "DATA_DESC_ID",
    "UVW",
    "FLAG",
    "FLAG_ROW",
    "WEIGHT",
    "SIGMA",
    "WEIGHT_SPECTRUM",
    "INTERVAL",
    *DATA_COLUMNS,
)


def _observation(ms: MSTables, column: str) -> str:
    """The OBSERVATION table's distinct ``column`` values, joined ("unknown" without any)."""
    if "OBSERVATION" not in ms.main.getkeywords():
        return "unknown"
    t = ms.sub("OBSERVATION")
    with translated(ms.path):
        ok = t.nrows() and column in t.colnames()
        names = [str(n) for n in t.getcol(column)] if ok else []
    return ", ".join(dict.fromkeys(n for n in names if n)) or "unknown"


def _telescope(ms: MSTables) -> str:
    return _observation(ms, "TELESCOPE_NAME")


def _probe(ms: MSTables) -> None:
    """Read one cell of each column used, so a missing storage file shows up now."""
    if not ms.main.nrows():
        return
    with translated(ms.path):
        for col in _PROBE_COLUMNS:
            if col in ms.colnames and ms.main.iscelldefined(col, 0):
                ms.main.getcell(col, 0)


def _flagged(ms: MSTables, dds: list[DataDescInfo], spws, pols) -> tuple[int, int]:
    """(flagged, total) visibility samples, FLAG_ROW included, over all rows."""
    cols = ms.colnames
    flagged = total = 0
    for dd in dds:
        sel = ms.query(f"DATA_DESC_ID=={dd.id}")
        n = sel.nrows()
        if not n:
            continue
        nchan = spws[dd.spw_id].nchan if dd.spw_id < len(spws) else 1
        ncorr = len(pols.get(dd.pol_id, ("?",)))
        chunk = max(1, _FLAG_CHUNK_BYTES // max(1, nchan * ncorr))
        with translated(ms.path):
            for start, nrow in row_chunks(n, chunk):
                row = sel.getcol("FLAG_ROW", start, nrow) if "FLAG_ROW" in cols else None
                if "FLAG" in cols and sel.iscelldefined("FLAG", start):
                    f = sel.getcol("FLAG", start, nrow)
                    if row is not None:
                        f = f | row[:, None, None]
                    flagged += int(np.count_nonzero(f))
                    total += f.size
                else:
                    flagged += int(np.count_nonzero(row)) * nchan * ncorr if row is not None else 0
                    total += nrow * nchan * ncorr
    return flagged, total


@dataclass
class _Scan:
    """Running totals of the main-table scan."""

    tmin: float = np.inf
    tmax: float = -np.inf
    times: set = field(default_factory=set)
    pairs: set = field(default_factory=set)
    antennas: set = field(default_factory=set)
    autos: bool = False
    intervals: list = field(default_factory=list)
    field_rows: np.ndarray | None = None
    nonfinite_uvw: int = 0


def _scan(ms: MSTables, nfield: int) -> _Scan:
    """TIME, antennas, fields, INTERVAL and non-finite UVW over all rows, in chunks."""
    main, out = ms.main, _Scan(field_rows=np.zeros(nfield, dtype=np.int64))
    with translated(ms.path):
        for start, n in row_chunks(main.nrows(), _SCAN_ROWS):
            t = main.getcol("TIME", start, n)
            a1, a2 = main.getcol("ANTENNA1", start, n), main.getcol("ANTENNA2", start, n)
            fid = main.getcol("FIELD_ID", start, n)
            out.tmin, out.tmax = min(out.tmin, t.min()), max(out.tmax, t.max())
            out.times.update(np.unique(t).tolist())
            cross = a1 != a2
            out.autos = out.autos or bool((~cross).any())
            out.pairs.update(np.unique(a1[cross].astype(np.int64) * 2**32 + a2[cross]).tolist())
            out.antennas.update(np.unique(np.concatenate([a1[cross], a2[cross]])).tolist())
            ok = (fid >= 0) & (fid < nfield)
            out.field_rows += np.bincount(fid[ok], minlength=nfield)[:nfield]
            if "INTERVAL" in ms.colnames:
                out.intervals.append(float(np.median(main.getcol("INTERVAL", start, n))))
            if "UVW" in ms.colnames:
                uvw = main.getcol("UVW", start, n)
                out.nonfinite_uvw += int(np.count_nonzero(~np.isfinite(uvw).all(axis=1)))
    return out


def open_ms(path: str | os.PathLike) -> MSInfo:
    """Validate a MeasurementSet and summarise it, reading row chunks.

    Parameters
    ----------
    path : str or path-like
        The MeasurementSet folder. It is opened read-only and never written.

    Returns
    -------
    MSInfo

    Raises
    ------
    MSError
        If the path is missing, not an MS, or an MS with missing tables or files.
    """
    with MSTables(path) as ms:
        _probe(ms)
        fields, spws = read_fields(ms), read_spws(ms)
        dds, pols = read_data_descs(ms), read_polarizations(ms)
        ant = ms.sub("ANTENNA")
        with translated(ms.path):
            names = tuple(str(n) for n in ant.getcol("NAME")) if ant.nrows() else ()
            pos = ant.getcol("POSITION") if ant.nrows() else np.zeros((0, 3))
            dish = ant.getcol("DISH_DIAMETER") if ant.nrows() else np.zeros(0)
        nrows = ms.main.nrows()
        scan = _scan(ms, len(fields))
        flagged, total = _flagged(ms, dds, spws, pols)
        telescope = _telescope(ms)
        observer = _observation(ms, "OBSERVER")
        present = tuple(c for c in DATA_COLUMNS if c in ms.colnames)
    nan = float("nan")
    return MSInfo(
        path=ms.path,
        telescope=telescope,
        antenna_names=names,
        antenna_positions=np.asarray(pos, dtype=float).reshape(-1, 3),
        dish_diameter_m=np.asarray(dish, dtype=float),
        nbaselines=len(scan.pairs),
        antennas_with_data=len(scan.antennas),
        has_autocorrelations=scan.autos,
        time_start_mjd_s=float(scan.tmin) if nrows else nan,
        time_end_mjd_s=float(scan.tmax) if nrows else nan,
        nintegrations=len(scan.times),
        int_s=float(np.median(scan.intervals)) if scan.intervals else nan,
        fields=tuple(
            FieldInfo(f.id, f.name, f.ra_rad, f.dec_rad, int(scan.field_rows[f.id]), f.frame)
            for f in fields
        ),
        spws=tuple(spws),
        data_descs=tuple(dds),
        correlations=pols,
        data_columns=present,
        nrows=int(nrows),
        flagged_fraction=flagged / total if total else 0.0,
        nonfinite_uvw_rows=scan.nonfinite_uvw,
        observer=observer,
    )
