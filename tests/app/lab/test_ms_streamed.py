"""The window's job for an MS the memory cannot hold: imaged in row chunks (ms_streamed.py).

"Does not fit" is forced as tests/app/lab/test_ms_memory.py forces it (the available
memory the lab's check reads, made small); the chunks are sized from the real memory and
:data:`~uvlab.app.lab.ms_streamed.MIN_CHUNKS`. The jobs join one two-worker local cluster
through ``UVLAB_SCHEDULER`` (as the window joins a named one), so that no test pays for a
cluster's start. Oracle: the same job on the same MS read whole (the window's in-memory
job, itself tested against the DFT, ducc0 and CASA).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.lab import ms_streamed
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest, MSSelection, Partial
from uvlab.app.lab.live import iter_job, run_job
from uvlab.app.lab.samples import WorkCache
from uvlab.app.runtime import memory
from uvlab.app.runtime.errors import Cancelled
from uvlab.app.runtime.memory_limits import Available


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("streamed") / "obs.ms"
    make_ms(path, np.random.default_rng(5), spw_nchan=(5,), ntime=6, nant=6, flag_rows=(3, 40))
    return path


@pytest.fixture(scope="module")
def client():
    from uvlab.app.scale.cluster import SCHEDULER_ENV, cluster_client

    with cluster_client(workers=2) as c, pytest.MonkeyPatch.context() as mp:
        mp.setenv(SCHEDULER_ENV, c.scheduler.address)
        yield c


@pytest.fixture
def too_small(monkeypatch):
    """The lab's memory check sees 1 kB: every MS is streamed."""
    monkeypatch.setattr(memory, "available_memory", lambda: Available(1000, "cgroup limit"))


def nrows(path) -> int:
    """Rows of the default selection (field 0, window 0; the MS's autocorrelations not)."""
    from uvlab.app.ms.reader import count_rows

    return count_rows(str(path))


def events_of(request, cancelled=None):
    """(events, report calls, output) of a job on a fresh cache."""
    events, reports = [], []
    gen = iter_job(request, WorkCache(), cancelled, lambda f, s: reports.append((f, s)))
    for event in gen:
        events.append(event)
    done = [e.output for e in events if isinstance(e, Done)]
    return events, reports, done[0] if done else None


CASES = {
    # an automatic cell: the survey reads every chunk for the longest baseline
    "natural": (ImagingOptions(npix=64, algorithm="ducc"), MSSelection("")),
    # a given cell, a channel range and an interval; conv sums grids on the workers
    "briggs": (
        ImagingOptions(npix=64, cell_arcsec=40.0, algorithm="conv", weighting="briggs", robust=0.5),
        MSSelection("", channels=(1, 4), interval=(1, 5)),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_streamed_images_equal_the_whole_read(case, ms, client, monkeypatch):
    from dataclasses import replace

    imaging, sel = CASES[case]
    request = JobRequest("ms", imaging, "cpu", ms=replace(sel, path=str(ms)))
    want = run_job(request, WorkCache())  # read whole: enough memory
    monkeypatch.setattr(ms_streamed, "UV_ROWS", 20)  # a subsample for the uv view
    monkeypatch.setattr(memory, "available_memory", lambda: Available(1000, "cgroup limit"))
    events, _reports, got = events_of(request)
    warnings = [e.warning for e in events if isinstance(e, Partial) and e.warning]
    assert any("imaged in row chunks on a Dask cluster instead" in w for w in warnings)
    assert got.spec == want.spec and got.nvis == want.nvis
    assert got.sum_weights == pytest.approx(want.sum_weights, rel=1e-12)
    peak = np.abs(want.dirty).max()
    np.testing.assert_allclose(got.dirty, want.dirty, rtol=0, atol=1e-6 * peak)
    np.testing.assert_allclose(got.psf, want.psf, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(got.model, want.model)
    assert "streamed in" in got.description and "subsample" in got.description
    # the uv view's rows: a subsample (at most UV_ROWS) of the whole read's rows
    assert got.uv.of_rows >= want.uv.nrow  # the rows of the selection, flagged ones too
    if sel.interval is None:
        assert got.uv.of_rows == nrows(ms)
    assert 0 < got.uv.nrow <= 20 < want.uv.nrow
    whole = set(zip(want.uv.u_m, want.uv.v_m, want.uv.time, strict=True))
    assert set(zip(got.uv.u_m, got.uv.v_m, got.uv.time, strict=True)) <= whole


def test_progress_comes_per_chunk_and_a_cancel_stops_the_cluster(ms, client, too_small):
    request = JobRequest("ms", ImagingOptions(npix=32, cell_arcsec=40.0), "cpu",
                         ms=MSSelection(str(ms)))  # fmt: skip
    nrow = nrows(ms)
    nchunks = math.ceil(nrow / math.ceil(nrow / ms_streamed.MIN_CHUNKS))
    _events, reports, out = events_of(request)
    grid = [f for f, stage in reports if stage == "read + grid"]
    assert len(grid) == nchunks == int(out.description.split(" chunks")[0].split()[-1])
    assert grid == sorted(grid) and grid[-1] < 1.0
    # cancelled as the third chunk of the imaging ends: no further chunk, no result
    seen = []
    gen = iter_job(request, WorkCache(), lambda: len(seen) >= 3,
                   lambda f, s: seen.append(f) if s == "read + grid" else None)  # fmt: skip
    with pytest.raises(Cancelled):
        for event in gen:
            assert not isinstance(event, Done)
    assert 3 <= len(seen) < nchunks
    # the job's tasks are gone from the cluster: none running, none waiting
    tasks = lambda: client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))  # noqa: E731
    deadline = time.monotonic() + 60  # a bound on the wait, not on the speed
    while tasks() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tasks() == 0


def test_clean_over_the_chunks_equals_the_whole_reads_clean(ms, client, monkeypatch):
    from uvlab.app.lab.clean_task import CleanOptions, CleanState

    im = ImagingOptions(npix=64, cell_arcsec=40.0, algorithm="conv", weighting="briggs")
    opts = CleanOptions(niter=60, gain=0.1, mgain=0.3, deconvolver="cotton-schwab")
    request = JobRequest("ms", im, "cpu", ms=MSSelection(str(ms)), task="clean", clean=opts)
    want = run_job(request, WorkCache())
    monkeypatch.setattr(memory, "available_memory", lambda: Available(1000, "cgroup limit"))
    events, reports, got = events_of(request)
    assert isinstance(got, CleanState) and got.cycles == want.cycles >= 2
    states = [e.clean for e in events if isinstance(e, Partial) and e.clean is not None]
    assert len(states) >= got.cycles  # a state per cycle reached the window
    assert got.iterations == want.iterations and got.stop_reason == want.stop_reason
    peak = np.abs(want.dirty).max()
    for name in ("dirty", "model", "residual", "restored"):
        np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=0,
                                   atol=1e-6 * peak, err_msg=name)  # fmt: skip
    np.testing.assert_allclose(got.psf, want.psf, rtol=0, atol=1e-6)
    assert any(stage == "read + grid" for _f, stage in reports)  # the dirty image's chunks


