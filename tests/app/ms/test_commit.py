"""The MS commit protocol under fault injection: stopped at every step, by every signal.

A subprocess writes a column (``tests.app.ms.fault_writer``) and is stopped at
step k of :data:`uvlab.app.ms.faults.STEPS` with SIGKILL, SIGINT or SIGTERM
(``UVLAB_FAULT``). Then "the next run" recovers, and the MeasurementSet must
open in casacore and be exactly the old table (every file byte-identical) or
exactly the new one (the column holds the new values, the folder holds the
same files as after an uninterrupted write), with no stray files.
"""

from __future__ import annotations

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
from uvlab.app.ms.faults import STEPS
from uvlab.app.ms.journal import recover_if_interrupted

DATA = TEST_DATA / "paper_xy.ms"
NEW = 7 + 1j
#: Steps inside the critical section: SIGINT / SIGTERM there wait for the commit to finish.
CRITICAL = set(STEPS[STEPS.index("flushed") : STEPS.index("journal-retired") + 1])
COMMITTED = set(STEPS[STEPS.index("committed") : STEPS.index("journal-retired") + 1])
WRITE_STEPS = STEPS[: STEPS.index("journal-retired") + 1]


def _run(*args, fault: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("UVLAB_FAULT", None)
    if fault:
        env["UVLAB_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "tests.app.ms.fault_writer", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _column(path, name):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return t.colnames(), (t.getcol(name) if name in t.colnames() else None)
    finally:
        t.close()


def _entries(path) -> set[str]:
    return {p.name for p in Path(path).iterdir()} - {"table.lock"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The MS before, and the entries and columns after an uninterrupted write of each kind."""
    base = tmp_path_factory.mktemp("ref")
    old = base / "old.ms"
    shutil.copytree(DATA, old)
    out = {"old": old, "digest": tree_digest(old), "entries": _entries(old)}
    for column, overwrite in (("DATA", "1"), ("MODEL_DATA", "0")):
        new = base / f"new-{column}.ms"
        shutil.copytree(old, new)
        r = _run(new, column, overwrite, NEW)
        assert r.returncode == 0, r.stderr
        out[column] = (_entries(new), _column(new, "DATA")[0])
    return out


def _expect_new(step: str, sig: str) -> bool:
    return step in COMMITTED or (sig != "SIGKILL" and step in CRITICAL)


def _check_after_recovery(ms: Path, reference, column: str, new: bool) -> None:
    recover_if_interrupted(ms)  # what the next uvlab run does first
    assert not [n for n in os.listdir(ms) if n.startswith("UVLAB_")]
    if not new:
        assert tree_digest(ms) == reference["digest"]
        return
    entries, colnames = reference[column]
    assert _entries(ms) == entries
    names, values = _column(ms, column)
    assert names == colnames or set(names) == set(colnames)
    np.testing.assert_array_equal(values, NEW)
    if column != "DATA":
        np.testing.assert_array_equal(_column(ms, "DATA")[1], _column(reference["old"], "DATA")[1])


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT", "SIGTERM"])
@pytest.mark.parametrize("step", WRITE_STEPS)
def test_overwriting_data_stopped_at_every_step(tmp_path, reference, step, sig):
    ms = tmp_path / "x.ms"
    shutil.copytree(reference["old"], ms)
    r = _run(ms, "DATA", "1", NEW, fault=f"{step}:{sig}")
    expected = {"SIGKILL": -signal.SIGKILL, "SIGINT": 130, "SIGTERM": 143}[sig]
    assert r.returncode == expected, r.stderr
    if sig != "SIGKILL":  # the in-process rollback already left a clean folder
        assert not [n for n in os.listdir(ms) if n.startswith("UVLAB_")]
    _check_after_recovery(ms, reference, "DATA", _expect_new(step, sig))


ADD_STEPS = [s for s in WRITE_STEPS if s not in ("renamed-old", "old-removed")]


@pytest.mark.parametrize("step", ADD_STEPS)
def test_adding_a_column_killed_at_every_step(tmp_path, reference, step):
    ms = tmp_path / "x.ms"
    shutil.copytree(reference["old"], ms)
    r = _run(ms, "MODEL_DATA", "0", NEW, fault=f"{step}:SIGKILL")
    assert r.returncode == -signal.SIGKILL, r.stderr
    _check_after_recovery(ms, reference, "MODEL_DATA", step in COMMITTED)


@pytest.mark.parametrize("first", ["flushed", "switch-flushed", "old-removed"])
def test_recovery_itself_killed_then_run_again(tmp_path, reference, first):
    ms = tmp_path / "x.ms"
    shutil.copytree(reference["old"], ms)
    assert _run(ms, "DATA", "1", NEW, fault=f"{first}:SIGKILL").returncode == -signal.SIGKILL
    r = _run("recover", ms, fault="recovery-restoring:SIGKILL")
    assert r.returncode == -signal.SIGKILL, r.stderr
    _check_after_recovery(ms, reference, "DATA", first in COMMITTED)


def test_a_live_writer_is_not_recovered_under_it(tmp_path, reference):
    """A journal whose lock is held belongs to a running write: readers leave it alone."""
    import fcntl

    from uvlab.app.ms.errors import MSError
    from uvlab.app.ms.journal import JOURNAL, LOCK, Journal, recover

    ms = tmp_path / "x.ms"
    shutil.copytree(reference["old"], ms)
    journal = Journal.begin(ms, "DATA", "DATA")
    try:
        assert recover_if_interrupted(ms) is None and (ms / JOURNAL).is_dir()
        with pytest.raises(MSError, match="another uvlab process is writing"):
            recover(ms)
        with pytest.raises(MSError, match="another uvlab process is writing"):
            Journal.begin(ms, "MODEL_DATA", None)
        fd = os.open(ms / JOURNAL / LOCK, os.O_RDWR)
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(fd)
    finally:
        journal.release()
    assert recover_if_interrupted(ms).action == "rolled back"
    assert tree_digest(ms) == reference["digest"]
