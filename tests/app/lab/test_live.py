"""The streaming computation (no Qt): against the engine and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import (
    Done,
    ImageOutput,
    JobRequest,
    MSSelection,
    Partial,
    Progress,
)
from uvlab.app.lab.live import iter_job, run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache, model_image
from uvlab.app.lab.sizing import FIRST_CHUNK_WORK, time_chunks
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.sources import SourceArrays


@pytest.fixture(scope="module")
def teaching():
    return demo_sky_for("teaching", SMALL_OBS, ImagingOptions(npix=128))


def test_chunked_stream_matches_engine_and_preview_converges(teaching, engine_image, monkeypatch):
    import uvlab.app.lab.synthetic_preview as synthetic

    monkeypatch.setattr(synthetic, "PREVIEW_INTERVAL_S", 0.0)  # a preview after every chunk
    imaging = ImagingOptions(npix=128)
    req = JobRequest("synthetic", imaging, "cpu", SMALL_OBS, teaching)
    events = list(iter_job(req, WorkCache()))
    assert isinstance(events[-1], Done)
    assert all(isinstance(e, (Progress, Partial)) for e in events[:-1])
    out = events[-1].output
    partials = [e for e in events if isinstance(e, Partial)]
    assert len(partials) >= 10  # one per time chunk
    rows = [p.uv.nrow for p in partials]
    assert rows == sorted(rows) and rows[-1] == out.uv.nrow  # uv tracks grow to the full set
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] <= 1
    ref = engine_image(SMALL_OBS, teaching, out.spec, imaging)
    np.testing.assert_allclose(out.dirty, ref.dirty, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out.psf, ref.psf, rtol=0, atol=1e-12)
    # the natural-weighted preview of all chunks is the final image to its ε = 1e-4
    assert np.abs(partials[-1].dirty - out.dirty).max() < 1e-4 * np.abs(out.dirty).max()


def test_previews_are_rate_limited_but_the_last_chunk_is_shown(teaching, monkeypatch):
    import uvlab.app.lab.synthetic_preview as synthetic

    monkeypatch.setattr(synthetic, "PREVIEW_INTERVAL_S", 3600.0)
    req = JobRequest("synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, teaching)
    events = list(iter_job(req, WorkCache()))
    partials = [e for e in events if isinstance(e, Partial)]
    progress = [e for e in events if isinstance(e, Progress) and e.stage == "predict"]
    assert len(progress) >= 10 and len(partials) == 2  # the first chunk and the last
    assert partials[-1].uv.nrow == events[-1].output.uv.nrow


def test_cache_reuses_prediction_and_imaging_changes_apply(teaching, engine_image):
    cache = WorkCache()
    a = run_job(
        JobRequest("synthetic", ImagingOptions(npix=128), "cpu", SMALL_OBS, teaching), cache
    )
    b = run_job(
        JobRequest(
            "synthetic", ImagingOptions(npix=128, algorithm="nn"), "cpu", SMALL_OBS, teaching
        ),
        cache,
    )
    assert "predict" in a.timing and "uvw" in a.timing
    assert "predict" not in b.timing and "uvw" not in b.timing  # both reused
    ref = engine_image(SMALL_OBS, teaching, b.spec, ImagingOptions(npix=128, algorithm="nn"))
    np.testing.assert_allclose(b.dirty, ref.dirty, rtol=0, atol=1e-12)
    assert np.abs(a.dirty - b.dirty).max() > 1e-3  # nn aliases visibly


def test_cancel_between_chunks_raises(teaching):
    from uvlab.app.runtime.errors import Cancelled

    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 3

    req = JobRequest("synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, teaching)
    with pytest.raises(Cancelled):
        list(iter_job(req, WorkCache(), cancelled))


def test_time_chunks_cover_all_times():
    for ntime, work in ((1, 1e9), (7, 1.0), (36, 10.0), (500, 1e5)):
        chunks = time_chunks(ntime, work)
        covered = np.concatenate([np.arange(s.start, s.stop) for s in chunks])
        np.testing.assert_array_equal(covered, np.arange(ntime))
        assert len(chunks) == min(ntime, max(10, int(np.ceil(ntime * work / 1.5e6))))
        # the first chunk is small: its preview is the first image a change shows
        first = chunks[0].stop - chunks[0].start
        assert first == 1 or first * work <= FIRST_CHUNK_WORK


def test_gpu_time_chunks_are_few_and_bounded():
    from uvlab.app.lab.sizing import GPU_WORK_PER_CHUNK

    assert time_chunks(180, 5 * 2016 * 4, "gpu") == [slice(0, 180)]  # the default scene: one
    for ntime, work in ((1, 1e12), (500, 1e6), (3000, 2e6)):
        chunks = time_chunks(ntime, work, "gpu")
        covered = np.concatenate([np.arange(s.start, s.stop) for s in chunks])
        np.testing.assert_array_equal(covered, np.arange(ntime))
        assert len(chunks) == min(ntime, int(np.ceil(ntime * work / GPU_WORK_PER_CHUNK)))
        sizes = [s.stop - s.start for s in chunks]
        assert max(sizes) - min(sizes) <= 1


def test_model_image_gaussians_equal_the_whole_grid_evaluation():
    """Evaluated near their centre only; oracle: every pixel, written out here."""
    spec = ImageSpec(256, 1e-4)
    cases = [
        (0.0, 0.0, 6e-4, 3e-4, 0.3),
        (-0.0125, 0.011, 9e-4, 5e-4, 1.2),
        (0.0, 0.013, 4e-4, 4e-4, 0.0),
    ]
    for l0, m0, maj, mnr, pa in cases:  # centre, a corner, half past the top edge
        src = SourceArrays(
            lmn=np.array([[l0, m0, 1.0]]),
            stokes=np.array([[3.0, 0, 0, 0]]),
            spectral_index=np.array([0.0]),
            ref_freq=np.array([1e9]),
            shape=np.array([[maj, mnr, pa]]),
        )
        dl = spec.l_axis()[None, :] - l0
        dm = spec.m_axis()[:, None] - m0
        along, across = dl * np.sin(pa) + dm * np.cos(pa), dl * np.cos(pa) - dm * np.sin(pa)
        g = np.exp(-4.0 * np.log(2.0) * ((along / maj) ** 2 + (across / mnr) ** 2))
        np.testing.assert_allclose(
            model_image(src, spec, 1e9), 3.0 * g / g.sum(), rtol=0, atol=1e-15
        )


def test_model_image_points_and_gaussian_flux():
    spec = ImageSpec(64, 1e-4)
    fwhm = 6e-4  # 6 pixels
    src = SourceArrays(
        lmn=np.array([[-3e-4, 2e-4, 1.0], [0.0, 0.0, 1.0]]),
        stokes=np.array([[2.0, 0, 0, 0], [5.0, 0, 0, 0]]),
        spectral_index=np.array([-1.0, 0.0]),
        ref_freq=np.array([1e9, 1e9]),
        shape=np.array([[0, 0, 0], [fwhm, fwhm / 2, np.pi / 2]]),
    )
    point = model_image(src.select([0]), spec, 2e9)
    gauss = model_image(src.select([1]), spec, 2e9)
    np.testing.assert_array_equal(model_image(src, spec, 2e9), point + gauss)
    # point: l = −3 px → column i = 32 + 3; m = +2 px → row j = 34; flux 2·(2)^−1 = 1 Jy
    assert point[34, 35] == pytest.approx(1.0, rel=1e-15) and np.count_nonzero(point) == 1
    # Gaussian: integrated flux 5 Jy; peak per pixel S·cell²/(π/(4 ln 2)·θmaj·θmin)
    assert gauss.sum() == pytest.approx(5.0, rel=1e-12)
    peak = 5.0 * spec.cell_rad**2 / (np.pi / (4 * np.log(2)) * fwhm * fwhm / 2)
    assert gauss[32, 32] == pytest.approx(peak, rel=1e-3) and gauss.max() == gauss[32, 32]
    # PA 90°: major axis along l (east-west), twice as wide as along m
    half_l = np.count_nonzero(gauss[32, :] >= 0.4 * peak)  # ±3 px is exactly half
    half_m = np.count_nonzero(gauss[:, 32] >= 0.4 * peak)
    assert (half_l, half_m) == (7, 3)


def test_imaging_options_validate():
    with pytest.raises(ValueError, match="even"):
        ImagingOptions(npix=127)
    with pytest.raises(ValueError, match="β"):
        ImagingOptions(algorithm="pruned-nn", oversample=5)
    with pytest.raises(ValueError, match="robust"):
        ImagingOptions(weighting="briggs", robust=3.0)
    assert ImagingOptions(algorithm="dft").grid_params() is None
    p = ImagingOptions(kernel_size="support", support=5, oversample=32, sigma=1.5).grid_params()
    assert (p.support, p.oversample, p.sigma, p.exact) == (5, 32, 1.5, False)


def test_ms_job_matches_reader_and_summary_comes_first(ms_copy):
    from uvlab.app.ms import read_visibilities
    from uvlab.gpu.imaging.imager import make_image

    path = ms_copy("lwasv_4ant.ms")
    req = JobRequest(
        "ms", ImagingOptions(npix=64, algorithm="dft"), "cpu", ms=MSSelection(str(path), stokes="I")
    )
    events = list(iter_job(req, WorkCache()))
    first_partial = next(e for e in events if isinstance(e, Partial))
    assert first_partial.info is not None and first_partial.urgent
    out = events[-1].output
    assert isinstance(out, ImageOutput) and out.source == "ms"
    vis = read_visibilities(path, stokes="I")
    ref = make_image(
        vis.uvw, vis.freq_hz, vis.vis, vis.weight, out.spec, flag=vis.flag, algorithm="dft"
    )
    np.testing.assert_allclose(out.dirty, ref.dirty, rtol=0, atol=1e-12)
    assert out.uv.nrow == 6 and out.antennas.enu.shape == (4, 3)


def test_aliasing_task_small(teaching):
    req = JobRequest(
        "synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, teaching, task="aliasing"
    )
    out = run_job(req)
    assert out.error.shape == (64, 64) and out.analytic.shape == (64, 64)
    assert 0 < out.metrics["rms_central"] < 1e-4  # ε = 1e-5 conv against the DFT
    assert out.scan_x.size == 8 and np.all(out.scan_r < 1e-4)


def test_imaging_change_reuses_uv_rows_and_model_image(teaching):
    cache = WorkCache()
    first = run_job(
        JobRequest("synthetic", ImagingOptions(npix=128), "cpu", SMALL_OBS, teaching), cache
    )
    briggs = ImagingOptions(npix=128, weighting="briggs", robust=0.0)
    second = run_job(JobRequest("synthetic", briggs, "cpu", SMALL_OBS, teaching), cache)
    assert second.uv is first.uv and second.model is first.model  # reused, not rebuilt
    fresh = run_job(JobRequest("synthetic", briggs, "cpu", SMALL_OBS, teaching), WorkCache())
    np.testing.assert_array_equal(second.model, fresh.model)
    np.testing.assert_array_equal(second.uv.u_m, fresh.uv.u_m)
    # a different image grid or sky renders the model again
    bigger = run_job(
        JobRequest("synthetic", ImagingOptions(npix=256), "cpu", SMALL_OBS, teaching), cache
    )
    assert bigger.model.shape == (256, 256) and bigger.uv is first.uv
    other_sky = demo_sky_for("point", SMALL_OBS, ImagingOptions(npix=128))
    third = run_job(
        JobRequest("synthetic", ImagingOptions(npix=128), "cpu", SMALL_OBS, other_sky), cache
    )
    assert third.model is not first.model and third.model.sum() != first.model.sum()


def test_a_job_too_large_for_memory_fails_in_one_line_before_simulating(
    teaching, tmp_path, monkeypatch
):
    from dataclasses import replace

    import uvlab.app.observing.observation as observation
    from tests.support.memory import fake_memory
    from uvlab.app.gui.worker import format_error
    from uvlab.app.runtime.memory import InsufficientMemoryError

    cache = WorkCache()
    req = JobRequest("synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, teaching)
    run_job(req, cache)  # a prediction in the cache
    fake_memory(monkeypatch, tmp_path, cgroup_limit=2**30)

    def refuse(spec):
        raise AssertionError("the observation was simulated before the size check")

    monkeypatch.setattr(observation, "simulate_observation", refuse)
    big = replace(SMALL_OBS, nchan=100_000)
    with pytest.raises(InsufficientMemoryError) as exc:
        list(
            iter_job(JobRequest("synthetic", ImagingOptions(npix=64), "cpu", big, teaching), cache)
        )
    msg = format_error(exc.value)  # what the worker reports to the window
    assert "\n" not in msg and msg == str(exc.value)
    assert msg.startswith(
        "this observation (36 integrations × 21 baselines × 100000 channels, 5 sources) and "
        "its 64² image needs about 10.3 GiB (samples 9.0 GiB + visibilities 1.1 GiB + "
    ), msg
    assert msg.endswith(
        "but only 1.0 GiB of memory is available (cgroup limit); use fewer channels or "
        "integrations (a longer integration time), a smaller array or a smaller image"
    )
    assert cache.prediction((SMALL_OBS, teaching, True, "double", "cpu")) is None  # freed
    # With the visibilities cached, only the imaging counts: a 64² image fits, 16384² not.
    run_job(req, cache)
    huge = JobRequest("synthetic", ImagingOptions(npix=16384), "cpu", SMALL_OBS, teaching)
    with pytest.raises(
        InsufficientMemoryError, match=r"and its 16384² image needs about 48\.0 GiB \(grid 32"
    ):
        list(iter_job(huge, cache))
    assert cache.prediction((SMALL_OBS, teaching, True, "double", "cpu")) is not None
    assert run_job(
        JobRequest("synthetic", ImagingOptions(npix=32), "cpu", SMALL_OBS, teaching), cache
    )
