"""The folder beside a target MS that ``write_ms`` builds it in, and its leftovers.

:func:`open_build_folder` makes ``.NAME.uvlab-XXXX`` beside the target and holds
an exclusive ``flock`` on its :data:`BUILD_LOCK` while the build runs, so a
folder whose lock nobody holds belongs to a process that was killed.
``write_ms`` parks an MS it replaces in the folder as :data:`PARKED` for the
instant between its two renames. :func:`clean_build_folders` (the next
``write_ms`` to the same path, and ``uvlab repair``) removes stale folders and
renames a parked MS back when the target is missing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from uvlab.app.ms.ms_lock import held_by_live_process, lock_file

#: The lock file inside a build folder.
BUILD_LOCK = ".uvlab-build.lock"
#: Where an MS being replaced waits in the build folder between the two renames.
PARKED = "replaced"


def _prefix(target: Path) -> str:
    return f".{target.name}.uvlab-"


def open_build_folder(target: Path) -> tuple[Path, int]:
    """A new locked build folder beside ``target``: (folder, the lock's fd to close at the end)."""
    folder = Path(tempfile.mkdtemp(prefix=_prefix(target), dir=target.parent))
    return folder, lock_file(folder / BUILD_LOCK, blocking=True)


def stale_build_folders(target: str | os.PathLike) -> list[Path]:
    """Build folders for ``target`` whose process is gone."""
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        return []
    return sorted(
        p
        for p in parent.iterdir()
        if p.name.startswith(_prefix(target))
        and p.is_dir()
        and not held_by_live_process(p / BUILD_LOCK)
    )


def clean_build_folders(target: str | os.PathLike, *, dry_run: bool = False) -> list[str]:
    """Remove stale build folders of ``target``; an MS parked in one is put back first."""
    target = Path(target)
    actions = []
    for folder in stale_build_folders(target):
        parked = folder / PARKED
        if parked.is_dir() and not target.exists():
            actions.append(f"{target}: put back the MeasurementSet an interrupted overwrite moved")
            if not dry_run:
                os.rename(parked, target)
        actions.append(f"{folder}: removed an unfinished `uvlab simulate` build folder")
        if not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
    return actions


def move_into_place(build: Path, target: Path, tmpdir: Path) -> None:
    """Rename a finished table (an MS, a component list) onto ``target``; an old one goes last."""
    old = None
    if target.exists():
        old = tmpdir / PARKED
        os.rename(target, old)
    try:
        os.rename(build, target)
    except BaseException:
        if old is not None:
            with contextlib.suppress(OSError):
                os.rename(old, target)
        raise
