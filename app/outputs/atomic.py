"""Atomic output files: a complete new file or the old one, never half of either.

Every file uvlab writes (FITS, PNG, JSON, sky files, sessions, exports) goes
through :func:`atomic_path` or its shortcuts :func:`write_text`,
:func:`write_bytes` and :func:`save_qimage`:

1. with ``overwrite=False`` an existing file is refused at once
   (:class:`FileExistsError`, nothing written);
2. temporary files left in the folder by a killed uvlab process (their pid is
   gone) for the same path are removed, then the free space is checked when
   the caller gives an estimate (:func:`uvlab.app.runtime.diskspace.check_space`);
3. the data go to a temporary file in the same folder, named
   ``.<name>.uvlab-tmp-<pid>-<random><suffix>`` (the suffix kept so that
   libraries choosing a format by extension still do);
4. that file is flushed to disk (``fsync``), given the old file's permission
   bits, renamed over the target (``os.replace``; with ``overwrite=False`` a
   hard link, which never replaces a file created in the meantime) and the
   folder is flushed too.

On any failure or interrupt (an exception, ``KeyboardInterrupt``, SIGTERM
through :mod:`uvlab.app.runtime.signals`) the temporary file is removed and the old
file, if any, is left byte for byte as it was. A full disk (``ENOSPC`` or
``EDQUOT``, also when a library wrapped it, or a short write while the disk
has less than 1 MiB left) is reported as :class:`DiskFullError` with a
one-line message naming the file and the space left.

A symbolic link at the target's name is refused (:class:`SymlinkRefusedError`,
one line naming it), dangling or not: uvlab never writes a file through a link
someone may have planted in a shared folder. The renames themselves never
follow a link that appears meanwhile (``rename`` replaces the link, a hard
link refuses it). The one exception: a link to a FIFO or a character device
(``/dev/stdout``), like such a file itself, is written in place, since there is
nothing to replace atomically.

Inside :func:`uvlab.app.outputs.output_set.output_set` the temporaries are not renamed
at the end of each write but kept and renamed together, as one set, when the
block ends (:func:`staged`).
Temporary files of a process on another machine sharing the folder, or of a
pid that has been reused, are kept (removing a live writer's file would be
worse than leaving a stale one); on Windows none is removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from uvlab.app.runtime.diskspace import (
    InsufficientSpaceError,
    check_space,
    free_bytes,
    fsync_path,
    nearly_full,
)
from uvlab.app.runtime.memory import format_bytes

#: Marks uvlab's temporary files: ``.<name>.uvlab-tmp-<pid>-<random><suffix>``.
TEMP_MARK = ".uvlab-tmp-"
#: At most this many characters of the target's name go into a temporary name.
_NAME_KEEP = 120
#: errno values that mean "the disk (or the user's quota) is full".
_FULL = (errno.ENOSPC, errno.EDQUOT)


class SymlinkRefusedError(OSError):
    """The output's name is a symbolic link; nothing was written (one-line message)."""


def refuse_symlink(path: str | os.PathLike) -> None:
    """Raise :class:`SymlinkRefusedError` when ``path`` is a symbolic link uvlab must not follow.

    A link to a FIFO or a character device (``/dev/stdout``) passes: it is
    written in place, with nothing replaced.
    """
    if not os.path.islink(path):
        return
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            return
    raise _one_line_error(
        SymlinkRefusedError,
        errno.ELOOP,
        f"{os.fspath(path)}: is a symbolic link; uvlab does not write through links "
        "(remove it or choose another name)",
    )


# --------------------------------------------------------- staged output sets
_stage = threading.local()


@contextlib.contextmanager
def staged(entries: list) -> Iterator[list]:
    """Within the block, :func:`atomic_path` appends ``(tmp, target, overwrite, shown)`` to
    ``entries`` instead of renaming; the caller renames or removes them (output sets)."""
    previous = getattr(_stage, "entries", None)
    _stage.entries = entries
    try:
        yield entries
    finally:
        _stage.entries = previous


