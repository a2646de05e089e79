"""Recovery undoes only what the dead writer did, and only ``uvlab repair`` (or a write) does it.

- a crafted or damaged journal of every shape (no state.json, truncated or
  invalid JSON, another version, names with '/', '..', absolute paths or NUL,
  another table's identity, a manifest listing only table.dat and table.info,
  a journal copied from another MeasurementSet) is refused on one line and
  changes nothing (every file under the MS hashed before and after);
- a killed write followed by an edit with casacore (FLAG changed, a
  CORRECTED_DATA column added) keeps the edit: repair refuses and says why;
- ``uvlab info`` on an MS with a pending journal warns on one line, reads, and
  changes nothing; ``uvlab repair --dry-run`` lists the plan entry by entry.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.ms_factory import tree_digest
from tests.support.paths import REPO, TEST_DATA
from uvlab.app.ms.journal import Journal
from uvlab.app.ms.journal_check import JournalRefused
from uvlab.app.ms.journal_folder import JOURNAL
from uvlab.app.ms.journal_recovery import recover

DATA = TEST_DATA / "paper_xy.ms"


def _writer(ms, column, overwrite, value, fault):
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    env["UVLAB_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "tests.app.ms.fault_writer", str(ms), column, overwrite, value],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _uvlab(*args):
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    return subprocess.run(
        [sys.executable, "-m", "uvlab.app", *map(str, args)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # sha256 of b""


def _unchanged_but_lock(before: dict, after: dict) -> bool:
    """The same files, but for uvlab's empty lock file (taken before the journal is read)."""
    return after.pop("UVLAB_LOCK", EMPTY) == EMPTY and after == before


@pytest.fixture
def pending(tmp_path) -> Path:
    """An MS with a valid pending journal (phase writing, nothing changed yet)."""
    ms = tmp_path / "p.ms"
    shutil.copytree(DATA, ms)
    journal = Journal.begin(ms, "DATA", "DATA")
    journal.release()  # as if the process had died here
    return ms


def _state(ms: Path) -> dict:
    return json.loads((ms / JOURNAL / "state.json").read_text())


def _put_state(ms: Path, state) -> None:
    text = state if isinstance(state, str) else json.dumps(state)
    (ms / JOURNAL / "state.json").write_text(text)


def _only_table_files(s):
    entries = s["snap0"]["entries"]
    s["snap0"]["entries"] = {k: entries[k] for k in ("table.dat", "table.info")}


def _set(key, value):
    def edit(s):
        s[key] = value

    return edit


def _entry(name):
    def edit(s):
        s["snap0"]["entries"][name] = dict(s["snap0"]["entries"]["table.info"])

    return edit


