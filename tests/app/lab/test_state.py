"""The lab state: undo/redo round trips, observers, reset, sessions, the job request."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from astropy.io import fits

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.clean_mask import MaskError
from uvlab.app.lab.corruptions import Corruptions
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.session import DEFAULT_SESSION, SessionError, load_session
from uvlab.app.lab.state import (
    CleanRecord,
    ImagingRecord,
    InstrumentRecord,
    LabModel,
    LabState,
    ObservationRecord,
    default_state,
    job_request,
    load_lab,
    save_lab,
)
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.gridders.params import GridParams


def _changes() -> list:
    """Edits of every record, as the panels make them (functions of the state)."""

    def imaging(**kw):
        return lambda s: s.with_(
            imaging=replace(s.imaging, options=replace(s.imaging.options, **kw))
        )

    def clean(**kw):
        return lambda s: s.with_(clean=replace(s.clean, options=replace(s.clean.options, **kw)))

    return [
        imaging(npix=256),
        imaging(weighting="uniform"),
        clean(niter=1234, gain=0.05),
        clean(auto_mask=4.0, auto_threshold=1.0, deconvolver="cotton-schwab"),
        clean(multiscale=True, multiscale_scale_bias=0.4, multiscale_small_scale_bias=-0.25),
        lambda s: s.with_(clean=replace(s.clean, fits_mask="mask.fits")),
        lambda s: s.with_(instrument=InstrumentRecord(Corruptions(sefd_jy=450.0))),
        lambda s: s.with_(
            observation=replace(s.observation, spec=replace(s.observation.spec, nchan=2))
        ),
        lambda s: s.with_(imaging=replace(s.imaging, device="cpu")),
        lambda s: s.with_(imaging=replace(s.imaging, compare_repeats=5)),
        lambda s: s.with_(imaging=replace(s.imaging, params=GridParams(precision="single"))),
    ]


def test_undo_redo_round_trips_the_state():
    model = LabModel()
    start = model.state
    for change in _changes():
        model.apply(change)
    end = model.state
    assert end != start and end.clean.options.niter == 1234 and end.imaging.options.npix == 256
    n = len(_changes())
    assert [model.undo() for _ in range(n)] == [True] * n
    assert model.state == start and not model.can_undo() and not model.undo()
    assert [model.redo() for _ in range(n)] == [True] * n
    assert model.state == end and not model.can_redo() and not model.redo()


def test_observers_see_every_change_and_a_new_edit_drops_the_redo():
    model = LabModel()
    seen = []
    model.observe(seen.append)
    first, second = _changes()[:2]
    model.apply(first)
    model.apply(model.state)  # no change: nothing recorded, nobody told
    assert len(seen) == 1 and seen[-1] is model.state
    model.undo()
    assert seen[-1] is model.state == default_state()
    model.apply(second)
    assert not model.can_redo() and model.state.imaging.options.weighting == "uniform"
    assert len(seen) == 3


def test_reset_goes_to_the_default_scene_and_is_undoable():
    model = LabModel()
    for change in _changes():
        model.apply(change)
    edited = model.state
    model.reset()
    assert model.state == default_state()
    assert model.state.imaging.compare is None  # the default Compare entries
    model.undo()
    assert model.state == edited


def test_a_change_must_give_a_state():
    with pytest.raises(TypeError, match="LabState"):
        LabModel().apply(lambda s: s.imaging)


def test_session_round_trip_of_the_state(tmp_path):
    model = LabModel()
    for change in _changes()[:-1]:  # a session holds no GridParams (the CLI's alone)
        model.apply(change)
    state = model.state
    path = save_lab(state, tmp_path / "lab.json")
    assert load_lab(path) == state
    assert load_session(path).clean_fits_mask == "mask.fits"
    assert json.loads(path.read_text())["compare_repeats"] == 5


def test_compare_repeats_travel_in_a_compare_job_and_are_checked(tmp_path):
    state = default_state()
    entries = (ImagingOptions(algorithm="conv"), ImagingOptions(algorithm="nn"))
    state = state.with_(imaging=replace(state.imaging, compare=entries, compare_repeats=7))
    assert job_request(state, "compare").repeats == 7
    assert state.session().job_request("compare").repeats == 7
    with pytest.raises(ValueError, match="timed runs per entry must be 1–20, got 0"):
        replace(state.imaging, compare_repeats=0)
    bad = DEFAULT_SESSION.to_dict() | {"compare_repeats": 2.5}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(SessionError, match="compare_repeats must be a whole number 1–20"):
        load_lab(path)


def test_a_session_of_the_previous_version_still_loads(tmp_path):
    old = DEFAULT_SESSION.to_dict()
    del old["clean_fits_mask"], old["compare_repeats"]  # what the previous version wrote
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    state = load_lab(path)
    assert state.clean == CleanRecord() and state == default_state()


def test_job_request_is_that_of_the_session():
    """The records make the request the session made before them, field for field."""
    state = default_state()
    new = job_request(state, "image")
    old = DEFAULT_SESSION.job_request("image")
    assert replace(new, job_id=0) == replace(old, job_id=0)
    assert new.params is None and new.clean is None and new.compare == ()


def test_job_request_carries_the_clean_record_and_its_mask(tmp_path):
    npix = 64
    mask = np.zeros((npix, npix), np.float32)
    mask[20:30, 34:40] = 1.0
    fits.PrimaryHDU(mask).writeto(tmp_path / "m.fits")
    opts = CleanOptions(niter=50, auto_mask=3.0)
    state = LabState(
        ObservationRecord(SMALL_OBS),
        imaging=ImagingRecord(ImagingOptions(npix=npix), GridParams(precision="single")),
        clean=CleanRecord(opts, str(tmp_path / "m.fits")),
    )
    req = job_request(state, "clean")
    assert req.clean == opts and req.params == GridParams(precision="single")
    np.testing.assert_array_equal(req.clean_mask, mask != 0)
    assert job_request(state, "image").clean_mask is None
    bad = state.with_(clean=CleanRecord(opts, str(tmp_path / "none.fits")))
    with pytest.raises(MaskError, match=r"none\.fits"):
        job_request(bad, "clean")
    small = state.with_(imaging=ImagingRecord(ImagingOptions(npix=32)))
    with pytest.raises(MaskError, match=r"m\.fits: the FITS mask is 64 × 64"):
        job_request(small, "clean")
