"""``uvlab simulate --overwrite`` takes the MS write lock of the MS it replaces (issue 25, U1).

A replacement is a write too: while a column write runs in the MS (frozen with the fault
hook's SIGSTOP), ``simulate --overwrite`` of the same path is refused on one line before any
work, and the running write completes into the MS that is still there.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import numpy as np

from tests.support.paths import REPO, TEST_DATA
from uvlab.app.ms.ms_lock import BUSY

DATA = TEST_DATA / "paper_xy.ms"
VALUE = 3 - 4j


def test_a_replacement_waits_for_no_one_and_destroys_no_running_write(tmp_path):
    ms = tmp_path / "x.ms"
    shutil.copytree(DATA, ms)
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.app.ms.fault_writer", str(ms), "MODEL_DATA", "1",
         str(VALUE)],
        cwd=REPO, env={**env, "UVLAB_FAULT": "filled:SIGSTOP"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        info = os.waitid(os.P_PID, writer.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
        assert info.si_code == os.CLD_STOPPED
        sim = subprocess.run(
            [sys.executable, "-m", "uvlab.app", "simulate", "--array", "vla.d", "--ra", "150",
             "--dec", "30", "--int-s", "1200", "--sky", "point", "--device", "cpu",
             "--overwrite", "--out", str(ms)],
            capture_output=True, text=True, env=env, timeout=300,
        )  # fmt: skip
        assert sim.returncode == 1 and sim.stderr.count("\n") == 1, sim.stderr
        assert BUSY in sim.stderr and str(ms) in sim.stderr
    finally:
        os.kill(writer.pid, signal.SIGCONT)
        _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    from casacore import tables

    t = tables.table(str(ms), ack=False)
    try:
        assert t.nrows() > 0 and np.all(t.getcol("MODEL_DATA") == VALUE)
    finally:
        t.close()
