"""The lab's beam, gains and noise: in the prediction, in the cache key, in sessions."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from tests.support.paths import REPO
from uvlab.app.instrument.jones import JonesOptions, ObservationJones
from uvlab.app.lab.corruptions import Corruptions, add_noise, mad_sigma, noise_report
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest
from uvlab.app.lab.live import run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.session import SessionState
from uvlab.app.lab.sources import read_samples
from uvlab.app.observing.observation import simulate_observation
from uvlab.app.observing.predict_obs import predict_integrations
from uvlab.app.skymodel import Component

IMAGING = ImagingOptions(npix=128)
ALL_ON = Corruptions(
    JonesOptions("airy", gain_amp_rms=0.1, gain_phase_rms_deg=20.0, gain_seed=3), 300.0, 7
)
CLICK = Component("click1", "point", 201.45, -42.95, (0.5, 0.0, 0.0, 0.0), 1.4e9, -0.7)


@pytest.fixture(scope="module")
def teaching():
    return demo_sky_for("teaching", SMALL_OBS, IMAGING)


def request(sky, corruptions=None, **changes):
    return JobRequest(
        "synthetic", changes.pop("imaging", IMAGING), "cpu", SMALL_OBS, sky,
        corruptions=corruptions, **changes,
    )  # fmt: skip


def test_beam_and_gains_are_the_direct_prediction_plus_seeded_noise(teaching):
    s = read_samples(request(teaching, ALL_ON), WorkCache())
    obs = simulate_observation(SMALL_OBS)
    src = teaching.sources_for(obs.ra0_rad, obs.dec0_rad)
    jones = ObservationJones(obs, src, ALL_ON.jones, "scalar")
    direct = predict_integrations(obs, src, slice(0, obs.ntime), jones=jones, device="cpu")
    sigma = 300.0 / math.sqrt(2 * SMALL_OBS.chan_width_hz * SMALL_OBS.int_s) / math.sqrt(2)
    noise = np.zeros_like(direct)
    for t in range(obs.ntime):  # the documented seeding: one generator per integration
        rng = np.random.default_rng([7, t])
        noise[t] = sigma * (
            rng.standard_normal(direct.shape[1:]) + 1j * rng.standard_normal(direct.shape[1:])
        )
    np.testing.assert_allclose(s.vis, (direct + noise).reshape(s.vis.shape), atol=1e-9)
    plain = read_samples(request(teaching), WorkCache())
    assert np.abs(s.vis - plain.vis).max() > 0.1  # they change the data
    assert s.description.endswith("; airy beam, gain errors 10 % / 20°, SEFD 300 Jy")
    assert "SEFD" not in plain.description


def test_a_change_re_predicts_and_only_then(teaching):
    cache = WorkCache()
    run_job(request(teaching), cache)
    run_job(request(teaching, Corruptions()), cache)  # all off: the same key, no re-predict
    assert cache.last_prediction_kind == "cached"
    for c in (ALL_ON, replace(ALL_ON, sefd_jy=301.0), replace(ALL_ON, noise_seed=8)):
        run_job(request(teaching, c), cache)
        assert cache.last_prediction_kind == "full"
    run_job(
        request(teaching, replace(ALL_ON, noise_seed=8), imaging=replace(IMAGING, npix=64)), cache
    )
    assert cache.last_prediction_kind == "cached"  # an imaging change keeps the prediction


def test_a_sky_edit_with_beam_gains_and_noise_equals_a_full_prediction(teaching):
    cache = WorkCache()
    run_job(request(teaching, ALL_ON), cache)
    edited = teaching.with_component(CLICK)
    s = read_samples(request(edited, ALL_ON), cache)
    assert cache.last_prediction_kind == "incremental"
    fresh = read_samples(request(edited, ALL_ON), WorkCache())
    np.testing.assert_allclose(s.vis, fresh.vis, atol=1e-12 * np.abs(fresh.vis).max())


def test_noise_is_the_same_however_the_integrations_are_chunked():
    a = np.zeros((6, 3, 2), complex)
    b = np.zeros((6, 3, 2), complex)
    add_noise(a, slice(0, 6), 2.0, 5)
    add_noise(b, slice(0, 1), 2.0, 5)
    add_noise(b, slice(1, 6), 2.0, 5)
    np.testing.assert_array_equal(a, b)


def test_noise_report_on_a_blank_field():
    from uvlab.app.skymodel import SkyModel

    out = run_job(request(SkyModel(), Corruptions(sefd_jy=400.0)), WorkCache())
    sigma = 400.0 / math.sqrt(2 * SMALL_OBS.chan_width_hz * SMALL_OBS.int_s)
    expected = sigma / math.sqrt(2 * out.nvis)  # Stokes I, natural weighting
    assert out.noise.expected_jy == pytest.approx(expected, rel=1e-12)
    assert out.noise.measured_jy == pytest.approx(expected, rel=0.1)
    assert out.noise.measured_jy == mad_sigma(out.dirty)
    assert "natural weighting" in out.noise.describe() and "dominate" not in out.noise.describe()
    assert "radiometer σ/√(2N)" in out.noise.describe()  # the σ of the SEFD's tooltip
    loud = replace(out.noise, measured_jy=2 * expected)  # e.g. a bright source's sidelobes
    assert "sidelobes dominate" in loud.describe()
    assert noise_report(None, SMALL_OBS, IMAGING, out.dirty, out.nvis).expected_jy is None


@pytest.mark.parametrize("weighting", ["uniform", "briggs"])
def test_noise_report_for_other_weightings_is_measured_too(weighting):
    from uvlab.app.skymodel import SkyModel

    im = replace(IMAGING, weighting=weighting, taper_arcsec=60.0)
    out = run_job(request(SkyModel(), Corruptions(sefd_jy=400.0), imaging=im), WorkCache())
    sigma = 400.0 / math.sqrt(2 * SMALL_OBS.chan_width_hz * SMALL_OBS.int_s)
    natural = sigma / math.sqrt(2 * out.nvis)
    assert out.noise.expected_jy > 1.05 * natural  # down-weighting raises it
    assert out.noise.measured_jy == pytest.approx(out.noise.expected_jy, rel=0.1)
    assert f"{weighting}" in out.noise.describe() and "taper 60″" in out.noise.describe()
    assert "radiometer σ·√Σw²/(√2·Σw)" in out.noise.describe()


def test_mad_sigma_of_gaussian_noise():
    x = np.random.default_rng(0).normal(0.0, 3.0, (300, 300))
    assert mad_sigma(x) == pytest.approx(3.0, rel=0.02)


def test_negative_or_non_finite_sefd_is_refused():
    for bad in (-1.0, math.inf, math.nan, "10"):
        with pytest.raises(ValueError, match="SEFD"):
            Corruptions(sefd_jy=bad)


def test_sessions_keep_the_corruptions_and_old_files_still_load(teaching):
    state = SessionState(observation=SMALL_OBS, sky=teaching, corruptions=ALL_ON)
    back = SessionState.from_dict(state.to_dict())
    assert back.corruptions == ALL_ON
    assert back.job_request().corruptions == ALL_ON
    old = state.to_dict()
    del old["corruptions"]
    assert SessionState.from_dict(old).corruptions is None
    newer = {**state.to_dict(), "corruptions": {"jones": {"primary_beam": "airy", "x": 1}}}
    assert SessionState.from_dict(newer).corruptions == Corruptions(JonesOptions("airy"))
    bad = {**state.to_dict(), "corruptions": {"sefd_jy": -3.0}}
    with pytest.raises(ValueError, match="SEFD"):
        SessionState.from_dict(bad)


def test_beam_map_of_a_cube_samples_it(tmp_path):
    from types import SimpleNamespace

    from uvlab.app.instrument.beam_cube import write_beam_cube
    from uvlab.app.lab.corruptions import beam_map

    ax = (-0.02, 0.001, 41)  # l and m from −0.02 to 0.02
    x = ax[0] + ax[1] * np.arange(ax[2])
    plane = 0.5 + 10 * x[None, :] + 5 * x[:, None]  # linear: trilinear sampling is exact
    write_beam_cube(tmp_path / "b.fits", np.stack([plane, plane]), ax, ax, (1.3e9, 2e8, 2))
    src = SimpleNamespace(
        lmn=np.array([[0.01, -0.005, 1.0]]), stokes=np.array([[2.0, 0, 0, 0]]),
        ref_freq=np.array([1.4e9]), spectral_index=np.array([0.0]),
    )  # fmt: skip
    b = beam_map(JonesOptions(str(tmp_path / "b.fits")), [13.5], 1.4e9, 0.01, src)
    n = b.power.shape[0]
    g = (np.arange(n) - n // 2) * b.step_rad
    inside = (np.abs(g) <= 0.02 - 1e-12)[None, :] & (np.abs(g) <= 0.02 - 1e-12)[:, None]
    oracle = (0.5 + 10 * g[None, :] + 5 * g[:, None]) ** 2
    np.testing.assert_allclose(b.power[inside], oracle[inside], rtol=1e-9)
    assert b.step_rad * (n // 2) == pytest.approx(0.02)  # the whole cube
    assert b.gain[0] == pytest.approx((0.5 + 0.1 - 0.025) ** 2) and b.flux_jy[0] == 2.0


def test_lesson_4_scenes_show_what_the_lesson_says():
    from uvlab.app.lab.lessons import LESSONS

    lesson = next(x for x in LESSONS if x.page == "lesson-beams-gains.md")
    flat, beam, gains, blank = (
        run_job(s.state().job_request(preview=False, device="cpu", threads=0))
        for s in lesson.scenes
    )
    cell, n = flat.spec.cell_rad, flat.spec.npix

    def peak(out, arcmin):  # near the source `arcmin` east (l increases to the left)
        i = n // 2 - round(math.radians(arcmin / 60) / cell)
        return out.dirty[n // 2 - 2 : n // 2 + 3, i - 2 : i + 3].max()

    for off, e2 in ((10, 0.747), (20, 0.28)):  # the lesson's |E|² at 10′ and 20′
        assert peak(beam, off) / peak(flat, off) == pytest.approx(e2, abs=0.025)
    np.testing.assert_allclose(beam.beam.gain[:3], [1.0, 0.746, 0.278], atol=2e-3)
    assert peak(gains, 0) / peak(flat, 0) == pytest.approx(
        math.exp(-(math.radians(30) ** 2)), abs=0.03
    )
    assert blank.noise.expected_jy == pytest.approx(27e-6, rel=0.02)
    assert blank.noise.measured_jy == pytest.approx(blank.noise.expected_jy, rel=0.1)
    # step 4's "with the four sources back": their sidelobes, as the line quotes them
    doc = (REPO / "docs" / lesson.page).read_text(encoding="utf-8")
    (quoted,) = re.findall(r"their sidelobes' \(([\d.]+) mJy/beam", doc)
    assert flat.noise.measured_jy == pytest.approx(float(quoted) * 1e-3, rel=0.02)
