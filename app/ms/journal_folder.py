"""The names and files of a commit journal's folder, and its reserve of disk room.

A write's journal (:mod:`uvlab.app.ms.journal`) is the folder ``UVLAB_COMMIT``
inside the table; one being built is ``UVLAB_COMMIT.tmp-<pid>``, one being
dropped ``UVLAB_COMMIT.done-<pid>``. Its ``state.json`` is replaced atomically
(:func:`write_state`); dropping it is one rename, then a delete
(:func:`drop_journal`); leftovers of dead processes are removed under the lock
(:func:`clean_leftovers`).

The journal also keeps a *reserve*: 1 MiB files of room held back so that
casacore's flushes (which abort the process when they cannot write
``table.dat``) never meet a full disk (:func:`reserve_bytes`,
:func:`make_reserve`). See docs/data-safety.md.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.ms_lock import LOCK_NAME
from uvlab.app.ms.snapshot import RESTORE_PREFIX, remove_entry, snapshot_bytes
from uvlab.app.runtime.diskspace import fsync_path
from uvlab.app.runtime.faults import fault_point

JOURNAL = "UVLAB_COMMIT"
TMP_PREFIX = JOURNAL + ".tmp-"
DONE_PREFIX = JOURNAL + ".done-"
STATE = "state.json"
OLD_PREFIX = "UVLAB_OLD_"
PARTIAL_PREFIX = "UVLAB_PARTIAL_"


def is_journal_name(name: str) -> bool:
    """Whether ``name`` is a journal, one being built or dropped, or a restore's leftover."""
    return name == JOURNAL or name.startswith((TMP_PREFIX, DONE_PREFIX, RESTORE_PREFIX))


def not_table(name: str) -> bool:
    """Entries of the folder that are not the table's: journals, uvlab's lock."""
    return is_journal_name(name) or name == LOCK_NAME


def drop_journal(folder: Path) -> None:
    """Retire a journal: one rename (the moment it stops counting), then delete it."""
    done = folder.parent / f"{DONE_PREFIX}{os.getpid()}"
    if done.exists():
        remove_entry(done)
    os.rename(folder, done)
    fsync_path(folder.parent)
    fault_point("journal-retired")
    shutil.rmtree(done, ignore_errors=True)


def write_state(folder: Path, state: dict) -> None:
    """Replace the journal's ``state.json`` by ``state``, durably (write, fsync, rename)."""
    tmp = folder / (STATE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, folder / STATE)
    fsync_path(folder)


def clean_leftovers(table: Path, *, dry_run: bool = False) -> list[str]:
    """Remove journals being built or dropped by dead processes (call under the lock)."""
    removed = []
    for p in table.iterdir():
        if p.name.startswith((TMP_PREFIX, DONE_PREFIX, RESTORE_PREFIX)):
            if not dry_run:
                remove_entry(p)
            removed.append(p.name)
    return removed


# -------------------------------------------------------------------- reserve
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


def disk_error(table: Path, exc: OSError) -> MSError:
    """The one-line refusal of a journal that could not be written (``exc``)."""
    why = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc.strerror
    return MSError(f"{table}: could not write the commit journal ({why}); nothing was changed")


def make_reserve(folder: Path, size: int) -> None:
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
