"""A full disk during a column write: refused or rolled back on one line, never an abort.

casacore aborts the process (``terminate called … AipsError``, exit 134) when
it cannot write ``table.dat`` during a flush. The journal keeps a reserve file
of a few MB that it gives back just before casacore flushes or closes, so the
flush has room even when the disk filled meanwhile. The disk is a small tmpfs
(skipped where it cannot be mounted); another process "fills" it at a chosen
step through ``UVLAB_FAULT=<step>:FILLDISK:<file>``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

from tests.support.ms_factory import tree_digest
from tests.support.paths import REPO, TEST_DATA
from tests.support.small_disk import small_disk

DATA = TEST_DATA / "paper_xy.ms"
NEW = 7 + 1j


def _write(ms, fault: str | None = None):
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    if fault:
        env["UVLAB_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-m", "tests.app.ms.fault_writer", str(ms), "DATA", "1", str(NEW)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _digest(ms) -> dict:
    return {k: v for k, v in tree_digest(ms).items() if k != "UVLAB_LOCK"}


def _data(ms):
    from casacore import tables

    t = tables.table(str(ms), ack=False)
    try:
        return t.getcol("DATA")
    finally:
        t.close()


STEPS = ["rows-written", "filled", "flushed", "switch-flushed", "committed", "old-removed"]


@pytest.mark.parametrize("step", STEPS)
def test_a_disk_filled_during_the_write_never_aborts(tmp_path, step):
    with small_disk(tmp_path / "disk", "24m") as disk:
        ms = disk / "a.ms"
        shutil.copytree(DATA, ms)
        before = _digest(ms)
        r = _write(ms, fault=f"{step}:FILLDISK:{disk / 'hog'}")
        assert (disk / "hog").stat().st_size > 0  # the disk was filled
        assert r.returncode in (0, 1) and r.returncode != 128 + signal.SIGABRT, r.stderr
        assert [n for n in os.listdir(ms) if n.startswith(("UVLAB_", ".uvlab"))] == ["UVLAB_LOCK"]
        if r.returncode == 1:
            assert r.stderr.count("\n") == 1 and "disk is full" in r.stderr, r.stderr
            assert _digest(ms) == before
        else:
            assert r.stderr == "", r.stderr
            np.testing.assert_array_equal(_data(ms), NEW)


def test_no_room_for_the_journal_is_refused_on_one_line(tmp_path):
    with small_disk(tmp_path / "disk", "8m") as disk:
        ms = disk / "a.ms"
        shutil.copytree(DATA, ms)
        before = _digest(ms)
        free = shutil.disk_usage(disk).free
        with open(disk / "hog", "wb") as f:
            f.write(b"\0" * (free - 2**20))  # 1 MiB left: less than the journal's reserve
        r = _write(ms)
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr == (
            f"fault_writer: error: {ms}: could not write the commit journal (the disk is full); "
            "nothing was changed\n"
        )
        assert _digest(ms) == before
        assert [n for n in os.listdir(ms) if n.startswith(("UVLAB_", ".uvlab"))] == ["UVLAB_LOCK"]
