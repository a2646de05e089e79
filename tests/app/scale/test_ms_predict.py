"""``uvlab predict`` on a Dask cluster (app/scale/ms_predict.py): the one-process column, byte
for byte.

Oracle: the one-process predict (:func:`predict_to_ms`, itself tested against a direct sum,
``uvlab simulate`` and real MSes in tests/app/commands/test_predict.py) with the same
chunks: points, a Gaussian, an image sky and thermal noise, over two fields and two
spectral windows of different widths, for one-row, uneven and the default chunks.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.support.cli import error_line, run_cli
from tests.support.ms_factory import make_ms
from uvlab.app.ms.predict_ms import predict_to_ms
from uvlab.app.scale.ms_predict import cluster_runner

FIELDS = (("F0", 1.0, -0.5), ("F1", 1.002, -0.499))


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    base = tmp_path_factory.mktemp("predict")
    path = base / "obs.ms"
    make_ms(path, np.random.default_rng(3), fields=FIELDS, field_iquv=((1, 0, 0, 0),) * 2,
            spw_nchan=(4, 3), ntime=3, nant=5)  # fmt: skip
    ra, dec = float(np.degrees(FIELDS[0][1])), float(np.degrees(FIELDS[0][2]))
    sky = base / "sky.txt"
    sky.write_text(
        "# uvlab sky model v1\n"
        f"a point {ra + 0.01!r} {dec - 0.005!r} 1.0 0.1 -0.2 0.05 -0.7 1.4e9 0 0 0\n"
        f"g gaussian {ra - 0.02!r} {dec + 0.01!r} 2.0 0 0 0 0 1.4e9 40 20 30\n"
    )
    return path, sky


def _column(path, name):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return [t.getcell(name, r) for r in range(t.nrows())]
    finally:
        t.close()


def _predict(ms, tmp_path, name, client=None, *, image=False, **kw):
    """Predict the test sky into a copy of the MS: here, or on ``client``'s cluster."""
    from uvlab.app.skymodel import load_sky
    from uvlab.app.skymodel.image_sky_files import load_image_sky

    src, sky = ms
    dst = tmp_path / name
    shutil.copytree(src, dst)
    res = predict_to_ms(
        dst, load_sky(sky), column="PRED", device="cpu",
        image_sky=load_image_sky("ring", width_arcmin=2.0) if image else None,
        runner=None if client is None else cluster_runner(client), **kw,
    )  # fmt: skip
    return res, _column(dst, "PRED")