class DiskFullError(InsufficientSpaceError):
    """The disk filled up during a write; the write was rolled back (one-line message)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.errno = errno.ENOSPC


def _one_line_error(cls: type[OSError], code: int, message: str) -> OSError:
    """``cls(message)`` with ``errno`` set, whose ``str()`` is just ``message``."""
    exc = cls(message)
    exc.errno = code
    return exc


# --------------------------------------------------------------- temp names
def _temp_parts(path: Path) -> tuple[str, str]:
    """(prefix, suffix) of the temporary names for ``path``."""
    return f".{path.name[:_NAME_KEEP]}{TEMP_MARK}", path.suffix


def temp_path_for(path: str | os.PathLike) -> Path:
    """A new temporary name beside ``path`` (not created): pid and a random part."""
    path = Path(path)
    prefix, suffix = _temp_parts(path)
    return path.with_name(f"{prefix}{os.getpid()}-{secrets.token_hex(4)}{suffix}")


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` may still run (True when it cannot be told)."""
    if pid <= 0 or pid == os.getpid() or sys.platform == "win32":
        return True  # on Windows os.kill(pid, 0) would terminate the process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: alive, someone else's
        return True
    return True


def stale_temps(path: str | os.PathLike) -> list[Path]:
    """uvlab temporary files of ``path`` whose writing process no longer runs."""
    path = Path(path)
    prefix, suffix = _temp_parts(path)
    pattern = re.compile(re.escape(prefix) + r"(\d+)-[0-9a-f]+" + re.escape(suffix) + r"\Z")
    try:
        entries = list(os.scandir(path.parent if str(path.parent) else "."))
    except OSError:
        return []
    out = []
    for entry in entries:
        m = pattern.match(entry.name)
        if m and not _pid_alive(int(m.group(1))):
            out.append(path.with_name(entry.name))
    return out


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Remove :func:`stale_temps` of ``path``; returns those removed."""
    removed = []
    for tmp in stale_temps(path):
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
            removed.append(tmp)
    return removed


def _link_no_clobber(tmp: Path, target: Path, shown) -> None:
    """Give ``tmp`` the name ``target`` unless a file of that name appeared meanwhile."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise _exists_error(shown) from None
    except OSError:  # no hard links here (FAT, some network file systems)
        if os.path.lexists(target):
            raise _exists_error(shown) from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def _exists_error(shown) -> OSError:
    return _one_line_error(
        FileExistsError, errno.EEXIST, f"{shown}: already exists; not overwritten"
    )


def _disk_full_cause(exc: BaseException, folder: Path) -> OSError | None:
    """The OSError in ``exc``'s chain that says the disk is full, if any.

    An ENOSPC/EDQUOT anywhere in the chain (a library may have wrapped it);
    else an OSError without errno (a short write, as astropy and NumPy report
    it) while the folder's disk is (nearly) full.
    """
    chain: list[BaseException] = []
    while exc is not None and all(exc is not e for e in chain):
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    for e in chain:
        if isinstance(e, OSError) and e.errno in _FULL:
            return e
    vague = [e for e in chain if type(e) is OSError and e.errno is None]
    if vague and nearly_full(folder):
        return vague[-1]
    return None


