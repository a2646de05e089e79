"""The per-MeasurementSet write lock: an exclusive ``flock`` on ``MS/UVLAB_LOCK``.

Every process that changes a MeasurementSet's main table (a column write,
``uvlab repair``, the recovery a write does before it starts) takes this lock
*before* it looks at the table, and keeps it until its journal is retired
(:mod:`uvlab.app.ms.journal`). A second writer is refused at once with
:data:`BUSY`. Readers take no lock: they never change the MeasurementSet.

``UVLAB_LOCK`` is an empty file that uvlab creates on the first write and never
deletes (deleting a lock file that someone holds would let a second process
lock a new file of the same name; :meth:`MSLock.acquire` checks that the file
it locked is still the one at that name). A MeasurementSet whose folder is not
writable cannot be written or repaired, so it needs no lock: acquiring one
there fails with a one-line error instead.

The lock is re-entrant within one process (a repair that removes columns
through a journal holds it once), and its descriptor is close-on-exec.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from uvlab.app.ms.errors import MSError

#: The lock file inside the MeasurementSet folder (created by uvlab, never deleted).
LOCK_NAME = "UVLAB_LOCK"
#: What a second writer is told.
BUSY = "another uvlab process is writing this MeasurementSet; try again when it has finished"

_held: dict[str, list] = {}  # real path of the table -> [fd, count]


def lock_file(path: Path, *, blocking: bool) -> int | None:
    """An exclusive flock on ``path`` (created): its fd, or None if another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
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
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _key(table: str | os.PathLike) -> str:
    return os.path.realpath(table)


def held_elsewhere(table: str | os.PathLike) -> bool:
    """Whether another process holds the write lock of ``table`` (a write is running)."""
    if _key(table) in _held:
        return False
    return held_by_live_process(Path(table) / LOCK_NAME)


class MSLock:
    """This process's hold on a MeasurementSet's write lock; release it (or use ``with``)."""

    def __init__(self, table: Path, key: str) -> None:
        self.table = table
        self._key = key
        self._released = False

    @classmethod
    def acquire(cls, table: str | os.PathLike) -> MSLock:
        """Take the write lock of ``table`` without waiting.

        Raises
        ------
        MSError
            :data:`BUSY` when another process holds it; a one-line error when
            the folder is not writable.
        """
        table = Path(table)
        key = _key(table)
        if key in _held:
            _held[key][1] += 1
            return cls(table, key)
        path = table / LOCK_NAME
        for _ in range(5):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                    raise MSError(
                        f"{table}: the MeasurementSet folder is not writable ({exc.strerror}); "
                        "uvlab cannot write to it or repair it"
                    ) from None
                raise MSError(f"{table}: cannot create the lock file {LOCK_NAME} ({exc})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise MSError(f"{table}: {BUSY}") from None
            except BaseException:
                os.close(fd)
                raise
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
            except OSError:
                same = False
            if same:
                _held[key] = [fd, 1]
                return cls(table, key)
            os.close(fd)  # the file was deleted or replaced under us: lock the new one
        raise MSError(f"{table}: {BUSY}")

    def release(self) -> None:
        """Let go of this hold (the lock itself goes with the last hold in this process)."""
        if self._released:
            return
        self._released = True
        entry = _held.get(self._key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            del _held[self._key]
            os.close(entry[0])

    def __enter__(self) -> MSLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()
