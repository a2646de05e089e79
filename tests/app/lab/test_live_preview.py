"""The quick preview of an imaging-only change on the CPU (uvlab.app.lab.live.quick_preview).

Oracle: the float64 DFT of the same subset of rows (every k-th), natural weights.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from tests.support.oracles import C_LIGHT, dft_image
from uvlab.app.lab import live
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest, Partial
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.gpu.aliasing import error_map

IMAGING = ImagingOptions(npix=64)


@pytest.fixture
def small_previews(monkeypatch):
    """The small observation's few thousand visibilities count as "enough to wait for"."""
    monkeypatch.setattr(live, "PREVIEW_VIS", 300.0)


def request(imaging=IMAGING, preview=True):
    sky = demo_sky_for("teaching", SMALL_OBS, IMAGING)
    return JobRequest("synthetic", imaging, "cpu", SMALL_OBS, sky, preview=preview)


def image_partials(req, cache):
    events = list(live.iter_job(req, cache))
    assert isinstance(events[-1], Done)
    return [e for e in events if isinstance(e, Partial) and e.dirty is not None], events[-1]


def test_imaging_only_change_shows_the_subset_image_first(small_previews):
    cache = WorkCache()
    image_partials(request(), cache)  # predicts (with its own chunk previews)
    changed = request(replace(IMAGING, cell_arcsec=50.0))
    previews, done = image_partials(changed, cache)
    assert cache.last_prediction_kind == "cached"
    assert [p.stage for p in previews] == ["imaging"]  # one, before the full image
    s = read_samples(changed, WorkCache())
    nrow, nchan = s.vis.shape
    step = int(np.ceil(nrow * nchan / live.PREVIEW_VIS))
    assert step > 1
    keep = ~s.flag[::step, 0]
    uvw, vis = s.uvw[::step][keep], s.vis[::step][keep]
    u = (uvw[:, 0, None] * s.freq_hz / C_LIGHT).ravel()
    v = (uvw[:, 1, None] * s.freq_hz / C_LIGHT).ravel()
    ref = dft_image(u, v, vis.ravel(), previews[0].spec) / u.size
    assert error_map(previews[0].dirty, ref)[1]["rms_central"] < 1e-3  # conv at ε = 1e-3
    # a preview, not the answer: the full image differs (all rows), and is what Done carries
    assert not np.allclose(previews[0].dirty, done.output.dirty, atol=1e-3)


def test_no_quick_preview_after_chunk_previews_or_when_previews_are_off(small_previews):
    cache = WorkCache()
    previews, _ = image_partials(request(), cache)
    assert previews and all(p.stage == "predict" for p in previews)  # the prediction's own
    off = request(replace(IMAGING, weighting="briggs"), preview=False)
    assert image_partials(off, cache)[0] == []


def test_small_data_gets_no_quick_preview():
    cache = WorkCache()
    image_partials(request(), cache)
    previews, _ = image_partials(request(replace(IMAGING, weighting="uniform")), cache)
    assert previews == []  # a few thousand visibilities: the full image is as quick
