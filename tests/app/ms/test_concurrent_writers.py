"""Two uvlab writers on one MeasurementSet never lose a completed write (issue 25, U1).

The first writer is frozen with SIGSTOP at each fault step (``UVLAB_FAULT``);
the second is refused at once with the documented one-line message, before it
snapshots anything. The first is then let go (SIGCONT) or killed (SIGKILL),
and the second runs again: it recovers the first's journal under the lock
and writes. Whatever the step, a write that completed (exit 0, or killed after
its commit point) is in the MeasurementSet at the end. A small randomised
test starts two writers together and kills one at a random instant.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

from tests.support.paths import REPO, TEST_DATA
from uvlab.app.ms.ms_lock import BUSY
from uvlab.app.runtime.faults import STEPS

DATA = TEST_DATA / "paper_xy.ms"
FIRST, SECOND = 7 + 1j, 5 - 2j
COMMITTED = set(STEPS[STEPS.index("committed") : STEPS.index("journal-retired") + 1])
WRITE_STEPS = STEPS[: STEPS.index("journal-retired") + 1]


def _writer(ms, column, overwrite, value, fault=None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    if fault:
        env["UVLAB_FAULT"] = fault
    return subprocess.Popen(
        [sys.executable, "-m", "tests.app.ms.fault_writer", str(ms), column, overwrite, str(value)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _wait_stopped(proc: subprocess.Popen) -> None:
    """Block until ``proc`` stops itself (the fault hook's SIGSTOP)."""
    info = os.waitid(os.P_PID, proc.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
    assert info.si_code == os.CLD_STOPPED, proc.communicate()


def _column(ms, name):
    from casacore import tables

    t = tables.table(str(ms), ack=False)
    try:
        return t.getcol(name) if name in t.colnames() else None
    finally:
        t.close()


@pytest.mark.parametrize("step", WRITE_STEPS)
def test_a_second_writer_never_loses_the_first_ones_write(tmp_path, step):
    ms = tmp_path / "x.ms"
    shutil.copytree(DATA, ms)
    old_data = _column(ms, "DATA")
    first = _writer(ms, "DATA", "1", FIRST, fault=f"{step}:SIGSTOP")
    let_go = WRITE_STEPS.index(step) % 2 == 0  # alternate: SIGCONT, SIGKILL
    try:
        _wait_stopped(first)
        second = _writer(ms, "MODEL_DATA", "1", SECOND)
        _, err = second.communicate(timeout=120)
        assert second.returncode == 1 and err.count("\n") == 1, err
        assert err == f"fault_writer: error: {ms}: {BUSY}\n"
        assert not (ms / f"UVLAB_COMMIT.tmp-{second.pid}").exists()  # it snapshotted nothing
    finally:
        os.kill(first.pid, signal.SIGCONT if let_go else signal.SIGKILL)
        _, err1 = first.communicate(timeout=120)
    completed = first.returncode == 0 or (first.returncode == -signal.SIGKILL and step in COMMITTED)
    assert first.returncode == (0 if let_go else -signal.SIGKILL), err1
    second = _writer(ms, "MODEL_DATA", "1", SECOND)  # recovers the first's journal, then writes
    _, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    np.testing.assert_array_equal(_column(ms, "DATA"), FIRST if completed else old_data)
    np.testing.assert_array_equal(_column(ms, "MODEL_DATA"), SECOND)
    assert [n for n in os.listdir(ms) if n.startswith("UVLAB_")] == ["UVLAB_LOCK"]


def test_concurrent_writers_killed_at_random_instants(tmp_path):
    """Two writers started together, one killed at a random instant: no completed write lost."""
    rng = np.random.default_rng(25)
    for trial in range(4):
        ms = tmp_path / f"r{trial}.ms"
        shutil.copytree(DATA, ms)
        old = {c: _column(ms, c) for c in ("DATA", "MODEL_DATA")}
        procs = {
            "DATA": _writer(ms, "DATA", "1", FIRST),
            "MODEL_DATA": _writer(ms, "MODEL_DATA", "1", SECOND),
        }
        victim = list(procs)[trial % 2]
        try:
            procs[victim].wait(timeout=rng.uniform(0.2, 2.5))
        except subprocess.TimeoutExpired:
            procs[victim].kill()
        results = {c: (p.communicate(timeout=120), p.returncode) for c, p in procs.items()}
        from uvlab.app.ms.journal_recovery import recover_if_interrupted

        recover_if_interrupted(ms)  # what `uvlab repair` does
        for column, ((_, err), code) in results.items():
            value = FIRST if column == "DATA" else SECOND
            now = _column(ms, column)
            if code == 0:
                np.testing.assert_array_equal(now, value)  # a completed write is never lost
            elif code == 1:
                assert err.endswith(f"{BUSY}\n"), err
            else:  # killed: the old column or the new one, whole
                assert code == -signal.SIGKILL, err
                new = now is not None and bool(np.all(now == value))  # completed
                ok = new or (
                    np.array_equal(now, old[column]) if old[column] is not None else now is None
                )
                assert ok, column
        assert [n for n in os.listdir(ms) if n.startswith("UVLAB_")] == ["UVLAB_LOCK"]
