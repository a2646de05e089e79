"""A request may carry its geometry and gridder parameters exactly (``uvlab image``'s)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.live import run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec


def _request(imaging, **kw):
    sky = demo_sky_for("pair", SMALL_OBS, imaging)
    return JobRequest("synthetic", imaging, "cpu", SMALL_OBS, sky, preview=False, threads=0, **kw)


def test_grid_params_are_the_requests_own_when_given():
    imaging = ImagingOptions(npix=64, kernel_size="support", support=5)
    given = GridParams.from_eps(1e-6, support=9, precision="single")
    assert _request(imaging).grid_params() == imaging.grid_params(0)
    assert _request(imaging, params=given).grid_params() == given
    # The compare entries keep their own; the DFT reads none.
    entry = ImagingOptions(npix=64, algorithm="nn")
    assert _request(imaging, params=given).grid_params(entry) == entry.grid_params(0)
    dft = ImagingOptions(npix=64, algorithm="dft")
    assert _request(dft, params=given).grid_params() is None


def test_a_geometry_must_have_the_imagings_size():
    with pytest.raises(ValueError, match="geometry's 32 pixels are not the imaging's 64"):
        _request(ImagingOptions(npix=64), spec=ImageSpec(32, 1e-5))


@pytest.mark.parametrize("source", ["synthetic", "ms"])
def test_the_samples_take_the_requests_geometry(source, ms_copy):
    spec = ImageSpec(64, 2.0 / 64 if source == "ms" else 1.2345e-5)
    imaging = ImagingOptions(npix=64)
    if source == "ms":
        sel = MSSelection(str(ms_copy("lwasv_4ant.ms")))
        request = JobRequest("ms", imaging, "cpu", ms=sel, preview=False, spec=spec)
    else:
        request = _request(imaging, spec=spec)
    assert read_samples(request).spec is spec
    assert run_job(request).spec is spec


def test_single_precision_params_image_complex64_samples():
    from uvlab.gpu.imaging.imager import make_image

    imaging = ImagingOptions(npix=64)  # the prediction in double precision
    params = GridParams.from_eps(1e-6, precision="single", threads=1)  # ducc0, one order of sums
    cache = WorkCache()
    s = read_samples(_request(imaging), cache)
    assert s.vis.dtype == np.complex128
    out = run_job(_request(imaging, params=params), cache)
    kw = dict(flag=s.flag, weighting=imaging.weighting_spec(), params=params, device="cpu")
    kw.update(algorithm=imaging.algorithm)
    want = make_image(s.uvw, s.freq_hz, s.vis.astype(np.complex64), s.weight, s.spec, **kw)
    np.testing.assert_array_equal(out.dirty, want.dirty)
    np.testing.assert_array_equal(out.psf, want.psf)
    unrounded = make_image(s.uvw, s.freq_hz, s.vis, s.weight, s.spec, **kw)
    assert not np.array_equal(out.dirty, unrounded.dirty)


def test_the_default_algorithm_is_the_devices_and_the_result_names_it():
    """ducc on a CPU-only machine (the window's latency), conv with a GPU; the image says which."""
    from tests.support.device import HAS_GPU
    from uvlab.gpu.gridders.registry import default_algorithm

    imaging = ImagingOptions(npix=64)
    assert imaging.algorithm == default_algorithm("gpu" if HAS_GPU else "cpu")
    assert default_algorithm("cpu") == "ducc" and default_algorithm("gpu") == "conv"
    out = run_job(_request(imaging), WorkCache())
    assert out.algorithm == imaging.algorithm
