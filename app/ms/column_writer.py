"""Add or replace one visibility column of a MeasurementSet, all or nothing.

:func:`write_column` follows the commit protocol of :mod:`uvlab.app.ms.journal`
(docs/data-safety.md): a journal snapshots the table; the new column is added
as ``UVLAB_PARTIAL_<NAME>``, filled, flushed and fsynced; in one critical
section an existing column of the final name is renamed to ``UVLAB_OLD_<NAME>``
(not deleted), the new one renamed into place and flushed, and the journal
records the commit; only then is the old column removed and the journal
dropped. A failure, a cancel, Ctrl-C or SIGTERM before the commit point rolls
the table back to exactly what it was; one after it completes the write. A
process killed outright (SIGKILL, power loss) leaves the journal, and the next
uvlab run that opens the MeasurementSet (or ``uvlab repair``) finishes or rolls
back the write the same way.

Only visibility columns may be written (:func:`check_column_request`): DATA,
CORRECTED_DATA, MODEL_DATA, or a new name that is not a standard MS column.

The new column copies DATA's description (value type, shape, keywords) with
its own tiled data manager: TiledColumnStMan when DATA has a fixed shape,
TiledShapeStMan otherwise. Like every table access, call this from the one
I/O thread (casacore is not thread-safe).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from uvlab.app.ms.columns import tile_rows, tiled_dminfo
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.journal import Journal
from uvlab.app.ms.journal_folder import OLD_PREFIX, PARTIAL_PREFIX
from uvlab.app.ms.journal_recovery import recover, recover_if_interrupted
from uvlab.app.ms.ms_lock import MSLock
from uvlab.app.ms.snapshot import sync_folder
from uvlab.app.ms.tables import DATA_COLUMNS, check_path, discard_and_close, translated
from uvlab.app.runtime.errors import UsageError
from uvlab.app.runtime.faults import fault_point
from uvlab.app.runtime.signals import critical

_NAME = re.compile(r"[A-Z][A-Z0-9_]*")

#: Main-table columns of the MeasurementSet v2 definition that are not visibility data.
STANDARD_COLUMNS = frozenset(
    """UVW FLAG FLAG_CATEGORY WEIGHT SIGMA ANTENNA1 ANTENNA2 ANTENNA3 ARRAY_ID
    DATA_DESC_ID EXPOSURE FEED1 FEED2 FEED3 FIELD_ID FLAG_ROW INTERVAL OBSERVATION_ID
    PROCESSOR_ID SCAN_NUMBER STATE_ID TIME TIME_CENTROID TIME_EXTRA_PREC UVW2
    WEIGHT_SPECTRUM SIGMA_SPECTRUM CORRECTED_WEIGHT_SPECTRUM IMAGING_WEIGHT FLOAT_DATA
    LAG_DATA VIDEO_POINT BASELINE_REF PHASE_ID PULSAR_BIN PULSAR_GATE_ID""".split()
)


def partial_name(column: str) -> str:
    """The temporary name a column is written under."""
    return PARTIAL_PREFIX + column


def _unused_dm_name(tab, base: str) -> str:
    """``base``, or ``base_2``, ``base_3``, … : a data-manager name the table does not use."""
    used = {str(dm.get("NAME")) for dm in tab.getdminfo().values()}
    name, k = base, 1
    while name in used:
        k += 1
        name = f"{base}_{k}"
    return name


def column_desc_like(tab, name: str, like: str, cell_shape=None, dcomplex: bool = False):
    """(column description, dminfo) for a new column ``name`` shaped like column ``like``.

    Parameters
    ----------
    tab : casacore table
    name : str
    like : str
        Column to copy (e.g. DATA); when absent, ``cell_shape`` must be given.
    cell_shape : (nchan, ncorr), optional
        Fixed cell shape to use when ``like`` does not exist.
    dcomplex : bool
        Value type when ``like`` does not exist.
    """
    from casacore import tables

    if like in tab.colnames():
        desc = tab.getcoldesc(like)
        vtype = desc.get("valueType", "complex")
        shape = desc.get("shape")
        fixed = bool(desc.get("option", 0) & 4) and shape is not None and len(shape) == 2
        keywords = desc.get("keywords", {})
        comment = desc.get("comment", "")
    else:
        if cell_shape is None:
            raise ValueError(f"no column {like} to copy and no cell shape given")
        vtype, shape, fixed, keywords = (
            ("dcomplex" if dcomplex else "complex"),
            cell_shape,
            True,
            {},
        )
        comment = ""
    dm = _unused_dm_name(tab, f"Tiled_{name.removeprefix(PARTIAL_PREFIX)}")
    if fixed:
        nchan, ncorr = (int(s) for s in shape)
        itemsize = 16 if vtype == "dcomplex" else 8
        dminfo = tiled_dminfo(dm, name, ncorr, nchan, tile_rows(nchan, ncorr, itemsize))
        cdesc = tables.makearrcoldesc(
            name,
            0j,
            shape=[nchan, ncorr],
            valuetype=vtype,
            datamanagertype="TiledColumnStMan",
            datamanagergroup=dm,
            keywords=keywords,
            comment=comment,
        )
    else:
        nchan, ncorr = (int(s) for s in (cell_shape or (64, 4)))
        dminfo = tiled_dminfo(dm, name, ncorr, nchan, tile_rows(nchan, ncorr, 8), kind="shape")
        cdesc = tables.makearrcoldesc(
            name,
            0j,
            ndim=2,
            valuetype=vtype,
            datamanagertype="TiledShapeStMan",
            datamanagergroup=dm,
            keywords=keywords,
            comment=comment,
        )
    return cdesc, dminfo


def check_column_request(
    path: str, colnames, column: str, overwrite: bool, coltypes: dict | None = None
) -> str:
    """Validate the target column name; return it upper-cased.

    Raises
    ------
    UsageError
        A name that is not a visibility column (UVW, FLAG, WEIGHT_SPECTRUM, …),
        not a valid column name, or uvlab's own temporary names.
    MSError
        The column exists and ``overwrite`` is false.
    """
    col = column.strip().upper()
    if (
        not _NAME.fullmatch(col)
        or col.startswith((PARTIAL_PREFIX, OLD_PREFIX))
        or col.startswith("UVLAB_COMMIT")
    ):
        raise UsageError(f"{path}: {column!r} is not a valid column name")
    if col in STANDARD_COLUMNS:
        raise UsageError(
            f"{path}: column {col} is not a visibility column; uvlab writes only "
            f"{', '.join(DATA_COLUMNS)} or a new column name"
        )
    kind = (coltypes or {}).get(col)
    if col in colnames and kind is not None and kind not in ("complex", "dcomplex"):
        raise UsageError(
            f"{path}: column {col} holds {kind} values, not visibilities; choose another name"
        )
    if col in colnames and not overwrite:
        what = "the observed data" if col == "DATA" else "data"
        raise MSError(
            f"{path}: column {col} already exists and holds {what}; pass --overwrite to replace it"
        )
    return col


def column_types(tab) -> dict[str, str]:
    """Value type of each column of an open table (``"complex"``, ``"double"``, …)."""
    return {c: str(tab.coldatatype(c)) for c in tab.colnames()}


def _dm_files_shared_with(tab, column: str) -> tuple[str, ...]:
    """Files of ``column``'s data manager when other columns share it (rewritten in place)."""
    for dm in tab.getdminfo().values():
        cols = list(dm.get("COLUMNS", []))
        if column in cols and len(cols) > 1:
            seq = int(dm.get("SEQNR", -1))
            folder = Path(tab.name())
            return tuple(
                p.name for p in folder.iterdir() if re.fullmatch(rf"table\.f{seq}(i|_.*)?", p.name)
            )
    return ()


