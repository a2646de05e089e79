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

Recovery undoes only what the dead writer did: before it changes anything it
compares the folder with the journal (:mod:`uvlab.app.ms.journal_check`) and
refuses, changing nothing, when the journal is malformed or the table changed
in any way the writer cannot have made. Only ``uvlab repair`` and a new uvlab
write recover; reading commands report a pending journal
(:func:`pending_write`) and read the table as it is.

Every step is an atomic rename or a write into a file nothing points at yet,
and recovery is idempotent, so a kill at any instant (SIGKILL, power loss,
a second kill during recovery) leaves either the old or the new column. The
journal is dropped by renaming it to ``UVLAB_COMMIT.done-<pid>`` and then
deleting that; a journal being built is ``UVLAB_COMMIT.tmp-<pid>``. Both kinds
of leftovers are removed by the next process that holds the lock. See
docs/data-safety.md.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.journal_check import (
    VERSION,
    JournalRefused,
    Plan,
    plan_recovery,
    read_state,
    table_shape,
)
from uvlab.app.ms.ms_lock import (  # noqa: F401  (lock_file, held_by_live_process: re-exported)
    LOCK_NAME,
    MSLock,
    held_by_live_process,
    held_elsewhere,
    lock_file,
)
from uvlab.app.ms.snapshot import (
    RESTORE_PREFIX,
    file_hash,
    remove_entry,
    restore_files,
    snapshot_bytes,
    sync_folder,
    take_snapshot,
)
from uvlab.app.runtime.diskspace import fsync_path
from uvlab.app.runtime.faults import fault_point
from uvlab.app.runtime.signals import critical

JOURNAL = "UVLAB_COMMIT"
_TMP = JOURNAL + ".tmp-"
_DONE = JOURNAL + ".done-"
STATE = "state.json"
OLD_PREFIX = "UVLAB_OLD_"
PARTIAL_PREFIX = "UVLAB_PARTIAL_"
log = logging.getLogger(__name__)


def _is_journal_name(name: str) -> bool:
    return name == JOURNAL or name.startswith((_TMP, _DONE, RESTORE_PREFIX))


def _not_table(name: str) -> bool:
    """Entries of the folder that are not the table's: journals, uvlab's lock."""
    return _is_journal_name(name) or name == LOCK_NAME


#: The journal's reserve: 1 MiB files of room kept back so that casacore's flushes
#: (which abort the process when they cannot write table.dat) never meet a full disk.
RESERVE = "reserve"
_CHUNK = 2**20


def flush_bytes(table: str | os.PathLike) -> int:
    """Room one casacore flush of the table needs: ``table.dat`` twice, two tiles, 1 MiB."""
    try:
        dat = os.stat(Path(table) / "table.dat").st_size
    except OSError:
        dat = 0
    return 3 * 2**20 + 2 * dat


