"""Open a MeasurementSet read-only, translate casacore's errors, close everything.

Thread safety: casacore is not thread-safe. Every function in
:mod:`uvlab.app.ms` opens, reads and closes its tables in the calling thread,
so all of them must be called from ONE I/O thread (the GUI routes them through
its single MS worker; the command line is single-threaded anyway).

Nothing here writes to the MeasurementSet: tables open with ``readonly=True``
and ``ack=False``, and are closed in ``finally`` blocks. casacore creates a
``table.lock`` file beside each table it opens, even read-only; :class:`MSTables`
notes which lock files existed before it opened anything and deletes, after
closing, only those it created itself. (A process that opened the same table
in between would lose its lock file; open copies, not data in use elsewhere.)
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from uvlab.app.ms.errors import MSError, translate

#: Subtables the reader needs; an MS without one of them cannot be read.
REQUIRED_SUBTABLES = ("ANTENNA", "DATA_DESCRIPTION", "FIELD", "POLARIZATION", "SPECTRAL_WINDOW")

#: Visibility columns uvlab can read, in the order they are listed.
DATA_COLUMNS = ("DATA", "CORRECTED_DATA", "MODEL_DATA")


def check_path(path: str | os.PathLike) -> str:
    """The MS path as a string, after checking that it looks like a casacore table.

    Raises
    ------
    MSError
        If the path does not exist, is not a folder, or holds no ``table.dat``.
    """
    p = Path(path)
    if not p.exists():
        raise MSError(f"{p}: no such file or folder")
    if not p.is_dir():
        raise MSError(f"{p}: not a MeasurementSet (a MeasurementSet is a folder, this is a file)")
    if not (p / "table.dat").is_file():
        raise MSError(f"{p}: not a MeasurementSet (the folder holds no casacore table.dat)")
    return str(p)


@contextlib.contextmanager
def translated(path: str) -> Iterator[None]:
    """Turn casacore ``RuntimeError`` raised inside the block into :class:`MSError`."""
    try:
        yield
    except RuntimeError as exc:
        raise translate(path, exc) from exc


_reported: set[str] = set()


def report_pending_write(path: str) -> str | None:
    """Warn (once per process and MeasurementSet) of an interrupted write pending in ``path``.

    The table is read as it is on disk: before the commit point of the dead
    write that is the old table, with the writer's unfinished ``UVLAB_PARTIAL_``
    column beside it (or the replaced column under ``UVLAB_OLD_``); after it,
    the new one. Nothing is changed; ``uvlab repair`` finishes or rolls back.
    Returns the line (also when it was reported before), or None.
    """
    from uvlab.app.ms.journal_recovery import pending_write

    line = pending_write(path)
    if line is not None and os.path.realpath(path) not in _reported:
        _reported.add(os.path.realpath(path))
        logging.getLogger("uvlab.app.ms.journal").warning("%s", line)
    return line


class MSTables:
    """The main table of a MeasurementSet and its subtables, all read-only.

    Use as a context manager; tables opened through it close on exit, and lock
    files it created are removed::

        with MSTables(path) as ms:
            names = ms.sub("ANTENNA").getcol("NAME")
            sel = ms.query("FIELD_ID == 0")
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = check_path(path)
        # A write that a killed uvlab left half-done is reported, never recovered here:
        # reading commands do not modify the MeasurementSet (`uvlab repair` does).
        self.pending = report_pending_write(self.path)
        self.main = None
        self._open: list = []
        self._subs: dict = {}
        self._locks_before: set[Path] = set()

    def __enter__(self) -> MSTables:
        from casacore import tables

        self._locks_before = set(Path(self.path).rglob("table.lock"))
        try:
            with translated(self.path):
                self.main = tables.table(self.path, readonly=True, ack=False)
                self._open.append(self.main)
            keywords = self.main.getkeywords()
            missing = [name for name in REQUIRED_SUBTABLES if name not in keywords]
            if missing:
                raise MSError(
                    f"{self.path}: not a MeasurementSet (no {', '.join(missing)} "
                    f"subtable{'s' if len(missing) > 1 else ''})"
                )
        except MSError as exc:
            self.close()
            if self.pending is None:
                raise
            raise MSError(
                f"{exc} (an interrupted uvlab write is pending: run `uvlab repair {self.path}`)"
            ) from exc
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def colnames(self) -> list[str]:
        """Columns of the main table."""
        return list(self.main.colnames())

    def sub(self, name: str):
        """The subtable ``name`` (opened once, read-only), or raise :class:`MSError`."""
        if name in self._subs:
            return self._subs[name]
        from casacore import tables

        keywords = self.main.getkeywords()
        if name not in keywords:
            raise MSError(f"{self.path}: the MeasurementSet has no {name} subtable")
        ref = str(keywords[name])
        with translated(self.path):
            sub = tables.table(ref, readonly=True, ack=False)
        self._open.append(sub)
        self._subs[name] = sub
        return sub

    def query(self, where: str):
        """A reference table of the main-table rows matching the TaQL ``where``."""
        with translated(self.path):
            sel = self.main.query(where)
        self._open.append(sel)
        return sel

    def close(self) -> None:
        """Close every table opened here (newest first) and remove our lock files."""
        while self._open:
            table = self._open.pop()
            with contextlib.suppress(Exception):
                table.close()
        self._subs.clear()
        self.main = None
        for lock in set(Path(self.path).rglob("table.lock")) - self._locks_before:
            with contextlib.suppress(OSError):
                lock.unlink()


def discard_and_close(tab, columns) -> None:
    """Close a table whose new ``columns`` are being thrown away, without casacore aborting.

    casacore writes cached tiles when a table closes and aborts the process if
    that fails (a full disk); removing the columns first drops their caches and
    files, so the close has next to nothing to write. Errors are ignored: the
    caller rolls the folder back anyway.
    """
    with contextlib.suppress(Exception):
        present = [c for c in columns if c in tab.colnames()]
        if present:
            tab.removecols(present)
    with contextlib.suppress(Exception):
        tab.close()


def row_chunks(nrows: int, chunk_rows: int) -> Iterator[tuple[int, int]]:
    """``(startrow, nrow)`` pairs covering ``nrows`` rows, ``chunk_rows`` at a time."""
    step = max(1, int(chunk_rows))
    for start in range(0, int(nrows), step):
        yield start, min(step, int(nrows) - start)