def write_column(
    path: str | os.PathLike,
    column: str,
    fill: Callable[[object, str], None],
    *,
    overwrite: bool = False,
    like: str = "DATA",
    cell_shape=None,
) -> bool:
    """Create (or replace) ``column`` in the main table of ``path`` by calling ``fill``.

    Parameters
    ----------
    path : str or path-like
        MeasurementSet folder.
    column : str
        Final column name (see :func:`check_column_request`).
    fill : callable(table, colname)
        Writes every row of ``colname`` in the open table (``table.putcol``);
        may raise (e.g. :class:`~uvlab.app.runtime.errors.Cancelled`) to abandon the write.
    overwrite : bool
        Replace an existing column of that name (DATA included).
    like : str
        Column whose description the new one copies.
    cell_shape : (nchan, ncorr), optional
        Used when ``like`` is absent.

    Returns
    -------
    bool
        True when an existing column was replaced.

    Raises
    ------
    UsageError, MSError
        A column that may not be written, one that exists without ``overwrite``,
        a write in progress elsewhere, or a casacore error; whatever ``fill``
        raises (also :class:`~uvlab.app.runtime.signals.Interrupted`) is re-raised after
        the rollback.
    """
    from casacore import tables

    path = check_path(path)
    with MSLock.acquire(path):  # before anything is read: no other writer until we are done
        recover_if_interrupted(path)  # a dead writer's journal is finished or rolled back first
        with translated(path):
            ro = tables.table(path, readonly=True, ack=False)
            try:
                names, types = ro.colnames(), column_types(ro)
            finally:
                ro.close()
        col = check_column_request(path, names, column, overwrite, types)
        replaced = col in names
        try:
            journal = Journal.begin(path, col, col if replaced else None)
        except KeyboardInterrupt as exc:  # the half-built journal is gone: nothing changed
            _set_outcome(exc, _rolled_back(col))
            raise
    tab = None
    try:
        fault_point("journal-written")
        tmp = partial_name(col)
        with translated(path):
            tab = tables.table(path, readonly=False, ack=False)
            desc, dminfo = column_desc_like(tab, tmp, like, cell_shape)
            tab.addcols(tables.maketabdesc(desc), dminfo)
        fault_point("column-added")
        fill(tab, tmp)
        fault_point("filled")
        # Before the commit point: a signal here is held to the end of the block and
        # then rolls the write back like any failure.
        with critical(), translated(path):
            _make_room(journal, path, col)
            tab.flush()
            sync_folder(Path(path))
            journal.note()
            fault_point("flushed")
            shared = _dm_files_shared_with(tab, col) if replaced else ()
            if replaced:
                tab.renamecol(col, OLD_PREFIX + col)
                fault_point("renamed-old")
            tab.renamecol(tmp, col)
            fault_point("renamed-new")
            _make_room(journal, path, col)
            tab.flush()
            sync_folder(Path(path))
            journal.note()
            fault_point("switch-flushed")
            journal.snapshot1(copy_also=shared, drop_after=OLD_PREFIX + col if replaced else None)
    except BaseException as exc:
        try:
            _end_failed(path, journal, tab, [partial_name(col)], exc)
        except KeyboardInterrupt as late:  # a signal during the rollback: raised at its end
            _set_outcome(late, _rolled_back(col))
            raise
        _set_outcome(exc, _rolled_back(col))
        raise
    try:
        # The commit point and after: a signal here waits until the write is complete.
        with critical(), translated(path):
            journal.commit()
            fault_point("committed")
            if replaced:
                tab.removecols(OLD_PREFIX + col)
                fault_point("old-removed")
            journal.make_room()  # after the commit point the write goes on: best effort
            tab.flush()
            tab.close()
            tab = None
            sync_folder(Path(path))
            fault_point("old-flushed")
            journal.retire()
    except BaseException as exc:
        done = f"the write of {col} was completed"
        try:
            _end_failed(path, journal, tab, [], exc)  # rolls forward
        except KeyboardInterrupt as late:  # a signal during the roll-forward
            _set_outcome(late, done, completed=True)
            raise
        if isinstance(exc, KeyboardInterrupt):
            _set_outcome(exc, done, completed=True)
            raise
        # any other failure after the commit point: recovery completed the write
    return replaced


