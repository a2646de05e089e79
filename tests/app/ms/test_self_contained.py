"""A MeasurementSet from ``write_ms`` / ``uvlab simulate`` stands without its lock files.

casacore also keeps row counts in ``table.lock``; an MS whose ``table.dat``
files lack them reads empty once the lock files are gone (issue 25, U5). The
oracles: the counts the simulation implies (7 KAT-7 antennas, one field, one
window) and casacore itself, opening the tables after every ``table.lock`` was
deleted. Also: a cancel inside the table's growth (``addrows`` in pieces) and
while the subtables are open leaves nothing behind, with exit 130 / 143.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.support.cli import run_cli
from tests.support.paths import REPO
from uvlab.app.ms import writer
from uvlab.app.ms.errors import MSError
from uvlab.app.observing.observation import ObservationSpec, simulate_observation
from uvlab.app.runtime.errors import Cancelled

SIM = ("simulate", "--array", "kat-7", "--ra", "45", "--dec", "-50", "--ha-start", "-1",
       "--ha-stop", "1", "--int-s", "600", "--freq-hz", "1.3e9", "--chan-width-hz", "5e6",
       "--nchan", "3", "--device", "cpu", "--sky", "point")  # fmt: skip
NANT, NTIME, NCHAN = 7, 12, 3
NROW = NTIME * NANT * (NANT - 1) // 2


def _drop_locks(ms) -> int:
    locks = list(ms.rglob("table.lock"))
    for lock in locks:
        lock.unlink()
    return len(locks)


def _rows(path) -> int:
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return t.nrows()
    finally:
        t.close()


def test_a_simulated_ms_reads_the_same_without_lock_files(tmp_path):
    ms = tmp_path / "a.ms"
    code, _, err = run_cli(*SIM, "--out", ms)
    assert code == 0, err
    assert _drop_locks(ms) > 0
    code, out, err = run_cli("info", ms, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["antennas"]["count"] == NANT
    assert len(info["fields"]) == 1 and len(info["spectral_windows"]) == 1
    assert info["spectral_windows"][0]["nchan"] == NCHAN
    _drop_locks(ms)  # casacore itself, still without lock files
    expected = {"": NROW, "ANTENNA": NANT, "FEED": NANT, "FIELD": 1, "SPECTRAL_WINDOW": 1,
                "POLARIZATION": 1, "DATA_DESCRIPTION": 1, "OBSERVATION": 1, "SOURCE": 1,
                "STATE": 1, "PROCESSOR": 1, "HISTORY": 1, "POINTING": 0}  # fmt: skip
    found = {}
    for name in expected:
        found[name] = _rows(ms / name if name else ms)
        _drop_locks(ms)
    assert found == expected


@pytest.fixture(scope="module")
def obs():
    spec = ObservationSpec(
        "kat-7", 45.0, -50.0, ha_start_h=-1, ha_stop_h=1, int_s=600.0,
        freq_hz=1.3e9, chan_width_hz=5e6, nchan=2,
    )  # fmt: skip
    return simulate_observation(spec)


def _vis(obs):
    import numpy as np

    return np.ones((obs.ntime, obs.nbl, obs.freq_hz.size), dtype=complex)


def test_a_build_that_needs_its_lock_files_is_refused(tmp_path, obs, monkeypatch):
    # Without the seal the subtables' table.dat files keep 0 rows: the check
    # before the rename must catch it, and nothing is left.
    from uvlab.app.ms import subtables

    monkeypatch.setattr(subtables, "seal", lambda table: None)
    with pytest.raises(MSError, match=r"ANTENNA 0 of 7.*lock files"):
        writer.write_ms(tmp_path / "x.ms", obs, _vis(obs))
    assert os.listdir(tmp_path) == []


def test_rows_are_added_in_pieces_with_a_cancel_check_between(tmp_path, obs, monkeypatch):
    monkeypatch.setattr(writer, "ADD_ROWS", 10)
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 5

    with pytest.raises(Cancelled):
        writer.write_ms(tmp_path / "x.ms", obs, _vis(obs), cancelled=cancelled)
    # one check before the only chunk (252 rows), then one before each piece:
    # the sixth check stops it inside the table's growth
    assert len(calls) == 6 and os.listdir(tmp_path) == []


def _uvlab(*args, fault):
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    env["UVLAB_FAULT"] = fault
    cmd = [sys.executable, "-m", "uvlab.app", *map(str, args)]
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("step", "sig"),
    [("ms-addrows", "SIGTERM"), ("ms-subtables-open", "SIGTERM"), ("ms-addrows", "SIGINT")],
)
def test_a_signal_while_tables_are_open_leaves_nothing(tmp_path, step, sig):
    # The tables are closed before their build folder is removed: exit 130 / 143,
    # not casacore's abort (134), and no MS or build folder left.
    r = _uvlab(*SIM, "--out", tmp_path / "sim.ms", fault=f"{step}:{sig}")
    assert r.returncode == 128 + getattr(signal, sig), r.stderr
    assert r.stderr.count("\n") == 1 and f"interrupted ({sig})" in r.stderr
    assert os.listdir(tmp_path) == []


def test_rows_written_in_pieces_are_the_rows_given(tmp_path, obs, monkeypatch):
    # pieces of 10 rows within chunks of 42 (two integrations): every row lands where it belongs
    import numpy as np
    from casacore import tables

    monkeypatch.setattr(writer, "ADD_ROWS", 10)
    rng = np.random.default_rng(7)
    vis = rng.standard_normal((obs.nrow, 2, 4)) + 1j * rng.standard_normal((obs.nrow, 2, 4))
    path = writer.write_ms(tmp_path / "p.ms", obs, vis, chunk_rows=2 * obs.nbl)
    t = tables.table(str(path), ack=False)
    try:
        np.testing.assert_array_equal(t.getcol("DATA"), vis.astype(np.complex64))
        np.testing.assert_array_equal(t.getcol("UVW"), obs.uvw.reshape(-1, 3))
        assert t.nrows() == obs.nrow
    finally:
        t.close()
