"""The commit journal that makes a MeasurementSet column write all or nothing.

A write to a main table (:func:`uvlab.app.ms.column_writer.write_column`)
first takes the MeasurementSet's write lock (:mod:`uvlab.app.ms.ms_lock`),
then keeps a journal folder, ``UVLAB_COMMIT``, inside the table while it runs.
The journal holds a *snapshot* of the table folder: the bytes of every small
file (``table.dat``, ``table.info``, storage-manager headers, …) and a hard
link to every large data file, so a data file that casacore deletes stays on
disk, under the journal's link, until the journal is dropped. ``state.json``
records the identity of every entry (inode, size, mtime, a hash of each copied
file), the table's columns, rows and data managers, the files the writer has
created so far, and which phase the write had reached:

``writing``
    Snapshot 0 (the table as it was) is durable; the new column is being
    added, filled, flushed and renamed into place. Recovery **rolls back**:
    the files the write changed are put back as in snapshot 0 and the files it
    created are removed.
``switched``
    The new column is under its final name, flushed and fsynced; the replaced
    column (if any) still exists as ``UVLAB_OLD_<NAME>``. Snapshot 1 records
    that state. Recovery **rolls forward**: the folder is put back as in
    snapshot 1, the old column is removed, the table flushed.

Recovery (:mod:`uvlab.app.ms.journal_recovery`) undoes only what the dead
writer did: before it changes anything it compares the folder with the journal
(:mod:`uvlab.app.ms.journal_check`) and refuses, changing nothing, when the
journal is malformed or the table changed in any way the writer cannot have
made. Only ``uvlab repair`` and a new uvlab write recover; reading commands
report a pending journal
(:func:`~uvlab.app.ms.journal_recovery.pending_write`) and read the table as
it is.

Every step is an atomic rename or a write into a file nothing points at yet,
and recovery is idempotent, so a kill at any instant (SIGKILL, power loss,
a second kill during recovery) leaves either the old or the new column. The
journal is dropped by renaming it to ``UVLAB_COMMIT.done-<pid>`` and then
deleting that; a journal being built is ``UVLAB_COMMIT.tmp-<pid>``. Both kinds
of leftovers are removed by the next process that holds the lock
(:mod:`uvlab.app.ms.journal_folder`, which also keeps the journal's reserve of
disk room). See docs/data-safety.md.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.journal_check import DATA_FILE, VERSION, table_shape
from uvlab.app.ms.journal_folder import (
    JOURNAL,
    OLD_PREFIX,
    PARTIAL_PREFIX,
    RESERVE,
    TMP_PREFIX,
    clean_leftovers,
    disk_error,
    drop_journal,
    flush_bytes,
    make_reserve,
    not_table,
    reserve_bytes,
    write_state,
)
from uvlab.app.ms.ms_lock import MSLock
from uvlab.app.ms.snapshot import file_hash, take_snapshot
from uvlab.app.runtime.diskspace import fsync_path
from uvlab.app.runtime.faults import fault_point


def _dm_files(table: Path, seqnrs) -> list[str]:
    out = []
    for p in table.iterdir():
        m = DATA_FILE.fullmatch(p.name)
        if m and int(m.group(1)) in seqnrs:
            out.append(p.name)
    return sorted(out)


@dataclass
class Journal:
    """The journal of one running write; made by :meth:`begin`, ended by :meth:`retire`."""

    table: Path
    folder: Path
    state: dict
    lock: MSLock | None

    @classmethod
    def begin(
        cls,
        path: str | os.PathLike,
        column: str,
        old: str | None,
        *,
        adds: tuple[str, ...] | None = None,
        drops: tuple[str, ...] = (),
    ) -> Journal:
        """Lock the table, snapshot it, record phase ``writing`` (nothing changes yet).

        Parameters
        ----------
        path : path-like
            The table folder.
        column, old : str
            The column written, and the column it replaces (or None).
        adds, drops : tuple of str
            Columns the write may add (by default the column, its
            ``UVLAB_PARTIAL_`` name and, when replacing, its ``UVLAB_OLD_``
            name) and may remove before the commit point (their data files
            may change or vanish).

        Raises
        ------
        MSError
            When another process is writing this MeasurementSet, or an
            interrupted write is still pending (run ``uvlab repair``).
        """
        table = Path(path)
        lock = MSLock.acquire(table)
        tmp = table / f"{TMP_PREFIX}{os.getpid()}"
        try:
            clean_leftovers(table)
            if (table / JOURNAL).exists():
                raise MSError(
                    f"{table}: an interrupted uvlab write is pending; run `uvlab repair {table}`"
                )
            shape = table_shape(table)
            if shape is None:
                raise MSError(f"{table}: not a readable casacore table")
            columns, nrows, dms = shape
            if adds is None:
                adds = (column, PARTIAL_PREFIX + column) + ((OLD_PREFIX + old,) if old else ())
            drop_seq = {s for s, cols in dms.items() if cols & set(drops)}
            tmp.mkdir()
            fault_point("journal-begun")
            try:
                manifest = take_snapshot(table, tmp / "snap0", skip=not_table)
                make_reserve(tmp / RESERVE, reserve_bytes(table))
            except OSError as exc:
                raise disk_error(table, exc) from None
            st = table.stat()
            state = {
                "version": VERSION,
                "operation": "write column",
                "column": column,
                "old": old,
                "phase": "writing",
                "pid": os.getpid(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
                "table": {"dev": st.st_dev, "ino": st.st_ino},
                "columns": sorted(columns),
                "nrows": nrows,
                "seqnrs": sorted(dms),
                "adds": list(adds),
                "drops": list(drops),
                "may_change": _dm_files(table, drop_seq),
                "created": [],
                "table_dat": [manifest["entries"]["table.dat"]["sha256"]],
                "snap0": manifest,
            }
            write_state(tmp, state)
            os.rename(tmp, table / JOURNAL)
            fsync_path(table)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            lock.release()
            raise
        return cls(table, table / JOURNAL, state, lock)

    def make_room(self, table_path: str | os.PathLike | None = None) -> bool:
        """Give back reserve files until a casacore flush has room; whether it has.

        Call just before casacore flushes or closes the table: it aborts the
        process when it cannot write ``table.dat``.
        """
        from uvlab.app.runtime.diskspace import free_bytes

        need = flush_bytes(self.table)
        chunks = sorted((self.folder / RESERVE).glob("*"))
        while True:
            free = free_bytes(self.table, fake=False)
            if free is None or free >= need:
                return True
            if not chunks:
                return False
            chunks.pop().unlink()

    def free_reserve(self) -> None:
        """Give all of the reserve back (before a rollback)."""
        shutil.rmtree(self.folder / RESERVE, ignore_errors=True)

    def note(self) -> None:
        """Record the files the write has created so far and the ``table.dat`` it wrote."""
        present = {p.name for p in self.table.iterdir() if not not_table(p.name)}
        created = sorted(present - set(self.state["snap0"]["entries"]))
        digest = file_hash(self.table / "table.dat")
        table_dat = self.state["table_dat"] + (
            [digest] if digest not in self.state["table_dat"] else []
        )
        self.state = {**self.state, "created": created, "table_dat": table_dat}
        write_state(self.folder, self.state)

    def snapshot1(self, *, copy_also: tuple[str, ...] = (), drop_after: str | None = None) -> None:
        """Take snapshot 1 of the table as it is now (before the commit point)."""
        snap = self.folder / "snap1"
        if snap.exists():
            shutil.rmtree(snap)
        try:
            manifest = take_snapshot(self.table, snap, copy_also=copy_also, skip=not_table)
        except OSError as exc:
            raise disk_error(self.table, exc) from None  # before the commit: rolled back
        shape = table_shape(self.table)
        columns = sorted(shape[0]) if shape else []
        seq = {s for s, cols in (shape[2] if shape else {}).items() if drop_after in cols}
        self._next = {
            "phase": "switched",
            "snap1": manifest,
            "columns1": columns,
            "seqnrs1": sorted(shape[2]) if shape else [],
            "drop_after": drop_after,
            "may_change1": sorted(set(_dm_files(self.table, seq)) | set(copy_also)),
        }
        fault_point("snapshot-switched")

    def commit(self) -> None:
        """Record phase ``switched``: the commit point."""
        self.state = {**self.state, **self._next}
        write_state(self.folder, self.state)

    def switch(self, *, copy_also: tuple[str, ...] = ()) -> None:
        """:meth:`snapshot1` and :meth:`commit` in one."""
        self.snapshot1(copy_also=copy_also)
        self.commit()

    def retire(self) -> None:
        """Drop the journal (the write is complete and durable) and release the lock."""
        drop_journal(self.folder)
        self.release()

    def release(self) -> None:
        """Let go of the lock (the journal, if still there, is left for recovery)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    @property
    def active(self) -> bool:
        return self.folder.is_dir()