def _make_room(journal: Journal, path: str, col: str) -> None:
    """Room for a casacore flush from the journal's reserve, or refuse (casacore would abort)."""
    if not journal.make_room():
        raise MSError(f"{path}: could not write {col} (the disk is full)")


def _rolled_back(col: str) -> str:
    return f"the write of {col} was rolled back, the MeasurementSet is as it was"


def _set_outcome(exc: BaseException, outcome: str, *, completed: bool = False) -> None:
    """Tell :mod:`uvlab.app.cli` what became of the write when a signal stopped it."""
    if isinstance(exc, KeyboardInterrupt) and getattr(exc, "outcome", None) is None:
        exc.outcome = outcome
        exc.completed = completed


def put_rows(tab, colname: str, start: int, data: np.ndarray) -> None:
    """``tab.putcol`` of a (nrow, nchan, ncorr) block at ``start``, cast to the column type."""
    fault_point("rows-written")
    dtype = np.complex128 if tab.coldatatype(colname) == "dcomplex" else np.complex64
    tab.putcol(colname, np.ascontiguousarray(data, dtype=dtype), start, data.shape[0])


def _end_failed(path: str, journal: Journal, tab, new_columns, exc: BaseException) -> bool:
    """Close the table and roll back (or finish) a failed write; whether it had committed.

    Before the commit point the new columns are dropped from the open table
    first (:func:`~uvlab.app.ms.tables.discard_and_close`), so casacore's
    closing flush has nothing large to write even on a full disk; then the
    journal puts the folder back.
    """
    with critical():
        committed = journal.state.get("phase") == "switched"
        journal.free_reserve()  # room for casacore's closing flush
        if tab is not None:
            discard_and_close(tab, [] if committed else new_columns)
        if journal.active:
            try:
                recover(path)
            except Exception as rexc:
                raise MSError(
                    f"{path}: {journal.state.get('column')}: the write failed ({exc}) and the "
                    f"rollback failed too ({rexc}); run `uvlab repair {path}`"
                ) from exc
        journal.release()
    return committed


def remove_columns(path: str | os.PathLike, names: list[str]) -> None:
    """Remove ``names`` from the main table under the journal (all or nothing)."""
    from casacore import tables

    path = check_path(path)
    journal = Journal.begin(path, ",".join(names), None, adds=(), drops=tuple(names))
    tab = None
    try:
        with translated(path):
            tab = tables.table(path, readonly=False, ack=False)
            tab.removecols(names)
            journal.make_room()
            tab.flush()
            tab.close()
            tab = None
        with critical():
            sync_folder(Path(path))
            journal.switch()
            journal.retire()
    except BaseException as exc:
        _end_failed(path, journal, tab, [], exc)
        raise
