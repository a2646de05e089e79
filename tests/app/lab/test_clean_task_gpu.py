"""The window's CLEAN on a GPU: Cotton–Schwab's major cycles there, as on the CPU.

Oracle: the same task on the CPU (checked against CLEAN's definitions in
tests/app/lab/test_clean_task.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.clean_task import CleanOptions
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest
from uvlab.app.lab.live import iter_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache

pytestmark = pytest.mark.gpu


def _final(device: str):
    imaging = ImagingOptions(npix=64)
    sky = demo_sky_for("teaching", SMALL_OBS, imaging)
    opts = CleanOptions("cotton-schwab", niter=300, gain=0.1, mgain=0.7)
    req = JobRequest("synthetic", imaging, device, SMALL_OBS, sky, task="clean", clean=opts)
    out = [e.output for e in iter_job(req, WorkCache(), None) if isinstance(e, Done)]
    return out[-1]


def test_cotton_schwab_in_the_window_runs_its_major_cycles_on_the_gpu_as_on_the_cpu():
    gpu, cpu = _final("gpu"), _final("cpu")
    assert gpu.cycles >= 2 and cpu.cycles >= 2
    scale = np.abs(cpu.dirty).max()
    np.testing.assert_allclose(gpu.residual, cpu.residual, rtol=0, atol=1e-3 * scale)
    np.testing.assert_allclose(gpu.model.sum(), cpu.model.sum(), rtol=1e-3)
