"""The commit journal that makes a MeasurementSet column write all or nothing.

A write to a main table (:func:`uvlab.app.ms.column_writer.write_column`)
keeps a journal folder, ``UVLAB_COMMIT``, inside the table while it runs.
The journal holds a *snapshot* of the table folder: the bytes of every small
file (``table.dat``, ``table.info``, storage-manager headers, …) and a hard
link to every large data file, so a data file that casacore deletes stays on
disk, under the journal's link, until the journal is dropped. A ``state.json``
says which phase the write had reached:

``writing``
    Snapshot 0 (the table as it was) is durable; the new column is being
    added, filled, flushed and renamed into place. Recovery **rolls back**:
    the folder is put back exactly as in snapshot 0 (files the write created
    are removed, changed small files restored, deleted data files re-linked).
``switched``
    The new column is under its final name, flushed and fsynced; the replaced
    column (if any) still exists as ``UVLAB_OLD_<NAME>``. Snapshot 1 records
    that state. Recovery **rolls forward**: the folder is put back as in
    snapshot 1, the old column is removed, the table flushed.

Every step is an atomic rename or a write into a file nothing points at yet,
and recovery is idempotent, so a kill at any instant (SIGKILL, power loss,
a second kill during recovery) leaves either the old or the new column. The
journal is dropped by renaming it to ``UVLAB_COMMIT.done-<pid>`` and then
deleting that; leftovers of the other kind (``UVLAB_COMMIT.tmp-<pid>``, a
journal being built) are removed by the next run. An exclusive ``flock`` on
the journal's ``lock`` file, held while the write runs, tells a live writer
from a dead one. See docs/data-safety.md.

The snapshots are :mod:`uvlab.app.ms.snapshot`'s; the steps the fault-injection
tests stop at are named in :mod:`uvlab.app.ms.faults`.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from uvlab.app.diskspace import fsync_path
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.faults import fault_point
from uvlab.app.ms.snapshot import (
    RESTORE_PREFIX,
    remove_entry,
    restore_snapshot,
    snapshot_bytes,
    sync_folder,
    take_snapshot,
)
from uvlab.app.signals import critical

JOURNAL = "UVLAB_COMMIT"
_TMP = JOURNAL + ".tmp-"
_DONE = JOURNAL + ".done-"
STATE = "state.json"
LOCK = "lock"
OLD_PREFIX = "UVLAB_OLD_"
log = logging.getLogger(__name__)
PARTIAL_PREFIX = "UVLAB_PARTIAL_"


def _is_journal_name(name: str) -> bool:
    return name == JOURNAL or name.startswith((_TMP, _DONE, RESTORE_PREFIX))


def _live_journal_name(name: str) -> bool:
    """The journal being recovered, and journals other processes are building."""
    return name == JOURNAL or name.startswith(_TMP)


def journal_bytes(table: str | os.PathLike) -> int:
    """Bytes a write's journal copies: snapshot 0 and snapshot 1."""
    return 2 * snapshot_bytes(table)


