"""Snapshots of a table folder: small files copied, large ones hard-linked, and restored.

A snapshot costs little: a hard link takes no space, and the small files
(``table.dat``, ``table.info``, storage-manager headers) come to a few MB at
most. Because a data file that casacore deletes stays on disk under the
snapshot's link, restoring puts the folder back exactly, deleted data files
included. The commit journal (:mod:`uvlab.app.ms.journal`) keeps its snapshots
in itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from uvlab.app.diskspace import fsync_path
from uvlab.app.ms.faults import fault_point

#: Files up to this size are copied into a snapshot; larger ones are hard-linked.
COPY_LIMIT = 16 * 2**20
#: Prefix of the temporary names a restore writes before renaming into place.
RESTORE_PREFIX = ".uvlab-restore-"


def sync_folder(folder: Path) -> None:
    """fsync every plain file directly in ``folder``, then the folder."""
    for p in folder.iterdir():
        if p.is_file() and not p.is_symlink():
            fsync_path(p)
    fsync_path(folder)


def take_snapshot(
    table: Path, dest: Path, *, copy_also: tuple[str, ...] = (), skip=lambda name: False
) -> dict:
    """Copy small files and hard-link large ones of ``table`` into ``dest``; the manifest.

    Parameters
    ----------
    table : Path
        The table folder.
    dest : Path
        An empty folder to fill (fsynced before returning).
    copy_also : tuple of str
        Names to copy whatever their size (files rewritten in place).
    skip : callable(name) -> bool
        Entries that are not part of the table (the journal itself).
    """
    dest.mkdir()
    manifest: dict = {"entries": [], "files": {}}
    for p in sorted(table.iterdir()):
        if skip(p.name):
            continue
        manifest["entries"].append(p.name)
        if not p.is_file() or p.is_symlink():
            continue
        st = p.stat()
        kind = "copy" if st.st_size <= COPY_LIMIT or p.name in copy_also else "link"
        if kind == "link":
            try:
                os.link(p, dest / p.name)
            except OSError:  # no hard links on this file system: copy instead
                kind = "copy"
        if kind == "copy":
            shutil.copyfile(p, dest / p.name)
            fsync_path(dest / p.name)
        manifest["files"][p.name] = {
            "kind": kind,
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
        }
    fsync_path(dest)
    return manifest


def snapshot_bytes(table: str | os.PathLike) -> int:
    """Bytes one snapshot of ``table`` copies (its small files; large ones are hard-linked)."""
    sizes = (p.stat().st_size for p in Path(table).iterdir() if p.is_file())
    return sum(s for s in sizes if s <= COPY_LIMIT)


def remove_entry(p: Path) -> None:
    """Delete a file or a folder (not following a link)."""
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def _same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def restore_snapshot(
    table: Path, snap: Path, manifest: dict, *, keep=lambda name: False
) -> list[str]:
    """Put ``table`` back as ``snap`` recorded it; return files that could not be restored.

    Each file is restored by an atomic rename, so a kill during the restore
    leaves a folder that a second restore finishes. Entries the snapshot does
    not hold are deleted, except those ``keep(name)`` is true for.
    """
    lost = []
    for name, info in manifest["files"].items():
        cur, saved = table / name, snap / name
        if not saved.exists():
            lost.append(name)
            continue
        if info["kind"] == "copy":
            if cur.is_file() and _same_bytes(cur, saved):
                continue
            tmp = table / f"{RESTORE_PREFIX}{name}"
            shutil.copyfile(saved, tmp)
            os.utime(tmp, ns=(info["mtime_ns"], info["mtime_ns"]))
            fsync_path(tmp)
            os.replace(tmp, cur)
        else:
            if cur.is_file() and os.path.samefile(cur, saved):
                st = cur.stat()
                if (st.st_size, st.st_mtime_ns) != (info["size"], info["mtime_ns"]):
                    lost.append(name)  # rewritten in place: the link saw the change too
                continue
            tmp = table / f"{RESTORE_PREFIX}{name}"
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            os.link(saved, tmp)
            os.replace(tmp, cur)
        fault_point("recovery-restoring")
    entries = set(manifest["entries"])
    for p in table.iterdir():
        if p.name in entries or keep(p.name):
            continue
        remove_entry(p)
        fault_point("recovery-restoring")
    fsync_path(table)
    return lost
