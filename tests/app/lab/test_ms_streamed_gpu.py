"""The window's streamed MS job on GPU workers (app/lab/ms_streamed.py, device "gpu").

A local cluster pinned to the visible GPUs (no ``UVLAB_SCHEDULER``). Oracle: the same
job read whole and imaged on the GPU in one process (itself checked against the CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.live import run_job
from uvlab.app.lab.samples import WorkCache
from uvlab.app.runtime import memory
from uvlab.app.runtime.memory_limits import Available

pytestmark = pytest.mark.gpu


def test_streamed_on_gpu_workers_equals_the_whole_read(tmp_path, monkeypatch):
    from uvlab.app.scale.cluster import SCHEDULER_ENV

    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    path = tmp_path / "obs.ms"
    make_ms(path, np.random.default_rng(7), spw_nchan=(5,), ntime=6, nant=6)
    im = ImagingOptions(npix=64, cell_arcsec=40.0, algorithm="conv", weighting="briggs")
    request = JobRequest("ms", im, "gpu", ms=MSSelection(str(path)))
    want = run_job(request, WorkCache())
    monkeypatch.setattr(memory, "available_memory", lambda: Available(1000, "cgroup limit"))
    got = run_job(request, WorkCache())
    assert "streamed in" in got.description and got.device == "gpu"
    assert got.nvis == want.nvis
    peak = np.abs(want.dirty).max()
    np.testing.assert_allclose(got.dirty, want.dirty, rtol=0, atol=1e-5 * peak)
    np.testing.assert_allclose(got.psf, want.psf, rtol=0, atol=1e-5)
