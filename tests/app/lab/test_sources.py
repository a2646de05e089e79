"""The lab's sources run to the end for the commands (read_samples)."""

from __future__ import annotations

import numpy as np

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.sources import read_samples


def test_an_ms_selection_with_channels_reads_as_the_reader_does(ms_copy):
    from uvlab.app.ms import read_visibilities

    path = ms_copy("lwasv_4ant.ms")
    sel = MSSelection(str(path), stokes="I", channels=(0, 1))
    request = JobRequest("ms", ImagingOptions(npix=32), "cpu", ms=sel, preview=False, threads=0)
    seen = []
    samples = read_samples(request, progress=lambda f, stage: seen.append(f))
    direct = read_visibilities(path, stokes="I", channels=(0, 1))
    assert samples.vis.shape[1] == 1 and samples.raw.nchan == 1
    np.testing.assert_array_equal(samples.vis, direct.vis)
    np.testing.assert_array_equal(samples.uvw, direct.uvw)
    assert seen and seen == sorted(seen) and seen[-1] == 1.0


def test_a_synthetic_request_gives_its_observation_and_visibilities():
    imaging = ImagingOptions(npix=64)
    sky = demo_sky_for("pair", SMALL_OBS, imaging)
    request = JobRequest("synthetic", imaging, "cpu", SMALL_OBS, sky, preview=False, threads=0)
    samples = read_samples(request)
    obs = samples.raw
    assert samples.vis.shape == (obs.ntime * obs.nbl, obs.freq_hz.size)
    np.testing.assert_array_equal(samples.uvw, obs.uvw.reshape(-1, 3))
    assert samples.vis.dtype == np.complex128 and np.abs(samples.vis).max() > 0
