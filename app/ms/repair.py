"""Repair a MeasurementSet after an interrupted uvlab write (``uvlab repair``).

:func:`repair` does, in order, what can be done safely:

1. finish or roll back an interrupted column write from its journal
   (:func:`uvlab.app.ms.journal_recovery.recover`, which refuses, changing nothing,
   when the MeasurementSet changed since in a way the writer cannot have made;
   a new uvlab write does this too, reading commands only report it), and
   remove journals left half-built or half-dropped;
2. remove columns named ``UVLAB_PARTIAL_*`` or ``UVLAB_OLD_*`` (left by uvlab
   versions before the journal), under the journal;
3. remove data files ``table.fN…`` that no data manager of the table uses
   (the column data a killed older uvlab left behind);
4. remove build folders ``.NAME.uvlab-*`` beside the MS that a killed
   ``uvlab simulate`` left, unless a live process still holds them.

Steps 1–3 run under the MeasurementSet's write lock (:mod:`uvlab.app.ms.ms_lock`):
a repair while another uvlab process writes is refused. Nothing else is
touched; with ``dry_run`` nothing at all is, and the plan of step 1 is listed
entry by entry (a pending journal is not followed by steps 2–3 in a dry run:
their answer depends on it).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from uvlab.app.ms.build_folder import clean_build_folders
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.journal_folder import OLD_PREFIX, PARTIAL_PREFIX
from uvlab.app.ms.journal_recovery import needs_recovery, recover
from uvlab.app.ms.ms_lock import MSLock, held_elsewhere
from uvlab.app.ms.tables import check_path, translated


@dataclass
class RepairReport:
    """What :func:`repair` did (or, with ``dry_run``, would do)."""

    path: str
    actions: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return self.actions or [f"{self.path}: nothing to repair"]


_SEQ = re.compile(r"table\.f(\d+)(?:i|_.*)?$")


def orphan_data_files(path: str | os.PathLike, seqnrs: set[int]) -> list[str]:
    """Names of ``table.fN…`` files in ``path`` whose N is no data manager's SEQNR."""
    out = []
    for p in Path(path).iterdir():
        m = _SEQ.match(p.name)
        if m and p.is_file() and int(m.group(1)) not in seqnrs:
            out.append(p.name)
    return sorted(out)


def repair(path: str | os.PathLike, *, dry_run: bool = False) -> RepairReport:
    """Bring ``path`` back to a clean state after an interrupted write; what was done.

    Raises
    ------
    MSError
        When another uvlab process is writing the MeasurementSet, when its
        folder is not writable (except with ``dry_run``), or when the journal
        of an interrupted write cannot be followed safely (nothing is changed).
    """
    report = RepairReport(str(path))
    report.actions += clean_build_folders(path, dry_run=dry_run)
    if report.actions and not Path(path).exists():
        return report  # only a build folder was left (with dry_run, the MS is still parked)
    path = check_path(path)
    try:
        lock = MSLock.acquire(path)
    except MSError:
        if not dry_run or held_elsewhere(path):
            raise
        lock = None  # a dry run may look at a read-only MeasurementSet
    try:
        _repair_locked(path, report, dry_run)
    finally:
        if lock is not None:
            lock.release()
    return report


def _repair_locked(path: str, report: RepairReport, dry_run: bool) -> None:
    from casacore import tables

    from uvlab.app.ms.column_writer import remove_columns

    if needs_recovery(path):
        done = recover(path, dry_run=dry_run)
        if done is not None:
            report.actions += done.lines()
            if dry_run and done.plan is not None:
                return
    with translated(path):
        tab = tables.table(path, readonly=True, ack=False)
        try:
            stray = [c for c in tab.colnames() if c.startswith((PARTIAL_PREFIX, OLD_PREFIX))]
            seqnrs = {int(dm["SEQNR"]) for dm in tab.getdminfo().values()}
        finally:
            tab.close()
    if stray:
        report.actions.append(f"{path}: removed unfinished column(s) {', '.join(stray)}")
        if not dry_run:
            remove_columns(path, stray)
            with translated(path):
                tab = tables.table(path, readonly=True, ack=False)
                try:
                    seqnrs = {int(dm["SEQNR"]) for dm in tab.getdminfo().values()}
                finally:
                    tab.close()
    orphans = orphan_data_files(path, seqnrs)
    if orphans:
        size = sum((Path(path) / n).stat().st_size for n in orphans)
        from uvlab.app.runtime.memory import format_bytes

        names = ", ".join(orphans)
        report.actions.append(
            f"{path}: removed data files no column uses: {names} ({format_bytes(size)})"
        )
        if not dry_run:
            for name in orphans:
                (Path(path) / name).unlink()