def reserve_bytes(table: str | os.PathLike) -> int:
    """Size of the reserve: room for the write's three flushes."""
    return -(-3 * flush_bytes(table) // _CHUNK) * _CHUNK


def journal_bytes(table: str | os.PathLike) -> int:
    """Bytes a write's journal takes: snapshot 0, snapshot 1 and the reserve."""
    return 2 * snapshot_bytes(table) + reserve_bytes(table)


def _disk_error(table: Path, exc: OSError) -> MSError:
    why = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc.strerror
    return MSError(f"{table}: could not write the commit journal ({why}); nothing was changed")


def _make_reserve(folder: Path, size: int) -> None:
    """``size`` bytes in 1 MiB files really allocated on disk (ENOSPC when they are not free)."""
    folder.mkdir()
    for k in range(size // _CHUNK):
        fd = os.open(folder / str(k), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            try:
                os.posix_fallocate(fd, 0, _CHUNK)
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                    raise
                os.write(fd, b"\0" * _CHUNK)
            os.fsync(fd)
        finally:
            os.close(fd)


# -------------------------------------------------------------------- journal
def _drop(folder: Path) -> None:
    """Retire a journal: one rename (the moment it stops counting), then delete it."""
    done = folder.parent / f"{_DONE}{os.getpid()}"
    if done.exists():
        remove_entry(done)
    os.rename(folder, done)
    fsync_path(folder.parent)
    fault_point("journal-retired")
    shutil.rmtree(done, ignore_errors=True)


def _write_state(folder: Path, state: dict) -> None:
    tmp = folder / (STATE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, folder / STATE)
    fsync_path(folder)


def _clean_leftovers(table: Path, *, dry_run: bool = False) -> list[str]:
    """Remove journals being built or dropped by dead processes (call under the lock)."""
    removed = []
    for p in table.iterdir():
        if p.name.startswith((_TMP, _DONE, RESTORE_PREFIX)):
            if not dry_run:
                remove_entry(p)
            removed.append(p.name)
    return removed


def _dm_files(table: Path, seqnrs) -> list[str]:
    from uvlab.app.ms.journal_check import DATA_FILE

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
        tmp = table / f"{_TMP}{os.getpid()}"
        try:
            _clean_leftovers(table)
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
                manifest = take_snapshot(table, tmp / "snap0", skip=_not_table)
                _make_reserve(tmp / RESERVE, reserve_bytes(table))
            except OSError as exc:
                raise _disk_error(table, exc) from None
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
            _write_state(tmp, state)
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
        present = {p.name for p in self.table.iterdir() if not _not_table(p.name)}
        created = sorted(present - set(self.state["snap0"]["entries"]))
        digest = file_hash(self.table / "table.dat")
        table_dat = self.state["table_dat"] + (
            [digest] if digest not in self.state["table_dat"] else []
        )
        self.state = {**self.state, "created": created, "table_dat": table_dat}
        _write_state(self.folder, self.state)

    def snapshot1(self, *, copy_also: tuple[str, ...] = (), drop_after: str | None = None) -> None:
        """Take snapshot 1 of the table as it is now (before the commit point)."""
        snap = self.folder / "snap1"
        if snap.exists():
            shutil.rmtree(snap)
        try:
            manifest = take_snapshot(self.table, snap, copy_also=copy_also, skip=_not_table)
        except OSError as exc:
            raise _disk_error(self.table, exc) from None  # before the commit: rolled back
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
        _write_state(self.folder, self.state)

    def switch(self, *, copy_also: tuple[str, ...] = ()) -> None:
        """:meth:`snapshot1` and :meth:`commit` in one."""
        self.snapshot1(copy_also=copy_also)
        self.commit()

    def retire(self) -> None:
        """Drop the journal (the write is complete and durable) and release the lock."""
        _drop(self.folder)
        self.release()

    def release(self) -> None:
        """Let go of the lock (the journal, if still there, is left for recovery)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    @property
    def active(self) -> bool:
        return self.folder.is_dir()


# ------------------------------------------------------------------- recovery
@dataclass(frozen=True)
class Recovery:
    """What :func:`recover` did, or would do (``plan``, with ``dry_run``).

    ``action`` is "rolled back", "finished" or "cleaned".
    """

    path: str
    action: str
    column: str | None
    removed: tuple[str, ...] = ()
    plan: Plan | None = None
    dry_run: bool = False

    def describe(self) -> str:
        if self.action == "rolled back":
            return (
                f"{self.path}: an interrupted write of column {self.column} was rolled back; "
                "the MeasurementSet is as it was before it"
            )
        if self.action == "finished":
            return f"{self.path}: an interrupted write of column {self.column} was completed"
        return f"{self.path}: removed leftovers of an interrupted write ({', '.join(self.removed)})"

    def lines(self) -> list[str]:
        """What was done, or with ``dry_run`` what would be done, entry by entry."""
        if not self.dry_run:
            return [self.describe()]
        out = [
            f"{self.path}: would remove leftovers of an interrupted write: {n}"
            for n in self.removed
        ]
        return out + (self.plan.lines(self.path) if self.plan else [])


def _refusal(table: Path, column: str, why: str) -> JournalRefused:
    return JournalRefused(
        f"{table}: the interrupted uvlab write of {column} cannot be undone safely: {why}; "
        f"nothing was changed. Inspect the MeasurementSet; to keep it as it is, delete the "
        f"folder {table / JOURNAL} by hand and run `uvlab repair {table}` again "
        "(docs/data-safety.md)"
    )


def _finish_forward(table: Path, column: str) -> None:
    """Roll forward from snapshot 1: remove the replaced column, flush."""
    from casacore import tables

    tab = tables.table(str(table), readonly=False, ack=False)
    try:
        if column in tab.colnames():
            tab.removecols(column)
        tab.flush()
    finally:
        tab.close()
    sync_folder(table)


def recover(path: str | os.PathLike, *, dry_run: bool = False) -> Recovery | None:
    """Finish or roll back an interrupted write of the table at ``path``; None if none was.

    Takes the MeasurementSet's write lock (re-entrant: a writer rolling back
    its own failed write already holds it).

    Raises
    ------
    MSError
        When another process is writing the table.
    JournalRefused
        When the journal is malformed or the table changed in a way the
        writer cannot have made; nothing is changed then.
    """
    table = Path(path)
    with critical():
        try:
            lock = MSLock.acquire(table)
        except MSError:
            if not dry_run or held_elsewhere(table):
                raise
            lock = None  # a dry run of a read-only MeasurementSet: only look
        try:
            removed = _clean_leftovers(table, dry_run=dry_run)
            folder = table / JOURNAL
            if not folder.is_dir():
                if not removed:
                    return None
                return Recovery(str(table), "cleaned", None, tuple(removed), dry_run=dry_run)
            column = "a column"
            try:
                state = read_state(folder)
                column = str(state.get("column"))
                plan = plan_recovery(table, folder, state, _not_table)
            except JournalRefused as exc:
                raise _refusal(table, column, str(exc)) from None
            action = "finished" if plan.phase == "switched" else "rolled back"
            if dry_run:
                return Recovery(str(table), action, column, tuple(removed), plan, dry_run=True)
            shutil.rmtree(folder / RESERVE, ignore_errors=True)  # room for the restore
            restore_files(
                table, folder / plan.snapshot, state[plan.snapshot], plan.restore, plan.remove
            )
            if plan.drop_column:
                _finish_forward(table, plan.drop_column)
            _drop(folder)
        finally:
            if lock is not None:
                lock.release()
        return Recovery(str(table), action, column, tuple(removed), plan)


def needs_recovery(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a journal or journal leftovers."""
    try:
        return any(_is_journal_name(n) for n in os.listdir(path))
    except OSError:
        return False


def recover_if_interrupted(path: str | os.PathLike) -> Recovery | None:
    """:func:`recover` when ``path`` holds a journal or leftovers; logs what it did.

    For writers (which must recover first, under the lock) and ``uvlab repair``;
    reading commands use :func:`pending_write` instead.
    """
    if not needs_recovery(path):
        return None
    table = Path(path)
    try:
        done = recover(table)
    except PermissionError as exc:
        raise MSError(
            f"{table}: an interrupted uvlab write needs finishing but the folder is not "
            f"writable ({exc.strerror}); run `uvlab repair {table}` with write access"
        ) from None
    if done is not None:
        log.warning("%s", done.describe())
    return done


def pending_write(path: str | os.PathLike) -> str | None:
    """One line about an interrupted write pending in ``path``, or None.

    None also while a live process writes the table (its journal is not
    pending). Changes nothing.
    """
    table = Path(path)
    folder = table / JOURNAL
    if not folder.is_dir() or held_elsewhere(table):
        return None
    column = "a column"
    with contextlib.suppress(OSError, ValueError, AttributeError):
        name = json.loads((folder / STATE).read_text(encoding="utf-8")).get("column")
        if isinstance(name, str) and name.replace("_", "").replace(",", "").isalnum():
            column = name
    return (
        f"{table}: an interrupted uvlab write of {column} is pending; run `uvlab repair {table}` "
        "(reading the MeasurementSet as it is on disk)"
    )
