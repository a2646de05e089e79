"""Writes to MeasurementSets through the real command line: killed, signalled, out of disk.

- a ~60 MB MeasurementSet written by uvlab, whose DATA ``uvlab predict --column
  DATA --overwrite`` replaces, SIGKILLed at random instants: afterwards it is
  the old or the new table exactly;
- SIGINT / SIGTERM as a cancel (exit 130 / 143, one line, nothing changed);
- a full disk (a small tmpfs; skipped where it cannot be mounted): refused
  before writing, or rolled back when the disk fills up mid-write;
- ``uvlab repair`` and the next run cleaning up after kills.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support.ms_factory import tree_digest as _tree_digest
from tests.support.paths import REPO
from tests.support.small_disk import small_disk

PREDICT = ("--sky", "point", "--device", "cpu", "--no-smearing", "--precision", "single")


def uvlab(*args, fault: str | None = None, env: dict | None = None, wait: bool = True):
    """``uvlab ARGS`` in a subprocess (``UVLAB_FAULT`` set to ``fault``)."""
    full = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    full.update(env or {})
    if fault:
        full["UVLAB_FAULT"] = fault
    cmd = [sys.executable, "-m", "uvlab.app", *map(str, args)]
    if not wait:
        return subprocess.Popen(
            cmd, cwd=REPO, env=full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
    return subprocess.run(cmd, cwd=REPO, env=full, capture_output=True, text=True, timeout=300)


def _stray(folder: Path) -> list[str]:
    """uvlab's leftovers in ``folder``, but its lock file UVLAB_LOCK (kept by design)."""
    names = os.listdir(folder)
    return [n for n in names if n.startswith(("UVLAB_", ".uvlab-")) and n != "UVLAB_LOCK"]


def tree_digest(path: Path) -> dict:
    """:func:`tests.support.ms_factory.tree_digest` without UVLAB_LOCK (an empty lock file)."""
    return {k: v for k, v in _tree_digest(path).items() if k != "UVLAB_LOCK"}


def _write_big_ms(path: Path) -> Path:
    """A VLA-D observation written by uvlab: 14040 rows × 128 channels × 4, ~59 MB."""
    from uvlab.app.ms.writer import write_ms
    from uvlab.app.observing.observation import ObservationSpec, simulate_observation

    spec = ObservationSpec(
        "vla.d", 150.0, 30.0, ha_start_h=-2, ha_stop_h=2, int_s=360.0,
        freq_hz=1.4e9, chan_width_hz=1e6, nchan=128,
    )  # fmt: skip
    obs = simulate_observation(spec)
    rng = np.random.default_rng(5)
    vis = rng.standard_normal((obs.nrow, 128)) + 1j * rng.standard_normal((obs.nrow, 128))
    return write_ms(path, obs, lambda rows: vis[rows])


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """The ~60 MB MS, and its state after an uninterrupted replacement of DATA."""
    base = tmp_path_factory.mktemp("big")
    old = _write_big_ms(base / "old.ms")
    new = base / "new.ms"
    shutil.copytree(old, new)
    t0 = time.perf_counter()
    r = uvlab("predict", "--ms", new, "--column", "DATA", "--overwrite", *PREDICT)
    seconds = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    from casacore import tables

    def data(path):
        t = tables.table(str(path), ack=False)
        try:
            return t.getcol("DATA")
        finally:
            t.close()

    return {
        "old": old,
        "digest": tree_digest(old),
        "new_entries": {p.name for p in new.iterdir()} - {"table.lock", "UVLAB_LOCK"},
        "new_data": data(new),
        "data": data,
        "seconds": seconds,
    }


