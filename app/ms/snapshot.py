"""Snapshots of a table folder: small files copied, large ones hard-linked, and restored.

A snapshot costs little: a hard link takes no space, and the small files
(``table.dat``, ``table.info``, storage-manager headers) come to a few MB at
most. Because a data file that casacore deletes stays on disk under the
snapshot's link, restoring puts the folder back exactly, deleted data files
included. The commit journal (:mod:`uvlab.app.ms.journal`) keeps its snapshots
in itself.

A snapshot's manifest records the *identity* of every entry of the folder
(:func:`identity`): its type, inode, size and modification time, and for a
copied file the SHA-256 of its bytes. Recovery compares the folder with these
identities before it changes anything (:mod:`uvlab.app.ms.journal_check`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
from pathlib import Path

from uvlab.app.runtime.diskspace import fsync_path
from uvlab.app.runtime.faults import fault_point

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


def file_hash(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def identity(p: Path, *, with_hash: bool = False) -> dict:
    """``{"type", "ino", "size", "mtime_ns"}`` of ``p`` (not following a link), and its hash."""
    st = p.lstat()
    kind = (
        "file"
        if stat.S_ISREG(st.st_mode)
        else "dir"
        if stat.S_ISDIR(st.st_mode)
        else "link"
        if stat.S_ISLNK(st.st_mode)
        else "other"
    )
    out = {"type": kind, "ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    if with_hash and kind == "file":
        out["sha256"] = file_hash(p)
    return out


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
        Entries that are not part of the table (the journal itself, lock files).

    Returns
    -------
    dict
        ``{"entries": {name: identity}}``; a plain file's identity also has
        ``"kind"`` (``"copy"`` or ``"link"``) and, when copied, ``"sha256"``.
    """
    dest.mkdir()
    entries: dict = {}
    for p in sorted(table.iterdir()):
        if skip(p.name):
            continue
        info = identity(p)
        entries[p.name] = info
        if info["type"] != "file":
            continue
        kind = "copy" if info["size"] <= COPY_LIMIT or p.name in copy_also else "link"
        if kind == "link":
            try:
                os.link(p, dest / p.name)
            except OSError:  # no hard links on this file system: copy instead
                kind = "copy"
        if kind == "copy":
            shutil.copyfile(p, dest / p.name)
            fsync_path(dest / p.name)
            info["sha256"] = file_hash(dest / p.name)
        info["kind"] = kind
    fsync_path(dest)
    return {"entries": entries}


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


def restore_files(table: Path, snap: Path, manifest: dict, names, remove=()) -> None:
    """Put the files ``names`` of ``table`` back as ``snap`` holds them; delete ``remove``.

    Each file is restored by an atomic rename (a copy for copied files, a new
    hard link for linked ones), so a kill during the restore leaves a folder a
    second restore finishes. Only the entries named are touched: the caller
    (:func:`uvlab.app.ms.journal_recovery.recover`) decided, from the journal, that
    they are the dead writer's.
    """
    entries = manifest["entries"]
    for name in names:
        info, saved = entries[name], snap / name
        tmp = table / f"{RESTORE_PREFIX}{name}"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if info["kind"] == "copy":
            shutil.copyfile(saved, tmp)
            os.utime(tmp, ns=(info["mtime_ns"], info["mtime_ns"]))
            fsync_path(tmp)
        else:
            os.link(saved, tmp)
        os.replace(tmp, table / name)
        fault_point("recovery-restoring")
    for name in remove:
        remove_entry(table / name)
        fault_point("recovery-restoring")
    fsync_path(table)
