"""The ``clean`` task (no Qt): states per cycle, against CLEAN's definitions written out."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clean_scenes import psf_subtracted
from tests.support.observations import SMALL_OBS
from uvlab.app.lab.clean_task import CleanOptions, CleanState, chunk_size
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest, Partial
from uvlab.app.lab.live import iter_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.runtime.errors import Cancelled

IMAGING = ImagingOptions(npix=64)


@pytest.fixture(scope="module")
def teaching():
    return demo_sky_for("teaching", SMALL_OBS, IMAGING)


def _run(sky, opts, cancelled=None):
    req = JobRequest("synthetic", IMAGING, "cpu", SMALL_OBS, sky, task="clean", clean=opts)
    states, out = [], None
    for event in iter_job(req, WorkCache(), cancelled):
        if isinstance(event, Partial) and event.clean is not None:
            assert event.urgent  # every complete cycle reaches the window
            states.append(event.clean)
        elif isinstance(event, Done):
            out = event.output
    return states, out


def _consistent(state: CleanState) -> None:
    """Model = the components summed; residual = dirty − PSF ⊛ model (Högbom's definition)."""
    n = state.spec.npix
    model = np.zeros(n * n)
    np.add.at(model, state.comp_j * n + state.comp_i, state.comp_flux)
    np.testing.assert_allclose(state.model, model.reshape(n, n), atol=1e-14)
    ref = psf_subtracted(state.dirty, state.psf, state.model)
    np.testing.assert_allclose(state.residual, ref, atol=1e-10)
    assert state.peak.size == state.rms.size == state.iterations + 1
    assert state.peak[-1] == pytest.approx(np.abs(state.residual).max())


def test_hogbom_streams_consistent_states_and_ends_with_the_reason(teaching):
    opts = CleanOptions("hogbom", niter=200, gain=0.1, mgain=0.7)
    states, out = _run(teaching, opts)
    assert isinstance(out, CleanState) and out.done and out.iterations == 200
    assert out.stop_reason == "niter" and out.cycle_ends[-1] == 200 and out.cycles >= 2
    its = [s.iterations for s in states]
    assert its[0] == 0 and its == sorted(its) and len(states) > 200 // chunk_size(200)
    for s in (states[1], states[len(states) // 2], out):
        _consistent(s)
    # the restored image: model ⊛ beam + residual (the beam's peak 1 at each component)
    j, i = np.unravel_index(np.argmax(out.model), out.model.shape)
    assert out.restored[j, i] >= out.residual[j, i] + out.model[j, i] - 1e-9
    assert out.peak[0] == pytest.approx(np.abs(out.dirty).max())


def test_threshold_and_auto_threshold_stop_cleaning(teaching):
    _, out = _run(teaching, CleanOptions("hogbom", niter=5000, mgain=1.0, threshold_jy=0.05))
    assert out.stop_reason == "threshold" and out.iterations < 5000
    assert out.peak[-1] <= 0.05 < out.peak[-2]
    _, auto = _run(teaching, CleanOptions("hogbom", niter=5000, mgain=1.0, auto_threshold=50.0))
    assert auto.stop_reason == "auto-threshold" and auto.iterations < 5000


def test_cotton_schwab_residual_is_the_datas(teaching):
    """After the major cycles the residual is the image of V − V(model), not dirty − PSF⊛model."""
    from tests.support.oracles import image_vis
    from uvlab.app.lab.sources import read_samples
    from uvlab.gpu.imaging.imager import make_image

    opts = CleanOptions("cotton-schwab", niter=150, gain=0.1, mgain=0.5)
    states, out = _run(teaching, opts)
    assert out.cycles >= 2 and out.cycles == len(states) - 1  # the start, then one per major
    assert [s.iterations for s in states[1:]] == list(out.cycle_ends)
    req = JobRequest("synthetic", IMAGING, "cpu", SMALL_OBS, teaching)
    s = read_samples(req)
    lam = s.freq_hz / 299792458.0
    u = s.uvw[:, 0, None] * lam
    v = s.uvw[:, 1, None] * lam
    model_vis = image_vis(out.model, u, v, out.spec)  # the model's visibilities, a DFT
    ref = make_image(
        s.uvw, s.freq_hz, s.vis - model_vis, s.weight, s.spec, flag=s.flag,
        algorithm=IMAGING.algorithm, params=IMAGING.grid_params(),
    )  # fmt: skip
    np.testing.assert_allclose(out.residual, ref.dirty, atol=1e-5 * np.abs(out.dirty).max())
    # with the 2N PSF (issue 26; the window used N² before) the image-plane subtraction of
    # this point-source sky is nearly exact too: the major cycles agree with it
    image_plane = psf_subtracted(out.dirty, out.psf, out.model)
    assert out.psf.shape == (128, 128)
    assert np.abs(out.residual - image_plane).max() < 1e-5 * np.abs(out.dirty).max()


def test_cancel_leaves_the_last_complete_cycle(teaching):
    seen = []

    def cancelled():
        return len(seen) >= 3

    req = JobRequest(
        "synthetic", IMAGING, "cpu", SMALL_OBS, teaching, task="clean",
        clean=CleanOptions("hogbom", niter=5000, gain=0.05, mgain=1.0),
    )  # fmt: skip
    with pytest.raises(Cancelled):
        for event in iter_job(req, WorkCache(), cancelled):
            if isinstance(event, Partial) and event.clean is not None:
                seen.append(event.clean)
            assert not isinstance(event, Done)
    last = seen[-1]
    assert not last.done and 0 < last.iterations < 5000
    _consistent(last)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"deconvolver": "mem"}, "deconvolver"),
        ({"niter": -1}, "niter"),
        ({"gain": 0.0}, "gain"),
        ({"mgain": 1.5}, "mgain"),
        ({"threshold_jy": -1.0}, "threshold"),
        ({"auto_threshold": float("nan")}, "auto-threshold"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CleanOptions(**kwargs)