def test_a_cancel_inside_a_clean_pass_stops_at_that_chunk(ms, client, too_small, monkeypatch):
    from uvlab.app.lab.clean_task import CleanOptions
    from uvlab.app.scale import ms_clean

    entered = []
    real_psf = ms_clean.wide_psf_ms
    monkeypatch.setattr(ms_clean, "wide_psf_ms", lambda job: (entered.append(1), real_psf(job))[1])

    im = ImagingOptions(npix=32, cell_arcsec=40.0, algorithm="conv", weighting="uniform")
    opts = CleanOptions(niter=200, gain=0.1, mgain=0.3, deconvolver="cotton-schwab")
    request = JobRequest("ms", im, "cpu", ms=MSSelection(str(ms)), task="clean", clean=opts)
    nrow = nrows(ms)
    nchunks = math.ceil(nrow / math.ceil(nrow / ms_streamed.MIN_CHUNKS))
    # past the survey's, the density's and the dirty image's chunks (and a few checks
    # between the steps): inside the 2N PSF's pass, ms_clean's
    stop_at = 3 * nchunks + 10
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) >= stop_at

    with pytest.raises(Cancelled):
        for event in iter_job(request, WorkCache(), cancelled):
            assert not isinstance(event, Done)
    assert len(calls) == stop_at  # the first "stop" was the last question asked
    assert entered  # it was asked inside the PSF's pass


def test_workers_that_die_are_one_line_not_a_traceback(ms, client, too_small, monkeypatch):
    """A worker killed past its memory limit (Dask's KilledWorker) reaches the window as one
    line. The death is injected where the chunks are imaged: Dask raises it from there."""
    from distributed import KilledWorker

    from uvlab.app.scale import ms_image

    def dies(*args, **kwargs):
        raise KilledWorker("image-chunk", None, 3)

    monkeypatch.setattr(ms_image, "image_ms", dies)
    request = JobRequest("ms", ImagingOptions(npix=32, cell_arcsec=40.0), "cpu",
                         ms=MSSelection(str(ms)))  # fmt: skip
    with pytest.raises(RuntimeError) as err:
        run_job(request, WorkCache())
    line = str(err.value)
    assert "\n" not in line and line.startswith("obs.ms: the Dask workers")
    assert "--chunk-rows" in line and not isinstance(err.value, MemoryError)


@pytest.mark.parametrize("task", ["aliasing", "compare"])
def test_tasks_that_need_every_sample_are_refused_in_one_line(task, ms, too_small):
    im = ImagingOptions(npix=32, cell_arcsec=40.0)
    extra = {"compare": (im, ImagingOptions(npix=32, cell_arcsec=40.0, algorithm="nn"))}
    request = JobRequest("ms", im, "cpu", ms=MSSelection(str(ms)), task=task,
                         compare=extra.get(task, ()))  # fmt: skip
    with pytest.raises(ValueError) as err:
        run_job(request, WorkCache())
    line = str(err.value)
    assert "\n" not in line and "in memory" in line and "obs.ms" in line
    assert "CLEANs it in row chunks" in line
    assert not isinstance(err.value, MemoryError)


def test_a_joined_clean_of_a_streamed_ms_is_refused_in_one_line(ms, client, too_small):
    from uvlab.app.lab.clean_task import CleanOptions

    im = ImagingOptions(npix=32, cell_arcsec=40.0, algorithm="conv")
    request = JobRequest("ms", im, "cpu", ms=MSSelection(str(ms)), task="clean",
                         clean=CleanOptions(niter=10, channels_out=2))  # fmt: skip
    with pytest.raises(ValueError) as err:
        run_job(request, WorkCache())
    line = str(err.value)
    assert "\n" not in line and line.startswith("channels out > 1: joined-channel CLEAN")
