"""The job requests of the lab's model (uvlab.app.lab.model_requests; no Qt)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.model_requests import ModelRequests
from uvlab.app.lab.session import ImageSkySource
from uvlab.app.lab.state import (
    ImagingRecord,
    LabModel,
    LabState,
    ObservationRecord,
    SkyRecord,
    job_request,
)
from uvlab.gpu.deconvolution.options import CleanOptions


def _model() -> LabModel:
    return LabModel(
        LabState(ObservationRecord(SMALL_OBS), imaging=ImagingRecord(ImagingOptions(npix=64)))
    )


def _npix(n: int):
    return lambda s: s.with_(imaging=replace(s.imaging, options=replace(s.imaging.options, npix=n)))


def test_a_request_is_the_models_current_state():
    model = _model()
    requests = ModelRequests(model)
    first = requests()
    assert first.imaging.npix == 64 and first.observation == SMALL_OBS
    model.apply(_npix(256))
    model.apply(lambda s: s.with_(clean=replace(s.clean, options=CleanOptions(niter=77))))
    after = requests("clean")
    assert after.imaging.npix == 256 and after.clean.niter == 77 and after.task == "clean"
    assert after == job_request(model.state, "clean", job_id=after.job_id, image_sky=None)
    model.undo()
    model.undo()
    again = requests()
    assert again == replace(first, job_id=again.job_id)  # the undone state's request
    assert again.job_id > after.job_id > first.job_id  # each submit a new job


def test_a_refused_edit_fails_every_request_until_accepted():
    requests = ModelRequests(_model())
    requests.refuse("imaging", "cell: must be > 0 or 'auto', got 'abc'")
    requests.refuse("clean", "missing.fits: no such file")
    with pytest.raises(ValueError, match="cell: must be > 0"):
        requests()
    requests.accept("imaging")
    with pytest.raises(ValueError, match=r"missing\.fits"):
        requests("clean")
    assert list(requests.refused()) == ["clean"]
    requests.accept()  # the front end shows the model again: nothing refused
    assert requests().imaging.npix == 64


def test_an_image_sky_is_read_once_per_source():
    model = _model()
    requests = ModelRequests(model)
    spiral = ImageSkySource("picture:spiral", 6.0, 1.0)
    model.apply(lambda s: s.with_(sky=SkyRecord(image_sky=spiral)))
    first, second = requests(), requests()
    assert first.image_sky is second.image_sky  # not read again
    np.testing.assert_array_equal(first.image_sky.image, spiral.load().image)
    brighter = replace(spiral, flux_jy=3.0)
    model.apply(lambda s: s.with_(sky=SkyRecord(image_sky=brighter)))
    third = requests()
    assert third.image_sky is not first.image_sky
    assert third.image_sky.total_jy == pytest.approx(3.0 * first.image_sky.total_jy)
    handed = brighter.load()  # what a panel read already is what the request carries
    requests.keep_image_sky(brighter, handed)
    assert requests().image_sky is handed
    model.apply(lambda s: s.with_(sky=SkyRecord()))
    assert requests().image_sky is None


def test_amend_changes_the_state_without_an_undo_step():
    model = _model()
    seen = []
    model.observe(seen.append)
    start = model.state
    model.apply(_npix(128))
    shown = _npix(130)(model.state)  # as a front end shows it, in its own steps
    assert model.amend(shown) is shown and model.state == shown and seen[-1] == shown
    assert model.amend(shown) is shown and len(seen) == 2  # equal: nobody told
    assert model.undo() and model.state == start
    assert model.redo() and model.state == shown
    with pytest.raises(TypeError):
        model.amend("not a state")
