"""An MS the memory cannot hold: the commands' read refuses it before reading, in one line.

The estimate is ``uvlab image``'s (every row at the largest window's channels, the read's
arrays and the imaging), so the check agrees with the command line's; the message names
the command that images an MS of any size in row chunks. Nothing is read: the cache stays
empty and a read with enough memory afterwards works. (The window's jobs stream such an
MS instead: tests/app/lab/test_ms_streamed.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.live import run_job
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.app.runtime import memory
from uvlab.app.runtime.memory_limits import Available

IMAGING = ImagingOptions(npix=64, cell_arcsec=30.0, algorithm="ducc")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("window-memory") / "obs.ms"
    make_ms(path, np.random.default_rng(1), spw_nchan=(4, 6), ntime=4, nant=5)
    return path


def test_an_ms_too_large_is_refused_before_it_is_read(ms, monkeypatch):
    from uvlab.app.ms.summary import open_ms

    info = open_ms(str(ms))
    need = (
        memory.read_estimate(info.nrows, 6)
        + memory.imaging_estimate(64, "ducc", IMAGING.grid_params(), nvis=info.nrows * 6)
    ).total
    avail = int(need / memory.USABLE_FRACTION * 0.99)  # just too little
    monkeypatch.setattr(memory, "available_memory", lambda: Available(avail, "cgroup limit"))
    cache = WorkCache()
    request = JobRequest("ms", IMAGING, "cpu", ms=MSSelection(str(ms)))
    with pytest.raises(memory.InsufficientMemoryError) as err:
        read_samples(request, cache)
    line = str(err.value)
    assert "\n" not in line and f"({info.nrows} rows × 6 channels)" in line
    assert "uvlab image --ms" in line and "--abs-mem" in line
    assert not cache.has_ms_data(request.ms)  # nothing was read
    enough = int(need / memory.USABLE_FRACTION * 1.01)
    monkeypatch.setattr(memory, "available_memory", lambda: Available(enough, "cgroup limit"))
    res = run_job(request, cache)  # the window's job: read whole, as it fits
    assert cache.has_ms_data(request.ms) and np.isfinite(res.dirty).all()