def lock_file(path: Path, *, blocking: bool) -> int | None:
    """An exclusive flock on ``path`` (created): its fd, or None if another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def held_by_live_process(lock_path: Path) -> bool:
    """Whether some process holds the flock on ``lock_path`` (False if it does not exist)."""
    if not lock_path.is_file():
        return False
    fd = lock_file(lock_path, blocking=False)
    if fd is None:
        return True
    os.close(fd)
    return False


# -------------------------------------------------------------------- journal
def _drop(folder: Path) -> None:
    """Retire a journal: one rename (the moment it stops counting), then delete it."""
    done = folder.parent / f"{_DONE}{os.getpid()}"
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


def _read_state(folder: Path) -> dict:
    try:
        return json.loads((folder / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MSError(f"{folder}: the uvlab commit journal is unreadable ({exc})") from None


@dataclass
class Journal:
    """The journal of one running write; made by :meth:`begin`, ended by :meth:`retire`."""

    table: Path
    folder: Path
    state: dict
    lock_fd: int | None

    @classmethod
    def begin(cls, path: str | os.PathLike, column: str, old: str | None) -> Journal:
        """Snapshot the table and record phase ``writing`` (nothing in the table changes yet).

        Raises
        ------
        MSError
            When another process is writing this MeasurementSet.
        """
        table = Path(path)
        final = table / JOURNAL
        tmp = table / f"{_TMP}{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir()
        fd = None
        try:
            fd = lock_file(tmp / LOCK, blocking=True)
            fault_point("journal-begun")
            manifest = take_snapshot(table, tmp / "snap0", skip=_is_journal_name)
            state = {
                "version": 1,
                "operation": "write column",
                "column": column,
                "old": old,
                "phase": "writing",
                "pid": os.getpid(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
                "snap0": manifest,
            }
            _write_state(tmp, state)
            try:
                os.rename(tmp, final)
            except OSError as exc:
                if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                    raise MSError(
                        f"{table}: another uvlab process is writing this MeasurementSet; "
                        "try again when it has finished"
                    ) from None
                raise
            fsync_path(table)
        except BaseException:
            if fd is not None:
                os.close(fd)
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return cls(table, final, state, fd)

    def switch(self, *, copy_also: tuple[str, ...] = ()) -> None:
        """Record phase ``switched`` (the commit point) with snapshot 1 of the table now."""
        snap = self.folder / "snap1"
        if snap.exists():
            shutil.rmtree(snap)
        manifest = take_snapshot(self.table, snap, copy_also=copy_also, skip=_is_journal_name)
        fault_point("snapshot-switched")
        self.state = {**self.state, "phase": "switched", "snap1": manifest}
        _write_state(self.folder, self.state)

    def retire(self) -> None:
        """Drop the journal (the write is complete and durable)."""
        _drop(self.folder)
        self.release()

    def release(self) -> None:
        """Let go of the lock (the journal, if still there, is left for recovery)."""
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None

    @property
    def active(self) -> bool:
        return self.folder.is_dir()


# ------------------------------------------------------------------- recovery
@dataclass(frozen=True)
class Recovery:
    """What :func:`recover` did: ``action`` is "rolled back", "finished" or "cleaned"."""

    path: str
    action: str
    column: str | None
    removed: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.action == "rolled back":
            return (
                f"{self.path}: an interrupted write of column {self.column} was rolled back; "
                "the MeasurementSet is as it was before it"
            )
        if self.action == "finished":
            return f"{self.path}: an interrupted write of column {self.column} was completed"
        return f"{self.path}: removed leftovers of an interrupted write ({', '.join(self.removed)})"


def _clean_leftovers(table: Path) -> list[str]:
    """Remove journals being built or dropped by dead processes; their names."""
    removed = []
    for p in table.iterdir():
        dead_tmp = p.name.startswith(_TMP) and not held_by_live_process(p / LOCK)
        if dead_tmp or p.name.startswith((_DONE, RESTORE_PREFIX)):
            remove_entry(p)
            removed.append(p.name)
    return removed


def _finish_forward(table: Path, state: dict) -> None:
    """Roll forward from snapshot 1: remove the replaced column, flush."""
    from casacore import tables

    old = state.get("old")
    tab = tables.table(str(table), readonly=False, ack=False)
    try:
        if old and OLD_PREFIX + old in tab.colnames():
            tab.removecols(OLD_PREFIX + old)
        tab.flush()
    finally:
        tab.close()
    sync_folder(table)


def recover(path: str | os.PathLike, *, _journal: Journal | None = None) -> Recovery | None:
    """Finish or roll back an interrupted write of the table at ``path``; None if none was.

    Raises
    ------
    MSError
        When a live process is writing the table, or files changed in place
        cannot be restored.
    """
    table = Path(path)
    with critical():
        removed = _clean_leftovers(table)
        folder = table / JOURNAL
        if not folder.is_dir():
            return Recovery(str(table), "cleaned", None, tuple(removed)) if removed else None
        own = _journal is not None and _journal.lock_fd is not None
        fd = _journal.lock_fd if own else None
        if not own:
            fd = lock_file(folder / LOCK, blocking=False)
            if fd is None:
                raise MSError(
                    f"{table}: another uvlab process is writing this MeasurementSet; "
                    "try again when it has finished"
                )
        try:
            state = _read_state(folder)
            phase = state.get("phase")
            key = "snap1" if phase == "switched" else "snap0"
            lost = restore_snapshot(table, folder / key, state[key], keep=_live_journal_name)
            if lost:
                raise MSError(
                    f"{table}: could not restore {', '.join(lost)} after an interrupted write of "
                    f"{state.get('column')}; the journal is kept in {folder}"
                )
            if phase == "switched":
                _finish_forward(table, state)
            _drop(folder)
        finally:
            if own:
                _journal.release()
            else:
                os.close(fd)
        action = "finished" if phase == "switched" else "rolled back"
        return Recovery(str(table), action, state.get("column"), tuple(removed))


def needs_recovery(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a journal or journal leftovers."""
    try:
        return any(_is_journal_name(n) for n in os.listdir(path))
    except OSError:
        return False


def recover_if_interrupted(path: str | os.PathLike) -> Recovery | None:
    """:func:`recover` when ``path`` holds a journal of a dead process; quiet otherwise.

    A journal held by a live process (a write in progress elsewhere) is left
    alone. Raises :class:`MSError` when recovery is needed but the folder is
    not writable.
    """
    if not needs_recovery(path):
        return None
    table = Path(path)
    if held_by_live_process(table / JOURNAL / LOCK):
        return None
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