CRAFTED = {
    "no state.json": ("missing", "has no state.json"),
    "truncated": ("truncate", "unreadable"),
    "not JSON": ("{not json", "unreadable"),
    "a list": ("[1, 2]", "not a record"),
    "version 1": (_set("version", 1), "version 1"),
    "unknown phase": (_set("phase", "done"), "phase"),
    "foreign column": (_set("adds", ["DATA", "../x"]), "not a plain column name"),
    "'..' in the manifest": (_entry(".."), "not a plain entry"),
    "a path in the manifest": (_entry("ANTENNA/table.dat"), "not a plain entry"),
    "an absolute path": (_entry("/etc/passwd"), "not a plain entry"),
    "NUL in a name": (_entry("table.f1\0x"), "not a plain entry"),
    "'..' as a created file": (_set("created", ["../outside"]), "outside the table folder"),
    "another table's identity": (_set("table", {"dev": 1, "ino": 2}), "another table"),
    "only table.dat and table.info": (_only_table_files, "not in the journal's record"),
    "a recorded file the snapshot lacks": (_entry("table.f77"), "snapshot lacks table.f77"),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_a_crafted_journal_changes_nothing(pending, case):
    edit, reason = CRAFTED[case]
    if edit == "missing":
        (pending / JOURNAL / "state.json").unlink()
    elif edit == "truncate":
        text = (pending / JOURNAL / "state.json").read_text()
        _put_state(pending, text[: len(text) // 2])
    elif isinstance(edit, str):
        _put_state(pending, edit)
    else:
        state = _state(pending)
        edit(state)
        _put_state(pending, state)
    before = tree_digest(pending)
    with pytest.raises(JournalRefused) as err:
        recover(pending)
    text = str(err.value)
    assert "\n" not in text and reason in text, text
    assert "cannot be undone safely" in text and "nothing was changed" in text
    assert tree_digest(pending) == before


def test_a_valid_pending_journal_rolls_back(pending):
    """The baseline of the crafted cases: the unmodified journal is followed."""
    before = {k: v for k, v in tree_digest(pending).items() if not k.startswith("UVLAB_")}
    assert recover(pending).action == "rolled back"
    after = {k: v for k, v in tree_digest(pending).items() if k != "UVLAB_LOCK"}
    assert after == before


def test_a_journal_copied_from_another_ms_changes_nothing(pending, tmp_path):
    other = tmp_path / "other.ms"
    shutil.copytree(DATA, other)
    shutil.copytree(pending / JOURNAL, other / JOURNAL)
    before = tree_digest(other)
    r = _uvlab("repair", other)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"uvlab repair: error: {other}: the interrupted uvlab write of DATA")
    assert "belongs to another table" in r.stderr
    assert f"delete the folder {other / JOURNAL}" in r.stderr
    assert _unchanged_but_lock(before, tree_digest(other))


def test_a_journal_that_is_a_file_is_left_alone(tmp_path):
    ms = tmp_path / "f.ms"
    shutil.copytree(DATA, ms)
    (ms / JOURNAL).write_text("not a journal")
    before = tree_digest(ms)
    assert recover(ms) is None
    assert _unchanged_but_lock(before, tree_digest(ms))


# ----------------------------------------------------- edits after a killed write
def _killed(tmp_path, step: str, column="DATA", overwrite="1") -> Path:
    ms = tmp_path / "k.ms"
    shutil.copytree(DATA, ms)
    r = _writer(ms, column, overwrite, "7+1j", f"{step}:SIGKILL")
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert (ms / JOURNAL).is_dir()
    return ms


def _flip_flags(ms: Path) -> np.ndarray:
    from casacore import tables

    t = tables.table(str(ms), readonly=False, ack=False)
    try:
        flags = ~t.getcol("FLAG")
        t.putcol("FLAG", flags)
    finally:
        t.close()
    return flags


def _add_corrected(ms: Path) -> None:
    from casacore import tables

    from uvlab.app.ms.column_writer import column_desc_like

    t = tables.table(str(ms), readonly=False, ack=False)
    try:
        desc, dminfo = column_desc_like(t, "CORRECTED_DATA", "DATA")
        t.addcols(tables.maketabdesc(desc), dminfo)
        t.putcol("CORRECTED_DATA", np.full(t.getcol("DATA").shape, 3 + 0j, np.complex64))
    finally:
        t.close()


def _read(ms: Path, column: str):
    from casacore import tables

    t = tables.table(str(ms), ack=False)
    try:
        return t.getcol(column) if column in t.colnames() else None
    finally:
        t.close()


@pytest.mark.parametrize("step", ["filled", "renamed-old", "committed"])
def test_a_casacore_edit_after_a_killed_write_is_kept(tmp_path, step):
    ms = _killed(tmp_path, step)
    flags = _flip_flags(ms)
    before = tree_digest(ms)
    r = _uvlab("repair", ms)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "cannot be undone safely" in r.stderr and "nothing was changed" in r.stderr
    assert "was changed since" in r.stderr or "differs" in r.stderr or "not as" in r.stderr
    assert tree_digest(ms) == before
    np.testing.assert_array_equal(_read(ms, "FLAG"), flags)


@pytest.mark.parametrize("step", ["flushed", "switch-flushed"])
def test_a_column_added_by_another_tool_is_kept(tmp_path, step):
    ms = _killed(tmp_path, step, "MODEL_DATA", "0")
    _add_corrected(ms)
    before = tree_digest(ms)
    r = _uvlab("repair", ms)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "column CORRECTED_DATA was added since" in r.stderr
    assert tree_digest(ms) == before
    np.testing.assert_array_equal(_read(ms, "CORRECTED_DATA"), 3 + 0j)


# ------------------------------------------------------- readers and dry runs
def test_info_reports_a_pending_write_and_changes_nothing(tmp_path):
    ms = _killed(tmp_path, "renamed-old")
    before = tree_digest(ms)
    r = _uvlab("info", ms)
    assert r.returncode == 0, r.stderr
    assert r.stderr == (  # one warning line, as every command's warnings (app/runtime/logs)
        f"uvlab info: warning: {ms}: an interrupted uvlab write of DATA is pending; run "
        f"`uvlab repair {ms}` (reading the MeasurementSet as it is on disk)\n"
    )
    assert tree_digest(ms) == before


def test_repair_dry_run_lists_the_plan_then_repair_follows_it(tmp_path):
    ms = _killed(tmp_path, "switch-flushed", "MODEL_DATA", "0")
    before = tree_digest(ms)
    r = _uvlab("repair", ms, "--dry-run")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"{ms}: would roll back an interrupted write of column MODEL_DATA:"
    assert f"{ms}:   restore table.dat as it was before the write" in lines
    for name in ("table.f9", "table.f9_TSM1"):
        assert f"{ms}:   remove {name} (created by the interrupted write)" in lines
    assert lines[-1] == f"{ms}:   remove the journal UVLAB_COMMIT"
    assert tree_digest(ms) == before
    r = _uvlab("repair", ms)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        f"{ms}: an interrupted write of column MODEL_DATA was rolled back; "
        "the MeasurementSet is as it was before it\n"
    )
    after = {k: v for k, v in tree_digest(ms).items() if k != "UVLAB_LOCK"}
    assert after == tree_digest(DATA)


def test_casacore_temp_file_of_a_killed_flush_is_removed_a_foreign_file_refused(pending):
    """A kill mid-flush leaves casacore's table.dat_tmp (the writer's); notes.txt is not."""
    (pending / "table.dat_tmp").write_bytes(b"half a table.dat")
    (pending / "notes.txt").write_text("mine")
    before = tree_digest(pending)
    with pytest.raises(JournalRefused, match=r"notes\.txt is not in the journal's record"):
        recover(pending)
    assert tree_digest(pending) == before
    (pending / "notes.txt").unlink()
    assert recover(pending).action == "rolled back"
    assert not (pending / "table.dat_tmp").exists()