#: kills of the real command at random instants: two in the default run, eight in the slow
#: one (tests/app/ms/test_commit.py stops a write with SIGKILL at every step of the protocol)
@pytest.mark.parametrize("trials", [2, pytest.param(8, marks=pytest.mark.slow)])
def test_sigkill_at_random_instants_leaves_old_or_new(tmp_path, big, trials):
    assert 55e6 < sum(f.stat().st_size for f in big["old"].rglob("*") if f.is_file()) < 70e6
    rng = np.random.default_rng(20261123)
    outcomes = []
    for trial in range(trials):
        ms = tmp_path / f"t{trial}.ms"
        shutil.copytree(big["old"], ms)
        proc = uvlab("predict", "--ms", ms, "--column", "DATA", "--overwrite", *PREDICT, wait=False)
        time.sleep(rng.uniform(0.5, 1.05) * big["seconds"])
        proc.kill()
        proc.communicate(timeout=60)
        r = uvlab("repair", ms)  # finishes or rolls back
        assert r.returncode == 0, r.stderr
        assert not _stray(ms)
        if tree_digest(ms) == big["digest"]:
            outcomes.append("old")
            continue
        assert {p.name for p in ms.iterdir()} - {"table.lock", "UVLAB_LOCK"} == big["new_entries"]
        np.testing.assert_array_equal(big["data"](ms), big["new_data"])
        outcomes.append("new" if proc.returncode == -signal.SIGKILL else "done")
    print("outcomes:", outcomes)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_during_predict_is_a_cancel(tmp_path, big, sig):
    ms = tmp_path / "x.ms"
    shutil.copytree(big["old"], ms)
    r = uvlab("predict", "--ms", ms, "--column", "DATA", "--overwrite", *PREDICT,
              fault=f"rows-written:{sig}")  # fmt: skip
    assert r.returncode == 128 + getattr(signal, sig)
    assert r.stderr == (
        f"uvlab predict: interrupted ({sig}); the write of DATA was rolled back, "
        "the MeasurementSet is as it was\n"
    )
    assert tree_digest(ms) == big["digest"]


def test_the_next_run_reports_the_rollback_on_one_line(tmp_path, big):
    """Reading commands only report the pending journal (since issue 25); repair rolls back."""
    ms = tmp_path / "x.ms"
    shutil.copytree(big["old"], ms)
    r = uvlab("predict", "--ms", ms, "--column", "DATA", "--overwrite", *PREDICT,
              fault="renamed-old:SIGKILL")  # fmt: skip
    assert r.returncode == -signal.SIGKILL and (ms / "UVLAB_COMMIT").is_dir()
    pending = _tree_digest(ms)
    r = uvlab("info", ms)
    assert r.returncode == 0
    assert r.stderr == (  # one warning line, as every command's warnings (app/runtime/logs)
        f"uvlab info: warning: {ms}: an interrupted uvlab write of DATA is pending; run "
        f"`uvlab repair {ms}` (reading the MeasurementSet as it is on disk)\n"
    )
    assert _tree_digest(ms) == pending
    r = uvlab("repair", ms)
    assert r.returncode == 0
    assert r.stdout == (
        f"{ms}: an interrupted write of column DATA was rolled back; "
        "the MeasurementSet is as it was before it\n"
    )
    assert tree_digest(ms) == big["digest"]


# ------------------------------------------------------------------ simulate
SIM = ("simulate", "--array", "vla.d", "--ra", "150", "--dec", "30", "--nchan", "16",
       "--int-s", "600", "--device", "cpu", "--sky", "point")  # fmt: skip


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_during_simulate_leaves_nothing(tmp_path, sig):
    out = tmp_path / "sim.ms"
    r = uvlab(*SIM, "--out", out, fault=f"ms-rows-written:{sig}")
    assert r.returncode == 128 + getattr(signal, sig), r.stderr
    assert r.stderr.count("\n") == 1 and "interrupted" in r.stderr
    assert os.listdir(tmp_path) == []