def _assert_byte_equal(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()


@pytest.mark.parametrize("rows", [1, 7, None], ids=["one-row", "uneven", "default"])
def test_the_column_is_the_one_process_column_byte_for_byte(client, ms, tmp_path, rows):
    res, want = _predict(ms, tmp_path, "one.ms", chunk_rows=rows)
    got_res, got = _predict(ms, tmp_path, "dask.ms", client, chunk_rows=rows)
    _assert_byte_equal(got, want)
    assert got_res.nrows == res.nrows == len(want)
    assert np.abs(np.concatenate([w.ravel() for w in want])).max() > 0.5  # something predicted


def test_an_image_sky_and_thermal_noise_too(client, ms, tmp_path):
    """The noise is seeded per chunk by (seed, first row): the same chunks, the same noise."""
    kw = dict(image=True, sefd_jy=400.0, seed=7, chunk_rows=5, dtype=np.float32)
    res, want = _predict(ms, tmp_path, "one.ms", **kw)
    got_res, got = _predict(ms, tmp_path, "dask.ms", client, **kw)
    _assert_byte_equal(got, want)
    assert got_res.noise_sigma_jy == res.noise_sigma_jy > 0


def test_a_failing_chunk_rolls_the_column_back(client, ms, tmp_path):
    """A chunk refused on a worker (a non-finite model) refuses the write: the MS as it was."""
    from tests.support.ms_factory import data_digest
    from uvlab.app.ms.errors import MSError
    from uvlab.app.skymodel import load_sky

    src, sky = ms
    dst = tmp_path / "bad.ms"
    shutil.copytree(src, dst)
    before = data_digest(dst)
    with pytest.raises(MSError, match="rows"):
        predict_to_ms(dst, load_sky(sky), column="PRED", device="cpu", sefd_jy=1e308,
                      chunk_rows=4, runner=cluster_runner(client))  # fmt: skip
    assert data_digest(dst) == before


def test_the_command_on_a_joined_cluster(client, ms, tmp_path):
    """``uvlab predict --scheduler ADDRESS``: the default chunks, so the column of ``uvlab
    predict``. (``--workers`` starts a local cluster: the kill test below runs that.)"""
    src, sky = ms
    one, two = tmp_path / "one.ms", tmp_path / "two.ms"
    shutil.copytree(src, one), shutil.copytree(src, two)
    args = ("--sky", sky, "--column", "PRED", "--device", "cpu")
    assert run_cli("predict", "--ms", one, *args)[0] == 0
    code, out, err = run_cli("predict", "--ms", two, *args, "--scheduler", client.scheduler.address)
    assert code == 0, err
    assert "wrote PRED" in out and f"Dask cluster {client.scheduler.address}, 2 workers" in err
    _assert_byte_equal(_column(two, "PRED"), _column(one, "PRED"))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--workers", "0"), "--workers: expected a whole number ≥ 1, got '0'"),
        (("--abs-mem", "-2"), "--abs-mem: expected a number > 0 GB, got '-2'"),
        (("--chunk-rows", "2.5"), "--chunk-rows"),
    ],
)
def test_bad_cluster_flags_are_usage_errors(ms, tmp_path, flags, message):
    from tests.support.ms_factory import data_digest

    src, sky = ms
    dst = tmp_path / "x.ms"
    shutil.copytree(src, dst)
    before = data_digest(dst)
    code, _, err = run_cli("predict", "--ms", dst, "--sky", sky, "--device", "cpu", *flags)
    assert code == 2 and message in error_line(err)
    assert data_digest(dst) == before


def test_too_little_memory_per_worker_is_refused_before_any_work(ms, tmp_path):
    from tests.support.ms_factory import data_digest

    src, sky = ms
    dst = tmp_path / "x.ms"
    shutil.copytree(src, dst)
    before = data_digest(dst)
    code, _, err = run_cli("predict", "--ms", dst, "--sky", sky, "--column", "PRED",
                           "--device", "cpu", "--workers", "2", "--abs-mem", "0.1")  # fmt: skip
    line = error_line(err)
    assert code == 1 and "per worker" in line and "--abs-mem" in line
    assert data_digest(dst) == before


