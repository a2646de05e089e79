"""An image sky observed by ``uvlab simulate`` (degridded), against the direct sum.

Oracle: ``Σ_pixels model·exp(+2πi(u·l + v·m))`` over the image sky's native
grid, written out here (DESIGN §1), at the uvw the MeasurementSet holds.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.cli import run_cli
from uvlab.app.ms import read_visibilities
from uvlab.app.skymodel.demo_pictures import demo_picture
from uvlab.gpu.constants import C_LIGHT


def direct_sum(model, spec, u, v):
    l, m = spec.l_axis(), spec.m_axis()
    j, i = np.nonzero(model)
    phase = np.outer(u, l[i]) + np.outer(v, m[j])
    return np.exp(2j * np.pi * phase) @ model[j, i]


def test_a_picture_sky_is_predicted_as_the_direct_sum_of_its_pixels(tmp_path):
    out = tmp_path / "ring.ms"
    code, stdout, stderr = run_cli(
        "simulate", "--array", "kat-7", "--ra", "150", "--dec", "-40", "--ha-start", "-1",
        "--ha-stop", "1", "--int-s", "1200", "--nchan", "2", "--chan-width-hz", "5e7",
        "--sky", "point", "--image-sky", "ring", "--image-sky-width-arcmin", "6",
        "--image-sky-flux-jy", "2", "--no-smearing", "--out", out,
    )  # fmt: skip
    assert code == 0, stderr
    assert "and the image 'ring'" in stdout
    data = read_visibilities(out, stokes="I")
    sky = demo_picture("ring", width_arcmin=6.0, flux_jy=2.0)
    model, spec = sky.native_grid(150.0, -40.0)
    assert model.sum() == pytest.approx(2.0, rel=1e-3)
    for c, nu in enumerate(data.freq_hz):
        u, v = data.uvw[:, 0] * nu / C_LIGHT, data.uvw[:, 1] * nu / C_LIGHT
        # the point sky ("point": 1 Jy at the phase centre) adds 1 to every visibility
        want = direct_sum(model, spec, u, v) + 1.0
        got = data.vis[:, c]
        assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max()


def test_an_image_too_large_for_its_grid_is_one_line(tmp_path):
    from uvlab.app.skymodel import SkyModelError

    sky = demo_picture("spiral", npix=64)
    with pytest.raises(SkyModelError, match="model grid"):
        sky.native_grid(0.0, 0.0, max_npix=32)


@pytest.mark.gpu
def test_the_gpu_degrids_an_image_sky_as_the_cpu_does():
    from uvlab.app.observing.observation import ObservationSpec, simulate_observation
    from uvlab.app.observing.predict_obs import predict_image_integrations

    obs = simulate_observation(
        ObservationSpec("kat-7", 150.0, -40.0, ha_start_h=-1, ha_stop_h=1, int_s=600.0, nchan=2)
    )
    model, spec = demo_picture("spiral", width_arcmin=5.0, npix=96).native_grid(150.0, -40.0)
    times = slice(0, obs.ntime)
    cpu = predict_image_integrations(obs, model, spec, times, device="cpu")
    gpu = predict_image_integrations(obs, model, spec, times, device="gpu")
    assert np.abs(gpu - cpu).max() <= 1e-6 * np.abs(cpu).max()


def test_uvlab_predict_writes_an_image_sky_given_as_sky(tmp_path):
    """``uvlab predict --sky picture:ring`` (no components): MODEL_DATA is the direct sum."""
    from casacore.tables import table

    out = tmp_path / "k7.ms"
    code, _, stderr = run_cli(
        "simulate", "--array", "kat-7", "--ra", "150", "--dec", "-40", "--ha-start", "-1",
        "--ha-stop", "1", "--int-s", "1200", "--nchan", "2", "--chan-width-hz", "5e7",
        "--sky", "point", "--no-smearing", "--out", out,
    )  # fmt: skip
    assert code == 0, stderr
    code, stdout, stderr = run_cli(
        "predict", "--ms", out, "--sky", "picture:ring", "--image-sky-width-arcmin", "6",
        "--image-sky-flux-jy", "2", "--no-smearing", "--device", "cpu",
    )  # fmt: skip
    assert code == 0, stderr
    assert "0 sources and the image 'ring'" in stdout
    data = read_visibilities(out, stokes="I")
    with table(str(out), ack=False) as t:
        model_xx = t.getcol("MODEL_DATA")[:, :, 0]  # XX = I for an unpolarised sky
    model, spec = demo_picture("ring", width_arcmin=6.0, flux_jy=2.0).native_grid(150.0, -40.0)
    for c, nu in enumerate(data.freq_hz):
        u, v = data.uvw[:, 0] * nu / C_LIGHT, data.uvw[:, 1] * nu / C_LIGHT
        want = direct_sum(model, spec, u, v)
        assert np.abs(model_xx[:, c] - want).max() <= 1e-6 * np.abs(want).max()
    code, _, stderr = run_cli(
        "predict", "--ms", out, "--sky", "picture:ring", "--image-sky", "spiral",
        "--image-sky-width-arcmin", "6", "--column", "OTHER",
    )  # fmt: skip
    assert code != 0 and "one image sky" in stderr and "\n" not in stderr.strip()
    with table(str(out), ack=False) as t:
        assert "OTHER" not in t.colnames()
