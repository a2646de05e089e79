"""Check a commit journal against the table before recovery changes anything.

Recovery (:func:`uvlab.app.ms.journal_recovery.recover`) undoes only what the dead
writer did. :func:`plan_recovery` reads the journal's ``state.json`` and the
table folder and returns a :class:`Plan` (which files to restore from the
snapshot, which of the writer's new files to remove), or raises
:class:`JournalRefused` with one line, having changed nothing, when

- ``state.json`` is missing, not JSON, of another version, or names anything
  but plain entries of the table folder (no ``/``, ``..``, absolute path, NUL);
- the journal belongs to another table (the folder's inode differs), or its
  snapshot does not hold what it records;
- anything outside the writer's own new files differs from what the journal
  recorded: a file edited (inode, size or modification time differ), an entry
  missing, an entry that the writer cannot have made (a folder, a file whose
  name is not one of casacore's data files of a new data manager nor its
  ``table.dat_tmp``), or a
  ``table.dat`` that is neither one the writer recorded nor one describing the
  recorded columns (plus the writer's own) and row count.

Subtable folders are compared by inode only: recovery never touches them.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.snapshot import file_hash, identity

#: The journal versions this uvlab can recover.
VERSION = 2
#: A data file casacore writes for data manager N: table.fN, table.fNi, table.fN_TSM0, …
DATA_FILE = re.compile(r"table\.f(\d+)(?:i|_[A-Za-z0-9_]+)?")
#: casacore writes table.dat here first and renames it: a kill mid-flush leaves it.
CASACORE_TEMP = "table.dat_tmp"
_COLUMN = re.compile(r"[A-Z][A-Z0-9_]*")


class JournalRefused(MSError):
    """Recovery would not be safe; nothing was changed."""


@dataclass(frozen=True)
class Plan:
    """What recovery will do: restore ``restore`` from ``snapshot``, delete ``remove``."""

    phase: str
    column: str
    snapshot: str
    restore: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    drop_column: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def action(self) -> str:
        return "finish" if self.phase == "switched" else "roll back"

    def lines(self, table: str) -> list[str]:
        """One line per step, for ``uvlab repair --dry-run``."""
        when = "at the commit point" if self.phase == "switched" else "before the write"
        out = [f"{table}: would {self.action} an interrupted write of column {self.column}:"]
        out += [f"{table}:   restore {n} as it was {when}" for n in self.restore]
        out += [f"{table}:   remove {n} (created by the interrupted write)" for n in self.remove]
        if self.drop_column:
            out.append(f"{table}:   remove the replaced column {self.drop_column}")
        out.append(f"{table}:   remove the journal UVLAB_COMMIT")
        return out


def plain_name(name) -> bool:
    """A single entry name: no '/', no NUL, not '', '.' or '..'."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and "\0" not in name
        and "\\" not in name
    )


def read_state(folder: Path) -> dict:
    """``state.json`` of the journal ``folder``, checked for shape (not yet against the table)."""
    try:
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JournalRefused("the journal has no state.json") from None
    except (OSError, ValueError) as exc:
        raise JournalRefused(f"the journal's state.json is unreadable ({exc})") from None
    if not isinstance(state, dict):
        raise JournalRefused("the journal's state.json is not a record")
    if state.get("version") != VERSION:
        raise JournalRefused(
            f"the journal is of version {state.get('version')!r}, not {VERSION} "
            "(written by another uvlab version)"
        )
    phase = state.get("phase")
    if phase not in ("writing", "switched"):
        raise JournalRefused(f"the journal's phase {phase!r} is unknown")
    for key in ("columns", "adds", "drops", "seqnrs", "table_dat", "may_change", "created"):
        if not isinstance(state.get(key), list):
            raise JournalRefused(f"the journal's state.json has no list {key!r}")
    names = [*state["columns"], *state["adds"], *state["drops"]]
    if not all(isinstance(c, str) and _COLUMN.fullmatch(c) for c in names):
        raise JournalRefused("the journal names a column that is not a plain column name")
    files = [*state["may_change"], *state["created"]]
    if not all(plain_name(n) for n in files):
        raise JournalRefused("the journal names an entry outside the table folder")
    if not isinstance(state.get("nrows"), int) or not isinstance(state.get("table"), dict):
        raise JournalRefused("the journal's state.json lacks the table's identity")
    for key in ("snap0", "snap1") if phase == "switched" else ("snap0",):
        manifest = state.get(key)
        if not isinstance(manifest, dict) or not isinstance(manifest.get("entries"), dict):
            raise JournalRefused(f"the journal's state.json has no manifest {key}")
        for name, info in manifest["entries"].items():
            if not plain_name(name) or not isinstance(info, dict):
                raise JournalRefused(f"the journal's manifest names {name!r}, not a plain entry")
    return state


def _check_snapshot(snap: Path, manifest: dict) -> None:
    """Every file the manifest records is in the snapshot folder, as recorded."""
    for name, info in manifest["entries"].items():
        if info.get("type") != "file":
            continue
        saved = snap / name
        try:
            now = identity(saved)
        except OSError:
            raise JournalRefused(f"the journal's snapshot lacks {name}") from None
        if now["type"] != "file" or now["size"] != info.get("size"):
            raise JournalRefused(f"the journal's snapshot of {name} is not what it recorded")
        if info.get("kind") == "copy":
            if file_hash(saved) != info.get("sha256"):
                raise JournalRefused(f"the journal's snapshot of {name} is not what it recorded")
        elif info.get("kind") != "link" or now["ino"] != info.get("ino"):
            raise JournalRefused(f"the journal's snapshot of {name} is not what it recorded")


