"""``uvlab simulate`` on a Dask cluster (app/scale/ms_simulate.py): the one-process MS's
visibilities byte for byte, thermal noise included.

Oracle: the one-process :func:`simulate_ms` (tested against a direct sum and ``uvlab
predict`` elsewhere) with the same seed and chunks; the noise is drawn here in row order
from the one generator, so it must be the same to the bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.cli import run_cli
from uvlab.app.ms.simulate import simulate_ms
from uvlab.app.observing.observation import ObservationSpec
from uvlab.app.scale.ms_simulate import cluster_runner

SPEC = ObservationSpec("atca.6a", 80.0, -60.0, ha_start_h=-1, ha_stop_h=1, int_s=900.0,
                       freq_hz=1.4e9, chan_width_hz=8e6, nchan=3)  # fmt: skip


def _columns(path, *names):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return [t.getcol(n) for n in names]
    finally:
        t.close()


def _sky():
    from uvlab.app.skymodel import load_sky

    return load_sky("point", ra0_deg=80.0, dec0_deg=-60.0)


@pytest.mark.parametrize("rows", [15, 40, None], ids=["one-integration", "uneven", "default"])
def test_the_visibilities_and_noise_are_the_one_process_ones(client, tmp_path, rows):
    from uvlab.app.skymodel.image_sky_files import load_image_sky

    kw = dict(noise_jy=0.3, seed=11, device="cpu", chunk_rows=rows,
              image_sky=load_image_sky("ring", width_arcmin=2.0))  # fmt: skip
    one = simulate_ms(SPEC, _sky(), tmp_path / "one.ms", **kw)
    two = simulate_ms(SPEC, _sky(), tmp_path / "two.ms", runner=cluster_runner(client), **kw)
    assert one.nrows == two.nrows > 15
    got = _columns(tmp_path / "two.ms", "DATA", "UVW", "FLAG", "SIGMA")
    want = _columns(tmp_path / "one.ms", "DATA", "UVW", "FLAG", "SIGMA")
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.tobytes() == w.tobytes()
    assert np.std(want[0].real) > 0.2  # the noise is there


def test_a_chunk_failing_on_a_worker_leaves_no_ms(client, tmp_path):
    """The error of a worker's chunk is raised here; the build folder is removed, the
    chunks still in flight are cancelled."""
    runner = cluster_runner(client)

    def failing(fn, nrow, noise_jy, seed):
        def chunk(rows):
            if rows.start >= 30:
                raise RuntimeError(f"chunk at row {rows.start} failed (simulated)")
            return fn(rows)

        return runner(chunk, nrow, noise_jy, seed)

    failing.close = runner.close
    from uvlab.app.ms.errors import MSError

    with pytest.raises(MSError, match=r"chunk at row 30 failed .*nothing was left behind"):
        simulate_ms(SPEC, _sky(), tmp_path / "bad.ms", noise_jy=0.1, seed=1, device="cpu",
                    chunk_rows=15, runner=failing)  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_the_command_on_a_joined_cluster(client, tmp_path):
    args = ("simulate", "--array", "atca.6a", "--ra", "80", "--dec", "-60", "--ha-start", "-1",
            "--ha-stop", "1", "--int-s", "900", "--nchan", "3", "--sky", "point",
            "--noise-jy", "0.5", "--seed", "3", "--device", "cpu")  # fmt: skip
    assert run_cli(*args, "--out", tmp_path / "one.ms")[0] == 0
    code, out, err = run_cli(*args, "--out", tmp_path / "two.ms", "--scheduler",
                             client.scheduler.address)  # fmt: skip
    assert code == 0, err
    assert "wrote" in out and f"Dask cluster {client.scheduler.address}" in err
    (got,), (want,) = _columns(tmp_path / "two.ms", "DATA"), _columns(tmp_path / "one.ms", "DATA")
    assert got.tobytes() == want.tobytes()


@pytest.mark.slow  # 10 s; the same rollback as a chunk failing on a worker (tested above)
def test_ctrl_c_during_a_distributed_simulate_leaves_nothing(client, tmp_path):
    import os
    import subprocess
    import sys

    from tests.support.paths import REPO

    env = {**os.environ, "UVLAB_FAULT": "ms-rows-written:SIGINT"}
    cmd = [sys.executable, "-m", "uvlab.app", "simulate", "--array", "atca.6a", "--ra", "80",
           "--dec", "-60", "--ha-start", "-1", "--ha-stop", "1", "--int-s", "900", "--nchan",
           "3", "--sky", "point", "--device", "cpu", "--scheduler", client.scheduler.address,
           "--chunk-rows", "15", "--out", str(tmp_path / "sim.ms")]  # fmt: skip
    r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 130, r.stderr
    assert "interrupted (SIGINT)" in r.stderr.splitlines()[-1]
    assert os.listdir(tmp_path) == []
