"""The MS commit protocol under fault injection: stopped at every step, by every signal.

A subprocess writes a column (``tests.app.ms.fault_writer``) and is stopped at
step k of :data:`uvlab.app.runtime.faults.STEPS` with SIGKILL, SIGINT or SIGTERM
(``UVLAB_FAULT``). Then ``uvlab repair``'s recovery runs, and the MeasurementSet
must open in casacore and be exactly the old table (every file byte-identical)
or exactly the new one (the column holds the new values, the folder holds the
same files as after an uninterrupted write), with no stray files but uvlab's
lock file ``UVLAB_LOCK``.

SIGINT and SIGTERM before the commit point roll the write back (exit 130 /
143, "…rolled back…"); after it the write completes and the exit is 0 with a
note (since issue 25: before, a signal from ``flushed`` on completed the write
yet exited 130 / 143).
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
from uvlab.app.ms.journal_recovery import recover_if_interrupted
from uvlab.app.ms.ms_lock import LOCK_NAME
from uvlab.app.runtime.faults import STEPS

DATA = TEST_DATA / "paper_xy.ms"
NEW = 7 + 1j
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
    return {p.name for p in Path(path).iterdir()} - {"table.lock", LOCK_NAME}


def _digest(path) -> dict:
    """:func:`tree_digest` without uvlab's lock file (created by the first write, kept)."""
    return {k: v for k, v in tree_digest(path).items() if k != LOCK_NAME}


def _stray(path) -> list[str]:
    return [n for n in os.listdir(path) if n.startswith("UVLAB_") and n != LOCK_NAME]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The MS before, and the entries and columns after an uninterrupted write of each kind."""
    base = tmp_path_factory.mktemp("ref")
    old = base / "old.ms"
    shutil.copytree(DATA, old)
    out = {"old": old, "digest": _digest(old), "entries": _entries(old)}
    for column, overwrite in (("DATA", "1"), ("MODEL_DATA", "0")):
        new = base / f"new-{column}.ms"
        shutil.copytree(old, new)
        r = _run(new, column, overwrite, NEW)
        assert r.returncode == 0, r.stderr
        out[column] = (_entries(new), _column(new, "DATA")[0])
    return out


def _check_after_recovery(ms: Path, reference, column: str, new: bool) -> None:
    recover_if_interrupted(ms)  # what `uvlab repair` (or the next write) does first
    assert not _stray(ms)
    if not new:
        assert _digest(ms) == reference["digest"]
        return
    entries, colnames = reference[column]
    assert _entries(ms) == entries
    names, values = _column(ms, column)
    assert names == colnames or set(names) == set(colnames)
    np.testing.assert_array_equal(values, NEW)
    if column != "DATA":
        np.testing.assert_array_equal(_column(ms, "DATA")[1], _column(reference["old"], "DATA")[1])


#: SIGTERM takes SIGINT's path (:mod:`uvlab.app.runtime.signals`: the same cancel, another exit
#: code): the default run stops with it at one step before the commit point and one
#: after; the tests marked slow (``make test-all``) at every step, as SIGKILL and SIGINT.
SIGTERM_STEPS = ("rows-written", "old-removed")
STOPS = [
    pytest.param(
        step, sig, marks=[pytest.mark.slow] * (sig == "SIGTERM" and step not in SIGTERM_STEPS)
    )
    for step in WRITE_STEPS
    for sig in ("SIGKILL", "SIGINT", "SIGTERM")
]


@pytest.mark.parametrize(("step", "sig"), STOPS)
def test_overwriting_data_stopped_at_every_step(tmp_path, reference, step, sig):
    ms = tmp_path / "x.ms"
    shutil.copytree(reference["old"], ms)
    r = _run(ms, "DATA", "1", NEW, fault=f"{step}:{sig}")
    new = step in COMMITTED
    if sig == "SIGKILL":
        assert r.returncode == -signal.SIGKILL, r.stderr
    elif new:  # after the commit point: completed, exit 0, and the message says so
        assert r.returncode == 0, r.stderr
        assert r.stderr == (
            f"fault_writer: {sig} arrived after the commit point: the write of DATA was completed\n"
        )
    else:
        assert r.returncode == {"SIGINT": 130, "SIGTERM": 143}[sig], r.stderr
        assert r.stderr == (
            f"fault_writer: interrupted ({sig}); the write of DATA was rolled back, "
            "the MeasurementSet is as it was\n"
        )
    if sig != "SIGKILL":  # the in-process rollback already left a clean folder
        assert not _stray(ms)
        assert (_digest(ms) == reference["digest"]) is not new
    _check_after_recovery(ms, reference, "DATA", new)


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


def _stopped(proc: subprocess.Popen) -> None:
    """Wait until ``proc`` has stopped itself (SIGSTOP from the fault hook)."""
    while True:
        try:
            os.waitid(os.P_PID, proc.pid, os.WSTOPPED | os.WNOWAIT)
            return
        except ChildProcessError:  # pragma: no cover - it exited instead
            pytest.fail(f"the writer exited: {proc.communicate()}")
        except InterruptedError:  # pragma: no cover
            continue


def _popen(*args, fault: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    env["UVLAB_FAULT"] = fault
    return subprocess.Popen(
        [sys.executable, "-m", "tests.app.ms.fault_writer", *map(str, args)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_live_writer_is_not_recovered_under_it(tmp_path, reference):
    """A write in progress in another process: recovery, a second write and readers wait."""
    from uvlab.app.ms.errors import MSError
    from uvlab.app.ms.journal import Journal
    from uvlab.app.ms.journal_folder import JOURNAL
    from uvlab.app.ms.journal_recovery import pending_write, recover

    ms = tmp_path / "x.ms"
    shutil.copytree(reference["old"], ms)
    proc = _popen(ms, "DATA", "1", NEW, fault="renamed-old:SIGSTOP")
    try:
        _stopped(proc)
        assert (ms / JOURNAL).is_dir()
        assert pending_write(ms) is None  # a live write is not "pending"
        with pytest.raises(MSError, match="another uvlab process is writing this MeasurementSet"):
            recover(ms)
        with pytest.raises(MSError, match="another uvlab process is writing this MeasurementSet"):
            Journal.begin(ms, "MODEL_DATA", None)
        assert (ms / JOURNAL).is_dir()
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    _check_after_recovery(ms, reference, "DATA", True)