def table_shape(table: Path) -> tuple[set[str], int, dict[int, set[str]]] | None:
    """(columns, rows, {data-manager seqnr: its columns}) of the table, or None if unreadable.

    Opens the table read-only; a ``table.lock`` that casacore creates doing so is removed.
    """
    from casacore import tables

    lock = table / "table.lock"
    had_lock = lock.exists()
    try:
        t = tables.table(str(table), readonly=True, ack=False)
    except RuntimeError:
        return None
    finally:
        if not had_lock:
            with contextlib.suppress(OSError):
                lock.unlink()
    try:
        dms = {int(d["SEQNR"]): set(d.get("COLUMNS", [])) for d in t.getdminfo().values()}
        return set(t.colnames()), int(t.nrows()), dms
    finally:
        t.close()
        if not had_lock:
            with contextlib.suppress(OSError):
                lock.unlink()


def _table_dat_reason(table: Path, state: dict, base: set[str], adds, drops, seqnrs) -> str | None:
    """Why the current table.dat is not one the writer can have left; None if it can be."""
    shape = table_shape(table)
    if shape is None:
        return None  # not readable: no other program can have changed it through casacore
    cols, nrows, dms = shape
    if nrows != state["nrows"]:
        return f"the table has {nrows} rows, the journal recorded {state['nrows']}"
    foreign = sorted(cols - set(adds) - base)
    if foreign:
        return f"column {', '.join(foreign)} was added since"
    gone = sorted(base - cols - set(drops))
    if gone:
        return f"column {', '.join(gone)} was removed since"
    for seq, dm_cols in dms.items():
        if seq not in seqnrs and not dm_cols <= set(adds):
            return f"data manager {seq} ({', '.join(sorted(dm_cols))}) was added since"
    return None


_IGNORED = ("table.lock", "UVLAB_LOCK")


def plan_recovery(table: Path, folder: Path, state: dict, skip) -> Plan:
    """The :class:`Plan` that undoes (or finishes) the write ``state`` records.

    Parameters
    ----------
    table : Path
        The table folder.
    folder : Path
        Its journal folder.
    state : dict
        From :func:`read_state`.
    skip : callable(name) -> bool
        Journal entries (not part of the table).

    Raises
    ------
    JournalRefused
        When recovery would touch anything the writer did not make (see the
        module docstring).
    """
    st = table.stat()
    if (st.st_dev, st.st_ino) != (state["table"].get("dev"), state["table"].get("ino")):
        raise JournalRefused("the journal belongs to another table (copied or moved here?)")
    phase = state["phase"]
    key = "snap1" if phase == "switched" else "snap0"
    manifest = state[key]
    entries = manifest["entries"]
    for must in ("table.dat", "table.info"):
        if must not in entries:
            raise JournalRefused(f"the journal's snapshot does not record {must}")
    _check_snapshot(folder / key, manifest)
    if phase == "switched":
        base = set(state.get("columns1") or [])
        drop = state.get("drop_after")
        adds, drops = [], [drop] if drop else []
        may_change = set(state.get("may_change1") or [])
        seqnrs = set(state.get("seqnrs1") or [])
    else:
        base, adds, drops = set(state["columns"]), state["adds"], state["drops"]
        drop, may_change = None, set(state["may_change"])
        seqnrs = set(state["seqnrs"])
    restore, remove = [], []
    present = {p.name: p for p in table.iterdir() if not skip(p.name)}
    for name, info in entries.items():
        p = present.get(name)
        if name in _IGNORED:
            if p is not None and info.get("kind") == "copy" and file_hash(p) != info["sha256"]:
                restore.append(name)  # casacore's own lock file: put back as it was
            continue
        if p is None:
            if name in may_change and info.get("type") == "file":
                restore.append(name)
                continue
            raise JournalRefused(f"{name} is missing, and the interrupted write did not remove it")
        now = identity(p)
        if info.get("type") != "file" or now["type"] != "file":
            if (now["type"], now["ino"]) != (info.get("type"), info.get("ino")):
                raise JournalRefused(f"{name} was replaced since the journal recorded it")
            continue
        if name in ("table.dat", "table.info"):
            digest = file_hash(p)
            if digest == info.get("sha256"):
                continue
            if name == "table.info":
                raise JournalRefused("table.info was changed by another program")
            if digest not in state["table_dat"]:
                why = _table_dat_reason(table, state, base, adds, drops, seqnrs)
                if why:
                    raise JournalRefused(
                        f"{why} (table.dat differs from what the journal recorded)"
                    )
            restore.append(name)
            continue
        same = all(now[k] == info.get(k) for k in ("ino", "size", "mtime_ns"))
        if same:
            continue
        if name not in may_change:
            raise JournalRefused(f"{name} was changed since the write was interrupted")
        if info.get("kind") != "copy" and now["ino"] == info.get("ino"):
            raise JournalRefused(f"{name} was rewritten in place and cannot be restored")
        restore.append(name)
    for name, p in sorted(present.items()):
        if name in entries or name in _IGNORED:
            continue
        m = DATA_FILE.fullmatch(name)
        plain = p.is_file() and not p.is_symlink()
        new_dm = m is not None and int(m.group(1)) not in state["seqnrs"]
        if not (plain and (new_dm or name == CASACORE_TEMP)):
            raise JournalRefused(
                f"{name} is not in the journal's record and was not made by the write"
            )
        remove.append(name)
    return Plan(phase, str(state.get("column")), key, tuple(restore), tuple(remove), drop)
