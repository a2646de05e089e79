"""Free disk space, and refusing a write that would not fit before it starts.

:func:`check_space` compares an estimate with what ``statvfs`` says an
unprivileged process may still write in the folder (``f_bavail``), keeping a
small margin for the file system's own bookkeeping. ``UVLAB_FAKE_FREE_BYTES``
overrides the free space (for tests of the refusal; never set it otherwise).
"""

from __future__ import annotations

import os
from pathlib import Path

from uvlab.app.runtime.memory import format_bytes

#: Bytes kept free beyond the estimate (file-system metadata, log files).
MARGIN_BYTES = 2**20
#: Extra fraction on top of an estimate (allocation granularity, headers).
MARGIN_FRACTION = 0.02


#: Less than this free means the disk is (nearly) full: a vague write error is taken for that.
NEARLY_FULL_BYTES = 2**20


class InsufficientSpaceError(OSError):
    """A write was refused because the disk cannot hold it (message says how much)."""


def _existing_folder(path: str | os.PathLike) -> Path:
    """``path`` itself when it is a folder, else its nearest existing parent."""
    p = Path(os.path.abspath(path))
    while not p.is_dir() and p != p.parent:
        p = p.parent
    return p


def free_bytes(path: str | os.PathLike, *, fake: bool = True) -> int | None:
    """Bytes an ordinary process may still write where ``path`` lies (None if unknown).

    ``fake=False`` ignores ``UVLAB_FAKE_FREE_BYTES`` (to explain a failure that happened).
    """
    fake = os.environ.get("UVLAB_FAKE_FREE_BYTES") if fake else None
    if fake:
        return int(float(fake))
    try:
        st = os.statvfs(_existing_folder(path))
    except (OSError, AttributeError):
        return None
    return int(st.f_bavail) * int(st.f_frsize)


def nearly_full(path: str | os.PathLike) -> bool:
    """Whether the disk holding ``path`` has (really, never faked) under 1 MiB free."""
    free = free_bytes(path, fake=False)
    return free is not None and free < NEARLY_FULL_BYTES


def fsync_path(path: str | os.PathLike) -> None:
    """Flush a file's data, or a folder's entries (skipped where the file system refuses)."""
    folder = os.path.isdir(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        if folder:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not folder:
            raise
    finally:
        os.close(fd)


def check_space(path: str | os.PathLike, need_bytes: float, what: str) -> None:
    """Raise :class:`InsufficientSpaceError` when ``need_bytes`` will not fit at ``path``.

    Parameters
    ----------
    path : str or path-like
        The file or folder to be written (it need not exist yet).
    need_bytes : float
        Estimated bytes the write adds.
    what : str
        What is written, for the message (e.g. ``"column MODEL_DATA"``).
    """
    free = free_bytes(path)
    if free is None:
        return
    need = float(need_bytes) * (1.0 + MARGIN_FRACTION) + MARGIN_BYTES
    if need > free:
        raise InsufficientSpaceError(
            f"{path}: not enough disk space for {what}: needs about {format_bytes(need)}, "
            f"{format_bytes(free)} free"
        )
