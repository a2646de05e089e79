"""The lab's jobs reuse the last image's samples, weights, plan and PSF: always the fresh image.

A sequence of changes through one WorkCache, each job against the same request
run with a fresh WorkCache (nothing reused), and the first against the float64
DFT of the engine's own visibilities.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from tests.support.oracles import C_LIGHT, dft_image
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.live import run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.app.skymodel import Component
from uvlab.gpu.aliasing import error_map

IMAGING = ImagingOptions(npix=64)
ADDED = Component("added", "point", 201.42, -42.99, (0.4, 0.0, 0.0, 0.0), 1.4e9, 0.0)


@pytest.fixture(scope="module")
def teaching():
    return demo_sky_for("teaching", SMALL_OBS, IMAGING)


def request(sky, imaging=IMAGING, obs=SMALL_OBS):
    return JobRequest("synthetic", imaging, "cpu", obs, sky, preview=False)


def assert_fresh(out, req):
    fresh = run_job(req, WorkCache())
    scale = np.abs(fresh.dirty).max()
    np.testing.assert_allclose(out.dirty, fresh.dirty, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(out.psf, fresh.psf, rtol=0, atol=1e-12)
    assert out.sum_weights == pytest.approx(fresh.sum_weights, rel=1e-14)


def test_first_image_matches_the_dft_of_its_samples(teaching):
    req = request(teaching)
    out = run_job(req, WorkCache())
    s = read_samples(req, WorkCache())
    u = (s.uvw[:, 0, None] * s.freq_hz / C_LIGHT).ravel()
    v = (s.uvw[:, 1, None] * s.freq_hz / C_LIGHT).ravel()
    ref = dft_image(u, v, s.vis.ravel(), out.spec) / u.size
    assert error_map(out.dirty, ref)[1]["rms_central"] < 1e-5  # conv at ε = 1e-5
    psf = dft_image(u, v, np.ones(u.size), out.spec) / u.size
    assert error_map(out.psf, psf)[1]["rms_central"] < 1e-5


def test_each_change_gives_the_fresh_image(teaching):
    cache = WorkCache()
    briggs = replace(IMAGING, weighting="briggs", robust=0.5)
    other_dec = replace(SMALL_OBS, dec_deg=-30.0)
    steps = [
        ("first", request(teaching)),
        ("weighting", request(teaching, briggs)),
        ("sky edit", request(teaching.with_component(ADDED), briggs)),
        ("sky edit back", request(teaching, briggs)),
        ("cell", request(teaching, replace(briggs, cell_arcsec=40.0))),
        ("npix", request(teaching, replace(briggs, npix=96))),
        ("algorithm", request(teaching, replace(briggs, algorithm="nn"))),
        ("eps", request(teaching, replace(briggs, eps=1e-3))),
        ("declination", request(teaching, briggs, other_dec)),
    ]
    previous = None
    for name, req in steps:
        out = run_job(req, cache)
        assert_fresh(out, req)
        if previous is not None and out.dirty.shape == previous.dirty.shape:
            assert np.abs(out.dirty - previous.dirty).max() > 1e-6, name
        if name.startswith("sky edit"):  # only the visibilities changed: the PSF is reused
            assert cache.last_prediction_kind == "incremental"
            np.testing.assert_array_equal(out.psf, previous.psf)
        previous = out
    assert cache.imaging.hits["psf"] == 2 and cache.imaging.hits["samples"] >= 6


def test_an_ms_after_a_synthetic_observation_is_imaged_from_its_own_samples(teaching, ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    ms_req = JobRequest(
        "ms", ImagingOptions(npix=32), "cpu", ms=MSSelection(str(path), stokes="I"), preview=False
    )
    cache = WorkCache()
    run_job(request(teaching), cache)
    assert_fresh(run_job(ms_req, cache), ms_req)
    one_channel = replace(ms_req, ms=replace(ms_req.ms, channels=(0, 1)))
    assert_fresh(run_job(one_channel, cache), one_channel)
