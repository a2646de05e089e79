"""Recovery: finish or roll back a column write that a dead process left half done.

A write's journal (:mod:`uvlab.app.ms.journal`) records which phase the write
had reached: ``writing`` rolls back to snapshot 0, ``switched`` rolls forward
from snapshot 1. :func:`recover` first checks the folder against the journal
(:mod:`uvlab.app.ms.journal_check`) and refuses, changing nothing, when the
journal is malformed or the table changed in any way the writer cannot have
made. Only ``uvlab repair`` and a new uvlab write recover
(:func:`recover_if_interrupted`); reading commands report a pending journal
(:func:`pending_write`) and read the table as it is. Recovery is idempotent, so
a second kill during it is harmless. See docs/data-safety.md.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.journal_check import JournalRefused, Plan, plan_recovery, read_state
from uvlab.app.ms.journal_folder import (
    JOURNAL,
    RESERVE,
    STATE,
    clean_leftovers,
    drop_journal,
    is_journal_name,
    not_table,
)
from uvlab.app.ms.ms_lock import MSLock, held_elsewhere
from uvlab.app.ms.snapshot import restore_files, sync_folder
from uvlab.app.runtime.signals import critical

#: The journal's log (``uvlab.app.ms.tables`` reports pending journals under it too).
log = logging.getLogger("uvlab.app.ms.journal")


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
            removed = clean_leftovers(table, dry_run=dry_run)
            folder = table / JOURNAL
            if not folder.is_dir():
                if not removed:
                    return None
                return Recovery(str(table), "cleaned", None, tuple(removed), dry_run=dry_run)
            column = "a column"
            try:
                state = read_state(folder)
                column = str(state.get("column"))
                plan = plan_recovery(table, folder, state, not_table)
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
            drop_journal(folder)
        finally:
            if lock is not None:
                lock.release()
        return Recovery(str(table), action, column, tuple(removed), plan)


def needs_recovery(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a journal or journal leftovers."""
    try:
        return any(is_journal_name(n) for n in os.listdir(path))
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
