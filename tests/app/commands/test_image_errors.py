"""``uvlab image`` on bad input: one line naming the problem, exit 1 (2 for usage), inputs
unchanged, nothing written; memory estimates refuse before allocating."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from tests.support.cli import run_cli
from tests.support.ms_factory import tree_digest


def _fails(args, message, *, inputs=()):
    """Run ``uvlab image``; expect exit 1, one line naming the problem, inputs unchanged."""
    before = [tree_digest(p) for p in inputs]
    code, _out, err = run_cli("image", *args)
    assert code == 1, err
    assert err.count("\n") == 1 and message in err, err
    assert [tree_digest(p) for p in inputs] == before
    return err


@pytest.fixture
def ms_copy_of(sims, tmp_path):
    dst = tmp_path / "copy.ms"
    shutil.copytree(sims["linear"], dst)
    return dst


def test_bad_paths(tmp_path, ms_copy_of):
    _fails(["--ms", tmp_path / "nowhere.ms", "--out", tmp_path / "x"], "no such file or folder")
    (tmp_path / "plain").mkdir()
    _fails(["--ms", tmp_path / "plain", "--out", tmp_path / "x"], "not a MeasurementSet")
    (ms_copy_of / "table.f0").unlink()
    err = _fails(
        ["--ms", ms_copy_of, "--out", tmp_path / "x"],
        "table file table.f0 is missing",
        inputs=[ms_copy_of],
    )
    assert str(ms_copy_of) in err
    assert not list(tmp_path.glob("x*"))


@pytest.mark.parametrize(
    "extra, message",
    [
        (("--field", "3"), "no field 3; it has 1 field: 0 'uvlab'"),
        (("--column", "MODEL_DATA"), "no MODEL_DATA column"),
        (("--channels", "5:9"), "is empty; spectral window 0 has 2 channels"),
        (("--npix", "200000"), "a 200000² image of"),
    ],
)
def test_bad_selections(tmp_path, ms_copy_of, extra, message):
    err = _fails(
        ["--ms", ms_copy_of, *extra, "--out", tmp_path / "x"], message, inputs=[ms_copy_of]
    )
    if "200000" in extra:
        assert re.search(r"needs about [0-9.]+ TiB \(grid ", err) and "memory is available" in err
    assert not list(tmp_path.glob("x*"))


def test_everything_flagged(tmp_path):
    from uvlab.app.ms.writer import write_ms
    from uvlab.app.observing.observation import ObservationSpec, simulate_observation

    obs = simulate_observation(
        ObservationSpec("atca.6a", 80.0, -60.0, ha_start_h=-1, ha_stop_h=1, int_s=1200.0)
    )
    path = write_ms(
        tmp_path / "f.ms",
        obs,
        np.ones((obs.ntime, obs.nbl, 1)),
        flag=np.ones((obs.ntime, obs.nbl), dtype=bool),
    )
    _fails(
        ["--ms", path, "--out", tmp_path / "x"],
        "every visibility selected is flagged",
        inputs=[path],
    )


def test_memory_estimates_refuse_before_allocating():
    from uvlab.app.runtime.memory import (
        InsufficientMemoryError,
        check_memory,
        format_bytes,
        imaging_estimate,
    )
    from uvlab.app.runtime.memory_limits import available_bytes

    assert format_bytes(1536) == "1.5 KiB" and format_bytes(3 * 2**40) == "3.0 TiB"
    assert available_bytes() > 0
    # conv at σ = 2: a half-plane grid of 2N × (N + 1) cells, 64 bytes each.
    est = imaging_estimate(1024, "conv")
    assert est.parts["grid"] == 64.0 * 2048 * 1025
    check_memory(est, "a 1024² image", available=2**40)
    with pytest.raises(InsufficientMemoryError, match=r"image needs about .* only 128.0 MiB"):
        check_memory(est, "a 1024² image", available=2**27)


@pytest.mark.parametrize("npix", ["7", "0"])
def test_odd_npix_is_a_usage_error(tmp_path, ms_copy_of, npix):
    code, _out, err = run_cli("image", "--ms", ms_copy_of, "--npix", npix, "--out", tmp_path / "x")
    assert code == 2 and f"--npix: '{npix}': expected an even number of pixels ≥ 2" in err
    assert err.count("\n") == 1 and "uvlab image --help" in err and not list(tmp_path.glob("x*"))
