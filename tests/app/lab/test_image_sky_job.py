"""An image sky in the lab's synthetic source: predicted by degridding, drawn as the model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from tests.support.oracles import image_vis
from uvlab.app.lab.fourier_plane import sky_amplitude
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest
from uvlab.app.lab.live import run_job
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.app.skymodel import SkyModel
from uvlab.app.skymodel.image_sky_files import read_picture


@pytest.fixture
def picture(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(11)
    pixels = (rng.uniform(0, 255, (10, 12)) * (rng.uniform(size=(10, 12)) > 0.6)).astype(np.uint8)
    path = tmp_path / "blob.png"
    Image.fromarray(pixels, mode="L").save(path)
    return read_picture(path, width_arcmin=30.0, flux_jy=2.0)


def test_visibilities_are_the_pictures_dft(picture):
    req = JobRequest(
        "synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, SkyModel(), image_sky=picture
    )
    s = read_samples(req, WorkCache())
    model, grid = picture.native_grid(SMALL_OBS.ra_deg, SMALL_OBS.dec_deg)
    assert model.sum() == pytest.approx(2.0, rel=1e-9)
    lam = s.freq_hz / 299792458.0
    ref = image_vis(model, s.uvw[:, 0, None] * lam, s.uvw[:, 1, None] * lam, grid)
    np.testing.assert_allclose(s.vis, ref, atol=1e-6 * 2.0)


def test_image_job_draws_the_picture_and_its_fourier_amplitude(picture):
    req = JobRequest(
        "synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, SkyModel(), image_sky=picture
    )
    out = run_job(req)
    ra, dec = SMALL_OBS.ra_deg, SMALL_OBS.dec_deg
    expected = picture.on_grid(out.spec, ra, dec)[0]
    np.testing.assert_allclose(out.model, expected, atol=1e-15)
    assert "'blob'" in out.description
    amp, du = sky_amplitude(out.model, out.spec.cell_rad)
    np.testing.assert_allclose(out.model_ft, amp)
    assert du == pytest.approx(1.0 / (out.spec.npix * out.spec.cell_rad))
    assert math.isclose(out.model_ft[32, 32], out.model.sum(), rel_tol=1e-6)  # float32