def test_a_killed_overwrite_of_an_ms_is_undone_by_the_next_run(tmp_path):
    out = tmp_path / "sim.ms"
    assert uvlab(*SIM, "--out", out).returncode == 0
    before = tree_digest(out)
    r = uvlab(*SIM, "--nchan", "8", "--out", out, "--overwrite", fault="ms-rows-written:SIGKILL")
    assert r.returncode == -signal.SIGKILL
    (build,) = [p for p in tmp_path.iterdir() if p.name.startswith(".sim.ms.uvlab-")]
    # a kill in the instant between the two renames: the old MS parked in the build folder
    os.rename(out, build / "replaced")
    r = uvlab("repair", out, "--dry-run")
    assert r.returncode == 0 and "put back" in r.stdout and not out.exists()
    r = uvlab("repair", out)
    assert r.returncode == 0, r.stderr
    assert "put back" in r.stdout and "removed an unfinished `uvlab simulate` build" in r.stdout
    assert sorted(os.listdir(tmp_path)) == ["sim.ms"] and tree_digest(out) == before


def test_the_next_simulate_removes_a_killed_build(tmp_path):
    out = tmp_path / "sim.ms"
    r = uvlab(*SIM, "--out", out, fault="ms-rows-written:SIGKILL")
    assert r.returncode == -signal.SIGKILL and len(os.listdir(tmp_path)) == 1
    assert uvlab(*SIM, "--out", out).returncode == 0
    assert os.listdir(tmp_path) == ["sim.ms"]


# -------------------------------------------------------------------- repair
def test_repair_removes_what_older_versions_left(tmp_path, ms_copy):
    """An unfinished UVLAB_PARTIAL_ column and a data file no column uses."""
    from casacore import tables

    from uvlab.app.ms.column_writer import column_desc_like

    ms = ms_copy("paper_xy.ms")
    before = tree_digest(ms)
    t = tables.table(str(ms), readonly=False, ack=False)
    desc, dminfo = column_desc_like(t, "UVLAB_PARTIAL_MODEL_DATA", "DATA")
    t.addcols(tables.maketabdesc(desc), dminfo)
    t.close()
    (ms / "table.f42_TSM0").write_bytes(b"\0" * 4096)
    r = uvlab("repair", ms, "--dry-run")
    assert r.returncode == 0 and "UVLAB_PARTIAL_MODEL_DATA" in r.stdout
    assert "table.f42_TSM0" in r.stdout and (ms / "table.f42_TSM0").exists()
    r = uvlab("repair", ms)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 2 and "table.f42_TSM0 (4.0 KiB)" in r.stdout
    after = tree_digest(ms)  # UVLAB_LOCK left out: the lock file repair took
    assert set(after) == set(before)
    assert {k for k in after if after[k] != before[k]} <= {"table.dat", "table.lock"}
    r = uvlab("repair", ms)
    assert r.stdout == f"{ms}: nothing to repair\n"


# ---------------------------------------------------------------- full disk
def test_predict_on_a_full_disk(tmp_path, big):
    with small_disk(tmp_path / "disk", "80m") as disk:
        ms = disk / "b.ms"
        shutil.copytree(big["old"], ms)
        before = tree_digest(ms)
        args = ("predict", "--ms", ms, *PREDICT)
        r = uvlab(*args)  # the check before writing
        assert r.returncode == 1 and r.stderr.count("\n") == 1
        assert f"{ms}: not enough disk space for column MODEL_DATA: needs about" in r.stderr
        assert tree_digest(ms) == before
        r = uvlab(*args, env={"UVLAB_FAKE_FREE_BYTES": "1e15"})  # fills up mid-write
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert f"{ms}: could not write" in r.stderr and "disk" in r.stderr
        assert tree_digest(ms) == before and not _stray(ms)


def test_simulate_on_a_full_disk(tmp_path):
    with small_disk(tmp_path / "disk", "4m") as disk:
        out = disk / "sim.ms"
        r = uvlab(*SIM, "--nchan", "256", "--out", out, env={"UVLAB_FAKE_FREE_BYTES": "1e15"})
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert f"{out}: could not write the MeasurementSet (the disk is full)" in r.stderr
        assert os.listdir(disk) == []
