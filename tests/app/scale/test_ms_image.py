"""A MeasurementSet imaged in row chunks on a Dask cluster (app/scale/ms_image.py).

Oracle: :func:`make_image` of the whole selection read at once (itself tested against
the DFT and tclean), for one-row, uneven and single-chunk splits; natural, uniform and
Briggs weighting.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.ms.reader import read_visibilities
from uvlab.app.scale.ms_image import MSRead, image_ms, row_chunks
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.weighting import Weighting

SPEC = ImageSpec(32, 2.0e-4)


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("scale") / "obs.ms"
    make_ms(path, np.random.default_rng(11), spw_nchan=(4, 3), ntime=4, nant=5,
            flag_rows=(3, 4, 5))  # fmt: skip
    return MSRead(str(path), spw=0)


def whole(source: MSRead, weighting, **kw):
    vd = read_visibilities(source.path, **source.kwargs())
    return make_image(vd.uvw, vd.freq_hz, vd.vis, vd.weight, SPEC, flag=vd.flag,
                      weighting=weighting, device="cpu", **kw)  # fmt: skip


@pytest.mark.parametrize("rows", [1, 7, 10_000], ids=["one-row", "uneven", "one-chunk"])
@pytest.mark.parametrize(
    "weighting", [Weighting("natural"), Weighting("uniform"), Weighting("briggs", 0.5)],
    ids=lambda w: w.scheme,
)  # fmt: skip
def test_chunks_on_the_cluster_give_the_whole_image(client, ms, rows, weighting):
    want = whole(ms, weighting)
    got = image_ms(client, ms, SPEC, weighting, chunk_rows=rows)
    assert got.chunks == len(row_chunks(ms.count(), rows))
    assert got.nvis == want.nvis and got.sum_weights == pytest.approx(want.sum_weights, 1e-12)
    np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-12 * np.abs(want.dirty).max())
    np.testing.assert_allclose(got.psf, want.psf, atol=1e-12)


def test_other_algorithms_and_selections(client, ms):
    source = MSRead(ms.path, spw=1, stokes="XX", channels=(1, 3))
    wt = Weighting("uniform")
    want = whole(source, wt, algorithm="hybrid")
    got = image_ms(client, source, SPEC, wt, chunk_rows=9, algorithm="hybrid")
    np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-10 * np.abs(want.dirty).max())


def test_separable_gridders_sum_grids_and_the_others_images(client, ms):
    wt = Weighting("uniform")
    for algorithm, summed in (("conv", "grids"), ("pruned-nn", "grids"), ("ducc", "nufft")):
        want = whole(ms, wt, algorithm=algorithm)
        got = image_ms(client, ms, SPEC, wt, chunk_rows=3, algorithm=algorithm)
        assert got.summed == summed
        assert got.nvis == want.nvis
        np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-10 * np.abs(want.dirty).max())
        np.testing.assert_allclose(got.psf, want.psf, atol=1e-10)


def test_windows_grid_into_one_mfs_image(client, ms):
    from uvlab.gpu.imaging.mfs import mfs_image

    windows = [MSRead(ms.path, spw=0), MSRead(ms.path, spw=1)]
    data = [read_visibilities(w.path, **w.kwargs()) for w in windows]
    want = mfs_image(data, SPEC, Weighting("briggs", 0.0), device="cpu")
    got = image_ms(client, windows, SPEC, Weighting("briggs", 0.0), chunk_rows=4)
    assert got.summed == "grids" and got.nvis == want.nvis
    np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-12 * np.abs(want.dirty).max())
    assert got.mean_freq_hz == pytest.approx(want.mean_freq_hz, rel=1e-12)


def test_a_cancel_between_chunks_stops_the_grid_sum(client, ms):
    from uvlab.app.scale.chains import Cancelled

    asked = []
    with pytest.raises(Cancelled, match="cancelled after 1 of"):
        image_ms(client, ms, SPEC, Weighting(), chunk_rows=1,
                 cancelled=lambda: asked.append(1) or True)  # fmt: skip
    assert len(asked) == 1
    # the cluster goes on: the next image is whole
    got = image_ms(client, ms, SPEC, Weighting(), chunk_rows=4)
    want = whole(ms, Weighting())
    np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-12 * np.abs(want.dirty).max())


def test_row_chunks_cover_every_row_once():
    assert row_chunks(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert row_chunks(3, 10) == [(0, 3)]
    assert row_chunks(2, 0) == [(0, 1), (1, 2)]


def test_a_cluster_of_real_dask_scheduler_and_worker_processes(ms, tmp_path):
    """``--scheduler`` joins a cluster started by ``dask scheduler`` / ``dask worker``.

    One worker process (under its nanny): the chunks summed over two worker processes
    are the ``client`` fixture's, a local cluster of processes, in the tests above.
    """
    import subprocess
    import sys

    from uvlab.app.scale.cluster import cluster_client

    dask = [sys.executable, "-c", "from dask.__main__ import main; main()"]
    info = tmp_path / "scheduler.json"
    common = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]
    procs = [
        subprocess.Popen(
            [*dask, "scheduler", "--port", "0", "--scheduler-file", str(info), *common],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        procs.append(subprocess.Popen(
            [*dask, "worker", "--scheduler-file", str(info), "--nworkers", "1", "--nthreads",
             "1", *common], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))  # fmt: skip
        import json
        import time

        deadline = time.monotonic() + 120
        while not (info.exists() and info.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        with cluster_client(address) as c:
            c.wait_for_workers(1, timeout=120)
            wt = Weighting("briggs", -1.0)
            got = image_ms(c, ms, SPEC, wt, chunk_rows=5)
        want = whole(ms, wt)
        np.testing.assert_allclose(got.dirty, want.dirty, atol=1e-12 * np.abs(want.dirty).max())
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=60)
