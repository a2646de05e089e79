"""Output sets: the files of one run replace the old ones together, or none does.

A command that writes several files (``uvlab image``: FITS images, a PNG, a
JSON; ``compare``; ``demo``) checks them all before any work
(:func:`check_outputs`: a symbolic link at any name is refused, and an existing
file without ``--force``; a usage error naming the file) and writes them inside
:func:`output_set`. There each file goes to its own temporary beside the target
(:mod:`uvlab.app.outputs.atomic`, the same checks), and only when the block ends are
they renamed, one after the other, inside one :func:`uvlab.app.runtime.signals.critical`
section: SIGINT or SIGTERM waits for the last rename, so a cancelled run
leaves the old set or the new one, never new FITS beside an old PNG. A failure
during the renames (a file that appeared meanwhile without ``--force``, an I/O
error) puts back the files already renamed (from hard-linked copies of the old
ones) before it is raised; if the block raises, every temporary is removed and
nothing changes.

With ``--force``, files of the set that this run does not write (``stale``:
e.g. ``PREFIX-model.fits`` of an earlier run with CLEAN) are removed in the
same section, so that no file of an older set stays beside the new one.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from uvlab.app.outputs import atomic

#: Fault-hook steps (``UVLAB_FAULT``, tests): all files written, before the renames;
#: after the first rename.
STEP_STAGED, STEP_RENAMED = "outputs-staged", "outputs-renamed"


def _fault(step: str) -> None:
    if os.environ.get("UVLAB_FAULT"):
        from uvlab.app.runtime.faults import fault_point

        fault_point(step)


def check_outputs(paths: Iterable[str | os.PathLike], *, force: bool, flag: str = "--force"):
    """Refuse an output set before any work: a symlink at a name, an existing file without ``flag``.

    Raises
    ------
    uvlab.app.runtime.errors.UsageError
        One line naming the first offending file (exit 2).
    """
    from uvlab.app.runtime.errors import UsageError

    for path in paths:
        try:
            atomic.refuse_symlink(path)
        except atomic.SymlinkRefusedError as exc:
            raise UsageError(str(exc)) from None
        if os.path.isdir(path):
            raise UsageError(f"{os.fspath(path)}: is a folder, not a file")
        if os.path.lexists(path) and not force:
            raise UsageError(f"{os.fspath(path)}: already exists; pass {flag} to overwrite it")


@contextlib.contextmanager
def output_set(*, overwrite: bool = True, stale: Iterable[str | os.PathLike] = ()) -> Iterator:
    """Files written with :mod:`~uvlab.app.outputs.atomic` in the block are renamed in together.

    Parameters
    ----------
    overwrite : bool
        When False, no existing file is replaced (each write and the renames
        refuse one that appeared meanwhile: the set is then put back).
    stale : paths
        Files of the set to remove at the same instant unless written in the block.
    """
    entries: list = []
    try:
        with atomic.staged(entries):
            yield entries
        _fault(STEP_STAGED)
        _commit(entries, overwrite, [Path(p) for p in stale])
    finally:
        from uvlab.app.runtime.signals import critical

        with critical():
            for tmp, *_ in entries:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()


def _commit(entries: list, overwrite: bool, stale: list[Path]) -> None:
    from uvlab.app.runtime.diskspace import fsync_path
    from uvlab.app.runtime.signals import critical

    with critical():
        for _tmp, target, own, shown in entries:  # refused before anything is renamed
            if not (own and overwrite) and os.path.lexists(target):
                raise atomic._exists_error(shown)
        done: list[list] = []  # [target, backup, existed, renamed]
        try:
            for tmp, target, own, shown in entries:
                existed = os.path.lexists(target)
                done.append([target, _backup(target) if existed else None, existed, False])
                if own and overwrite:
                    os.replace(tmp, target)
                else:
                    atomic._link_no_clobber(tmp, target, shown)
                done[-1][3] = True
                _fault(STEP_RENAMED)
        except BaseException:
            for target, backup, existed, renamed in reversed(done):
                if not renamed:
                    continue
                with contextlib.suppress(OSError):
                    if backup is not None:
                        os.replace(backup, target)
                    elif not existed:
                        os.unlink(target)
            raise
        finally:
            for _target, backup, _existed, _renamed in done:
                if backup is not None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(backup)
        written = {os.path.abspath(t) for _, t, *_ in entries}
        for path in stale:
            if os.path.abspath(path) not in written and os.path.isfile(path):
                if not os.path.islink(path):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
        for folder in {Path(t).parent for _, t, *_ in entries} | {p.parent for p in stale}:
            with contextlib.suppress(OSError):
                fsync_path(folder)


def _backup(target: Path) -> Path | None:
    """A hard link to the old ``target`` to put back on failure (None where links fail)."""
    backup = atomic.temp_path_for(target)
    try:
        os.link(target, backup, follow_symlinks=False)
    except OSError:
        return None
    return backup
