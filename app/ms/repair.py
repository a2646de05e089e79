"""Repair a MeasurementSet after an interrupted uvlab write (``uvlab repair``).

:func:`repair` does, in order, what can be done safely:

1. finish or roll back an interrupted column write from its journal
   (:func:`uvlab.app.ms.journal.recover`; any uvlab run that opens the MS does
   this too), and remove journals left half-built or half-dropped;
2. remove columns named ``UVLAB_PARTIAL_*`` or ``UVLAB_OLD_*`` (left by uvlab
   versions before the journal), under the journal;
3. remove data files ``table.fN…`` that no data manager of the table uses
   (the column data a killed older uvlab left behind);
4. remove build folders ``.NAME.uvlab-*`` beside the MS that a killed
   ``uvlab simulate`` left, unless a live process still holds them.

Nothing else is touched; with ``dry_run`` nothing at all is.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from uvlab.app.ms.journal import (
    OLD_PREFIX,
    PARTIAL_PREFIX,
    held_by_live_process,
    needs_recovery,
    orphan_data_files,
    recover,
)
from uvlab.app.ms.tables import check_path, translated

#: The lock file inside a ``uvlab simulate`` build folder (see :mod:`uvlab.app.ms.writer`).
BUILD_LOCK = ".uvlab-build.lock"


@dataclass
class RepairReport:
    """What :func:`repair` did (or, with ``dry_run``, would do)."""

    path: str
    actions: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return self.actions or [f"{self.path}: nothing to repair"]


def clean_build_folders(target: str | os.PathLike, *, dry_run: bool = False) -> list[str]:
    """Remove stale build folders of ``target``; an old MS parked in one is put back.

    ``write_ms`` parks the MS it replaces in its build folder (``replaced``)
    for the instant between two renames; if it was killed there, the target
    is missing and the old MS is renamed back rather than deleted.
    """
    target = Path(target)
    actions = []
    for folder in stale_build_folders(target):
        parked = folder / "replaced"
        if parked.is_dir() and not target.exists():
            actions.append(f"{target}: put back the MeasurementSet an interrupted overwrite moved")
            if not dry_run:
                os.rename(parked, target)
        actions.append(f"{folder}: removed an unfinished `uvlab simulate` build folder")
        if not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
    return actions


def stale_build_folders(target: str | os.PathLike) -> list[Path]:
    """Build folders of ``uvlab simulate`` for ``target`` whose process is gone."""
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        return []
    prefix = f".{target.name}.uvlab-"
    return sorted(
        p
        for p in parent.iterdir()
        if p.name.startswith(prefix) and p.is_dir() and not held_by_live_process(p / BUILD_LOCK)
    )


def repair(path: str | os.PathLike, *, dry_run: bool = False) -> RepairReport:
    """Bring ``path`` back to a clean state after an interrupted write; what was done."""
    from casacore import tables

    from uvlab.app.ms.column_writer import remove_columns

    report = RepairReport(str(path))
    report.actions += clean_build_folders(path, dry_run=dry_run)
    if report.actions and (dry_run or not Path(path).exists()):
        return report  # only a build folder was left (and, with dry_run, the MS may be parked)
    path = check_path(path)
    if needs_recovery(path):
        if dry_run:
            report.actions.append(f"{path}: would finish or roll back an interrupted write")
        else:
            done = recover(path)
            if done is not None:
                report.actions.append(done.describe())
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
        from uvlab.app.memory import format_bytes

        names = ", ".join(orphans)
        report.actions.append(
            f"{path}: removed data files no column uses: {names} ({format_bytes(size)})"
        )
        if not dry_run:
            for name in orphans:
                (Path(path) / name).unlink()
    return report
