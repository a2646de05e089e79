"""Add or replace one visibility column of a MeasurementSet, all or nothing.

:func:`write_column` writes the new column under a temporary name
(``UVLAB_PARTIAL_<NAME>``); only when every row is written does it remove an
existing column of the final name (``overwrite=True``) and rename the new one
into place. If anything fails or is cancelled (including Ctrl-C), it closes
the table and puts the MeasurementSet back exactly as it was: the files the
write created are deleted and the main table's small bookkeeping files
(``table.dat``, ``table.info``, ``table.lock``, index files; anything up to
:data:`BACKUP_LIMIT` bytes) are restored byte for byte. Adding a column never
touches the other columns' data files.

A process killed outright (SIGKILL, power loss) can leave the temporary
column behind; its name says it is incomplete, no reader of DATA /
MODEL_DATA / CORRECTED_DATA picks it up, and the next write removes it.

The new column copies DATA's description (value type, shape, keywords) with
its own tiled data manager: TiledColumnStMan when DATA has a fixed shape,
TiledShapeStMan otherwise. Like every table access, call this from the one
I/O thread (casacore is not thread-safe).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from uvlab.app.ms.columns import tile_rows, tiled_dminfo
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.tables import check_path, translated

#: Main-table files up to this size are backed up before the table is opened for writing.
BACKUP_LIMIT = 16 * 2**20
_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
PARTIAL_PREFIX = "UVLAB_PARTIAL_"


def partial_name(column: str) -> str:
    """The temporary name a column is written under."""
    return PARTIAL_PREFIX + column


class _Snapshot:
    """The main table folder's entries, with the bytes of its small files."""

    def __init__(self, path: str):
        self.root = Path(path)
        self.entries = {p.name for p in self.root.iterdir()}
        self.saved: dict[str, bytes] = {}
        self.stat: dict[str, tuple[int, int]] = {}
        for p in self.root.iterdir():
            if p.is_file():
                st = p.stat()
                self.stat[p.name] = (st.st_size, st.st_mtime_ns)
                if st.st_size <= BACKUP_LIMIT:
                    self.saved[p.name] = p.read_bytes()

    def restore(self) -> list[str]:
        """Put the folder back; return names of changed files it could not restore."""
        for p in self.root.iterdir():
            if p.name not in self.entries:
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        p.unlink()
        lost = []
        for name, (size, mtime) in self.stat.items():
            p = self.root / name
            if name in self.saved:
                if not p.is_file() or p.read_bytes() != self.saved[name]:
                    p.write_bytes(self.saved[name])
                    os.utime(p, ns=(mtime, mtime))
            elif not p.is_file() or (p.stat().st_size, p.stat().st_mtime_ns) != (size, mtime):
                lost.append(name)
        return lost


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


def check_column_request(path: str, colnames, column: str, overwrite: bool) -> str:
    """Validate the target column name; return it upper-cased, or raise MSError."""
    col = column.strip().upper()
    if not _NAME.fullmatch(col) or col.startswith(PARTIAL_PREFIX):
        raise MSError(f"{path}: {column!r} is not a valid column name")
    if col in colnames and not overwrite:
        what = "the observed data" if col == "DATA" else "data"
        raise MSError(
            f"{path}: column {col} already exists and holds {what}; pass --overwrite to replace it"
        )
    return col


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
        Final column name.
    fill : callable(table, colname)
        Writes every row of ``colname`` in the open table (``table.putcol``);
        may raise (e.g. :class:`~uvlab.app.errors.Cancelled`) to abandon the write.
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
    MSError
        Bad name, a column that exists without ``overwrite``, or a casacore error;
        whatever ``fill`` raises is re-raised after the rollback.
    """
    from casacore import tables

    path = check_path(path)
    snap = _Snapshot(path)
    tab = None
    try:
        with translated(path):
            tab = tables.table(path, readonly=False, ack=False)
            col = check_column_request(path, tab.colnames(), column, overwrite)
            tmp = partial_name(col)
            if tmp in tab.colnames():
                tab.removecols(tmp)
            desc, dminfo = column_desc_like(tab, tmp, like, cell_shape)
            tab.addcols(tables.maketabdesc(desc), dminfo)
        fill(tab, tmp)
        with translated(path):
            replaced = col in tab.colnames()
            if replaced:
                tab.removecols(col)
            tab.renamecol(tmp, col)
            tab.flush()
            tab.close()
            tab = None
        return replaced
    except BaseException as exc:
        if tab is not None:
            with contextlib.suppress(Exception):
                tab.close()
        lost = snap.restore()
        if lost:
            raise MSError(
                f"{path}: writing column {column} failed ({exc}) and these files could not be "
                f"restored: {', '.join(lost)}"
            ) from exc
        raise


def put_rows(tab, colname: str, start: int, data: np.ndarray) -> None:
    """``tab.putcol`` of a (nrow, nchan, ncorr) block at ``start``, cast to the column type."""
    dtype = np.complex128 if tab.coldatatype(colname) == "dcomplex" else np.complex64
    tab.putcol(colname, np.ascontiguousarray(data, dtype=dtype), start, data.shape[0])