# ------------------------------------------------------------ the writer
@contextlib.contextmanager
def atomic_path(
    path: str | os.PathLike,
    *,
    overwrite: bool = True,
    need_bytes: float | None = None,
    what: str = "the file",
) -> Iterator[Path]:
    """Yield a temporary path to write; it becomes ``path`` when the block succeeds.

    Parameters
    ----------
    path : str or path-like
        The file to (re)place. Its folder must exist.
    overwrite : bool
        When False and ``path`` exists, raise :class:`FileExistsError` before
        anything is written (and never replace a file that appears meanwhile).
    need_bytes : float, optional
        Estimated size of the new file: when given, the write is refused
        beforehand (:class:`~uvlab.app.runtime.diskspace.InsufficientSpaceError`) if
        the disk cannot hold it next to the old file.
    what : str
        What is written, for the space message (e.g. ``"FITS image"``).

    Yields
    ------
    Path
        The temporary file, already created (empty) so that its name is ours:
        tell the library it may overwrite it (astropy: ``overwrite=True``).

    Raises
    ------
    FileExistsError, InsufficientSpaceError, DiskFullError, OSError
        One-line messages naming ``path``. On any exception (and on
        ``KeyboardInterrupt``) the temporary file is removed and an existing
        ``path`` is untouched.

    Examples
    --------
    >>> with atomic_path("image.fits", need_bytes=4 * 512**2) as tmp:  # doctest: +SKIP
    ...     hdu.writeto(tmp, overwrite=True)
    """
    from uvlab.app.runtime.signals import critical

    shown = os.fspath(path)
    refuse_symlink(path)
    target = Path(path)
    if os.path.isdir(target) and not os.path.islink(target):
        raise _one_line_error(IsADirectoryError, errno.EISDIR, f"{shown}: is a folder, not a file")
    exists = os.path.lexists(target)
    if exists and not overwrite:
        raise _exists_error(shown)
    if exists and (os.path.islink(target) or not os.path.isfile(target)):
        yield target  # /dev/stdout, a FIFO: nothing to replace, written in place
        return
    remove_stale_temps(target)
    if need_bytes is not None:
        check_space(target, need_bytes, what)
    mode = stat.S_IMODE(os.stat(target).st_mode) if exists else None
    tmp = temp_path_for(target)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:  # no folder, no permission, read-only: name the file, not the temp
        if exc.errno in _FULL:
            raise _full_error(shown, exc, exists) from exc
        raise type(exc)(exc.errno, exc.strerror, shown) from None
    os.close(fd)
    try:
        yield tmp
        with critical():
            if not tmp.exists():
                raise FileNotFoundError(f"{shown}: the new file was not written")
            fsync_path(tmp)
            if mode is not None:
                os.chmod(tmp, mode)
            stage = getattr(_stage, "entries", None)
            if stage is not None:  # renamed with the rest of its output set
                stage.append((tmp, target, overwrite, shown))
                return
            if overwrite:
                os.replace(tmp, target)
            else:
                _link_no_clobber(tmp, target, shown)
            fsync_path(target.parent)
    except BaseException as exc:
        full = _disk_full_cause(exc, target.parent)  # before the temp frees its space
        with critical():
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        if full is not None and not isinstance(exc, InsufficientSpaceError):
            raise _full_error(shown, full, exists) from exc
        raise


def _full_error(shown: str, cause: OSError, existed: bool) -> DiskFullError:
    free = free_bytes(Path(os.path.abspath(shown)).parent, fake=False)
    room = "" if free is None else f"; {format_bytes(free)} free"
    reason = (cause.strerror or "no space left on device").lower()
    outcome = "the existing file is unchanged" if existed else "nothing was written"
    return DiskFullError(f"{shown}: disk full while writing ({reason}{room}); {outcome}")


def write_bytes(
    path: str | os.PathLike,
    data: bytes,
    *,
    overwrite: bool = True,
    what: str | None = None,
) -> Path:
    """Write ``data`` to ``path`` atomically; returns ``Path(path)``.

    With ``what`` (e.g. ``"sky model"``) the space is checked first; see
    :func:`atomic_path` for everything else.
    """
    need = None if what is None else len(data)
    with atomic_path(path, overwrite=overwrite, need_bytes=need, what=what or "the file") as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
    return Path(path)


def write_text(
    path: str | os.PathLike,
    text: str,
    *,
    overwrite: bool = True,
    encoding: str = "utf-8",
    newline: str | None = None,
    what: str | None = None,
) -> Path:
    """Write ``text`` to ``path`` atomically (like :meth:`Path.write_text`); returns the path.

    With ``what`` the space is checked first; see :func:`atomic_path`.
    """
    need = None if what is None else len(text.encode(encoding, "replace"))
    with atomic_path(path, overwrite=overwrite, need_bytes=need, what=what or "the file") as tmp:
        with open(tmp, "w", encoding=encoding, newline=newline) as fh:
            fh.write(text)
    return Path(path)


def png_size_bound(width: int, height: int) -> int:
    """Bytes a ``width`` × ``height`` RGBA PNG can take at most (no compression at all).

    One filter byte and 4 bytes per pixel a row, zlib's 5 bytes per 64 KiB
    stored block, and 64 KiB for the chunks and any metadata.
    """
    raw = int(height) * (int(width) * 4 + 1)
    return raw + 5 * (raw // 65535 + 1) + 65536


def save_qimage(image, path: str | os.PathLike, fmt: str = "PNG", *, overwrite: bool = True):
    """Save a Qt ``QImage`` or ``QPixmap`` atomically, after a space check; returns the path.

    Raises :class:`OSError` naming the file when Qt cannot write it (Qt's
    ``save`` only says False; :class:`DiskFullError` when the disk is full).
    """
    need = png_size_bound(image.width(), image.height())
    with atomic_path(path, overwrite=overwrite, need_bytes=need, what=f"a {fmt} image") as tmp:
        if not image.save(str(tmp), fmt):
            raise OSError(f"{os.fspath(path)}: could not write the {fmt} image")
    return Path(path)
