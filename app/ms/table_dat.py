"""Row counts as a table's own ``table.dat`` records them, with no lock file consulted.

casacore keeps a table's row count in two places: the ``table.dat`` header
and the sync record in ``table.lock``. A process that opens a table finds the
newer of the two, so a table whose ``table.dat`` was last written before rows
were added reads correctly only while its lock file is there; an archive
without lock files, or a clean-up of stale ones, leaves it empty. A
MeasurementSet written by :func:`uvlab.app.ms.writer.write_ms` must not
depend on its lock files: :func:`check_self_contained` reads each
``table.dat`` header directly (no copy, no casacore, no lock) and refuses a
build whose counts are not the ones written.

The header is casacore's AipsIO object ``Table``: the magic ``0xbebebebe``,
the object's length, the type name, the version, then the number of rows
(32 bits up to version 2, 64 bits from version 3), all big-endian.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from uvlab.app.ms.errors import MSError

_MAGIC = 0xBEBEBEBE


def table_dat_rows(table: str | os.PathLike) -> int:
    """The row count in ``table/table.dat``'s header.

    Raises
    ------
    MSError
        When the file is missing or is not a casacore table header.
    """
    path = Path(table) / "table.dat"
    try:
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError as exc:
        raise MSError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        magic, _length, nname = struct.unpack_from(">III", head, 0)
        name = head[12 : 12 + nname]
        (version,) = struct.unpack_from(">I", head, 12 + nname)
        if magic != _MAGIC or name != b"Table":
            raise ValueError
        fmt = ">Q" if version >= 3 else ">I"
        (nrow,) = struct.unpack_from(fmt, head, 16 + nname)
    except (struct.error, ValueError):
        raise MSError(f"{path}: not a casacore table header") from None
    return int(nrow)


def check_self_contained(ms: str | os.PathLike, expected: dict[str, int]) -> None:
    """Refuse (:class:`MSError`) a table tree whose ``table.dat`` row counts are not ``expected``.

    Parameters
    ----------
    ms : path-like
        The main table's folder.
    expected : dict
        ``{"": main-table rows, "ANTENNA": rows, ...}``: subtables by folder name.
    """
    root = Path(ms)
    wrong = []
    for name, rows in expected.items():
        found = table_dat_rows(root / name if name else root)
        if found != int(rows):
            wrong.append(f"{name or 'main table'} {found} of {rows}")
    if wrong:
        raise MSError(
            f"{root}: the new MeasurementSet's table.dat files do not hold their rows "
            f"({', '.join(wrong)}) and would depend on their lock files"
        )
