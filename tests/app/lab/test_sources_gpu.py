"""The lab's synthetic source on the GPU: the prediction stays on the device.

Oracle: the same jobs on the CPU (the CPU prediction itself is checked against
the float64 direct sum in tests/gpu/predict), and a fresh GPU prediction for
a sky edit.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest
from uvlab.app.lab.live import run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.app.skymodel import Component

pytestmark = pytest.mark.gpu


def request(device: str, **kw) -> JobRequest:
    imaging = ImagingOptions(npix=128)
    sky = demo_sky_for("pair", SMALL_OBS, imaging)
    return JobRequest("synthetic", imaging, device, SMALL_OBS, sky, preview=False, **kw)


def test_the_gpu_prediction_stays_on_the_device_and_images_as_the_cpu_does():
    import cupy

    cache = WorkCache()
    gpu = run_job(request("gpu"), cache)
    held = cache.prediction(cache.prediction_key)
    assert isinstance(held, cupy.ndarray)  # no round trip through the host
    cpu = run_job(request("cpu"), WorkCache())
    scale = np.abs(cpu.dirty).max()
    np.testing.assert_allclose(gpu.dirty, cpu.dirty, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(gpu.psf, cpu.psf, rtol=0, atol=1e-5)
    assert gpu.timing["predict"] > 0


def test_a_gpu_sky_edit_updates_the_device_prediction_as_a_fresh_one():
    import cupy

    base = request("gpu")
    centre = base.sky.centre_deg
    extra = Component("x", "point", centre[0] + 0.01, centre[1] + 0.01, (0.3, 0, 0, 0), 1.4e9, 0)
    edited = replace(base, sky=base.sky.with_component(extra))
    cache = WorkCache()
    run_job(base, cache)
    out = run_job(edited, cache)
    assert cache.last_prediction_kind == "incremental"
    held = cache.prediction(cache.prediction_key)
    assert isinstance(held, cupy.ndarray)
    fresh_cache = WorkCache()
    fresh = run_job(edited, fresh_cache)
    ref = cupy.asnumpy(fresh_cache.prediction(fresh_cache.prediction_key))
    np.testing.assert_allclose(cupy.asnumpy(held), ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(out.dirty, fresh.dirty, rtol=0, atol=1e-12)


def test_the_commands_and_comparisons_get_host_visibilities():
    samples = read_samples(request("gpu"))
    assert isinstance(samples.vis, np.ndarray)
    cpu = read_samples(request("cpu"))
    np.testing.assert_allclose(samples.vis, cpu.vis, rtol=0, atol=1e-9 * np.abs(cpu.vis).max())
    out = run_job(request("gpu", task="compare", compare=(ImagingOptions(npix=128),)))
    assert out is not None


def test_beams_gains_and_noise_on_the_gpu_equal_the_cpus():
    """The Instrument tab's corruptions: the GPU prediction (held on the device) as the CPU's."""
    from uvlab.app.instrument.jones import JonesOptions
    from uvlab.app.lab.corruptions import Corruptions

    jones = JonesOptions(primary_beam="airy", gain_amp_rms=0.1, gain_phase_rms_deg=20.0,
                         gain_seed=3)  # fmt: skip
    corrupt = Corruptions(jones=jones, sefd_jy=400.0, noise_seed=7)
    gpu = read_samples(request("gpu", corruptions=corrupt))
    cpu = read_samples(request("cpu", corruptions=corrupt))
    plain = read_samples(request("cpu"))
    scale = np.abs(cpu.vis).max()
    np.testing.assert_allclose(gpu.vis, cpu.vis, rtol=0, atol=1e-9 * scale)
    assert np.abs(cpu.vis - plain.vis).max() > 1e-3 * scale  # the corruptions are in