def _uvlab(*args, fault=None):
    """``uvlab ARGS`` in a subprocess of its own session (``UVLAB_FAULT`` set to ``fault``)."""
    import os
    import subprocess
    import sys

    from tests.support.paths import REPO

    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    if fault:
        env["UVLAB_FAULT"] = fault
    cmd = [sys.executable, "-m", "uvlab.app", *map(str, args)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    out, err = proc.communicate(timeout=300)
    return proc, out, err


def _session_left(sid: int) -> list[int]:
    import os

    import psutil

    left = []
    for p in psutil.process_iter():
        try:
            if os.getsid(p.pid) == sid:
                left.append(p.pid)
        except (ProcessLookupError, psutil.Error):
            pass
    return left


def _wait_gone(sid: int, timeout_s: float = 120.0) -> list[int]:
    """The processes of session ``sid`` still there once they are gone or ``timeout_s`` passed."""
    import time

    end = time.monotonic() + timeout_s
    while (left := _session_left(sid)) and time.monotonic() < end:
        time.sleep(0.2)
    return left


@pytest.mark.parametrize(
    ("fault", "outcome", "cluster"),
    [("rows-written", "old", "local"), ("committed", "new", "joined")],
)
def test_a_killed_distributed_predict_leaves_the_ms_old_or_new(
    client, ms, tmp_path, fault, outcome, cluster
):
    """SIGKILL of the client (``UVLAB_FAULT``: as it writes the first chunk, or just after
    the commit point): ``uvlab repair`` gives the old MS byte for byte, or the one-process
    predict's column; a local cluster's worker processes go with the client."""
    from tests.support.ms_factory import data_digest
    from uvlab.app.skymodel import load_sky

    src, sky = ms
    where = ("--workers", "2") if cluster == "local" else ("--scheduler", client.scheduler.address)
    args = ("--sky", sky, "--column", "DATA", "--overwrite", "--device", "cpu",
            *where, "--chunk-rows", "5")  # fmt: skip
    done = tmp_path / "done.ms"
    shutil.copytree(src, done)
    predict_to_ms(done, load_sky(sky), column="DATA", overwrite=True, device="cpu", chunk_rows=5)
    ms_ = tmp_path / "killed.ms"
    shutil.copytree(src, ms_)
    before = data_digest(ms_)
    proc, _, err = _uvlab("predict", "--ms", ms_, *args, fault=f"{fault}:SIGKILL")
    assert proc.returncode == -9, err
    assert _wait_gone(proc.pid) == []  # no worker outlives the killed client
    assert (ms_ / "UVLAB_COMMIT").is_dir()
    proc, _, err = _uvlab("repair", ms_)
    assert proc.returncode == 0, err
    if outcome == "old":
        assert data_digest(ms_) == before
    else:
        _assert_byte_equal(_column(ms_, "DATA"), _column(done, "DATA"))
        assert not [p.name for p in ms_.iterdir() if p.name.startswith("UVLAB_") and
                    p.name != "UVLAB_LOCK"]  # fmt: skip


def test_ctrl_c_during_a_distributed_predict_leaves_the_ms_as_it_was(client, ms, tmp_path):
    from tests.support.ms_factory import data_digest

    src, sky = ms
    dst = tmp_path / "x.ms"
    shutil.copytree(src, dst)
    before = data_digest(dst)
    proc, _, err = _uvlab("predict", "--ms", dst, "--sky", sky, "--column", "DATA",
                          "--overwrite", "--device", "cpu", "--scheduler",
                          client.scheduler.address, "--chunk-rows", "5",
                          fault="rows-written:SIGINT")  # fmt: skip
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == (
        "uvlab predict: interrupted (SIGINT); the write of DATA was rolled back, "
        "the MeasurementSet is as it was"
    )
    assert data_digest(dst) == before
    assert _wait_gone(proc.pid) == []


@pytest.mark.gpu
def test_gpu_workers_predict_the_one_process_gpu_column(ms, tmp_path):
    """Workers pinned to the GPUs (one each, round-robin) predict on them: the column of the
    one-process GPU predict, to the rounding of the complex64 column."""
    from uvlab.app.scale.cluster import cluster_client, visible_gpus
    from uvlab.app.skymodel import load_sky
    from uvlab.app.skymodel.image_sky_files import load_image_sky

    gpus = visible_gpus()
    if not gpus:
        pytest.skip("needs a GPU")
    src, sky = ms
    cols = {}
    with cluster_client(gpus=gpus, workers=2) as client:
        for name, runner in (("one.ms", None), ("dask.ms", cluster_runner(client))):
            dst = tmp_path / name
            shutil.copytree(src, dst)
            res = predict_to_ms(dst, load_sky(sky), column="PRED", device="gpu", chunk_rows=5,
                                image_sky=load_image_sky("ring", width_arcmin=2.0),
                                runner=runner)  # fmt: skip
            assert res.device == "gpu"
            cols[name] = _column(dst, "PRED")
    for g, w in zip(cols["dask.ms"], cols["one.ms"]):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6 * max(1.0, np.abs(w).max()))


def test_a_refused_predict_starts_no_cluster(ms, tmp_path):
    """The column's checks come first: an existing column without --overwrite is refused
    (exit 1, one line) before any cluster is started or joined."""
    src, sky = ms
    dst = tmp_path / "x.ms"
    shutil.copytree(src, dst)
    code, _, err = run_cli("predict", "--ms", dst, "--sky", sky, "--column", "DATA",
                           "--device", "cpu", "--scheduler", "tcp://127.0.0.1:9")  # fmt: skip
    assert code == 1 and "already exists" in error_line(err) and "--overwrite" in err
