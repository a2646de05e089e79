"""Errors raised while reading a MeasurementSet, and casacore's errors translated.

casacore reports every problem as a ``RuntimeError`` whose text names a file
deep inside the table; :func:`translate` turns the common ones into one line
that names the MeasurementSet and says what is wrong with it.
"""

from __future__ import annotations

import os
import re

from uvlab.app.runtime.errors import Cancelled as _Cancelled

_MISSING_FILE = re.compile(r"file (\S+) could not be opened")
# Tiled storage managers report a missing data file through RegularFileIO.
_NO_SUCH_FILE = re.compile(r"open or create of file (\S+?):? No such file or directory")
_NO_TABLE = re.compile(r"Table (\S+) does not exist")
_WRITE_ERROR = re.compile(r"write error (?:in|for file) (\S+?):")


class MSError(ValueError):
    """A MeasurementSet that cannot be read as asked, with a one-line reason."""


# Re-exported: one Cancelled for every layer, so a worker catches a single class.
Cancelled = _Cancelled


def _relative(path: str, inner: str) -> str:
    """``inner`` relative to the MeasurementSet folder where it lies inside it."""
    try:
        rel = os.path.relpath(os.path.abspath(inner), os.path.abspath(path))
    except ValueError:
        return inner
    return inner if rel.startswith("..") else rel


def translate(path: str, exc: BaseException) -> MSError:
    """An :class:`MSError` for a casacore ``RuntimeError`` raised inside ``path``.

    Parameters
    ----------
    path : str
        The MeasurementSet folder.
    exc : BaseException
        What casacore raised.

    Returns
    -------
    MSError
        With a message naming ``path`` and, where casacore says, the missing file.
    """
    full = str(exc).strip()
    text = full.splitlines()[0] if full else type(exc).__name__
    if m := _MISSING_FILE.search(full) or _NO_SUCH_FILE.search(full):
        inner = _relative(path, m.group(1))
        return MSError(
            f"{path}: table file {inner} is missing; the MeasurementSet is damaged or incomplete"
        )
    if m := _WRITE_ERROR.search(full):
        inner = _relative(path, m.group(1))
        why = "the disk is full" if "No space" in full else "is the disk full?"
        return MSError(f"{path}: could not write {inner} ({why})")
    if m := _NO_TABLE.search(full):
        inner = _relative(path, m.group(1))
        if inner in (".", path):
            return MSError(f"{path}: not a readable casacore table")
        return MSError(f"{path}: subtable {inner} is missing or not a table")
    return MSError(f"{path}: casacore cannot read it: {text}")
