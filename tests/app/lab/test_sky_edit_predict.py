"""A sky edit re-predicts only the components it changed (the observation and the rest reused)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, Partial, Progress
from uvlab.app.lab.live import iter_job, run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sky_edits import sky_edit
from uvlab.app.lab.sources import read_samples
from uvlab.app.runtime.errors import Cancelled
from uvlab.app.skymodel import Component

IMAGING = ImagingOptions(npix=128)
CLICK = Component("click1", "point", 201.45, -42.95, (0.5, 0.0, 0.0, 0.0), 1.4e9, -0.7)
BLOB = Component("blob2", "gaussian", 201.3, -43.1, (0.3, 0, 0, 0), 1.4e9, 0.0, 400.0, 150.0, 20.0)


@pytest.fixture(scope="module")
def teaching():
    return demo_sky_for("teaching", SMALL_OBS, IMAGING)  # 4 points and a Gaussian


def request(sky, **changes):
    return JobRequest(
        "synthetic", changes.pop("imaging", IMAGING), "cpu", SMALL_OBS, sky, **changes
    )


def assert_same_vis(got, sky, **changes):
    """``got`` against a fresh full prediction of ``sky``, to 1e-12 of its largest value."""
    fresh = read_samples(request(sky, **changes), WorkCache())
    scale = np.abs(fresh.vis).max()
    assert np.abs(got.vis - fresh.vis).max() <= 1e-12 * scale


def test_edits_update_the_held_prediction(teaching):
    cache = WorkCache()
    first = read_samples(request(teaching), cache)
    assert cache.last_prediction_kind == "full" and "uvw" in first.timing
    obs = first.raw

    added = teaching.with_component(CLICK)
    s = read_samples(request(added), cache)
    assert (cache.last_prediction_kind, cache.last_prediction_delta) == ("incremental", (1, 0))
    assert s.raw is obs and "uvw" not in s.timing  # the observation (uvw, flags) reused
    assert "predict" in s.timing and "preview" not in s.timing
    assert_same_vis(s, added)

    removed = added.without(1)  # faint1
    s = read_samples(request(removed), cache)
    assert (cache.last_prediction_kind, cache.last_prediction_delta) == ("incremental", (0, 1))
    assert s.raw is obs
    assert_same_vis(s, removed)

    lobe = next(k for k, c in enumerate(removed) if c.kind == "gaussian")
    changed = removed.replace(lobe, BLOB)  # one Gaussian for another: removed + added
    s = read_samples(request(changed), cache)
    assert (cache.last_prediction_kind, cache.last_prediction_delta) == ("incremental", (1, 1))
    assert_same_vis(s, changed)
    assert cache.prediction_edits == 3

    # the same request again: as it is
    again = read_samples(request(changed), cache)
    assert cache.last_prediction_kind == "cached" and np.shares_memory(again.vis, s.vis)


def test_an_edit_gives_the_image_of_a_fresh_run(teaching):
    cache = WorkCache()
    run_job(request(teaching), cache)
    edited = teaching.with_component(CLICK).without(0)
    events = list(iter_job(request(edited), cache))
    assert cache.last_prediction_kind == "incremental"
    partials = [e for e in events if isinstance(e, Partial)]
    assert len(partials) == 1 and partials[0].dirty is None  # no preview, the uv at once
    out = events[-1].output
    assert partials[0].uv is out.uv and out.uv.nrow == SMALL_OBS_ROWS
    fresh = run_job(request(edited), WorkCache())
    np.testing.assert_allclose(out.dirty, fresh.dirty, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(out.sources_lm, fresh.sources_lm)


SMALL_OBS_ROWS = 36 * 21


def test_edits_in_single_precision(teaching):
    single = replace(IMAGING, precision="single")
    cache = WorkCache()
    read_samples(request(teaching, imaging=single), cache)
    s = read_samples(request(teaching.with_component(CLICK), imaging=single), cache)
    assert cache.last_prediction_kind == "incremental" and s.vis.dtype == np.complex64
    fresh = read_samples(request(teaching.with_component(CLICK), imaging=single), WorkCache())
    assert np.abs(s.vis - fresh.vis).max() <= 1e-5 * np.abs(fresh.vis).max()


def test_large_changes_and_other_changes_predict_in_full(teaching, monkeypatch):
    import uvlab.app.lab.sky_edits as sky_edits

    cache = WorkCache()
    read_samples(request(teaching), cache)
    # more than half the sky changed
    other = demo_sky_for("pair", SMALL_OBS, IMAGING)
    s = read_samples(request(other), cache)
    assert cache.last_prediction_kind == "full"
    assert_same_vis(s, other)
    # the sky laid out about another centre: equal components sit elsewhere
    read_samples(request(teaching), cache)
    moved = replace(teaching.with_component(CLICK), centre_deg=(201.0, -43.0))
    read_samples(request(moved), cache)
    assert cache.last_prediction_kind == "full"
    # anything but the sky changed: smearing, precision, observation
    edited = moved.with_component(BLOB)
    read_samples(request(edited, smearing=False), cache)
    assert cache.last_prediction_kind == "full"
    read_samples(request(edited, smearing=False, imaging=replace(IMAGING, npix=64)), cache)
    assert cache.last_prediction_kind == "cached"  # imaging alone changes nothing
    # too many edits in a row: one full prediction resets the count
    monkeypatch.setattr(sky_edits, "MAX_EDITS", 2)
    sky = edited
    kinds = []
    for k in range(4):
        sky = sky.with_component(replace(CLICK, name=f"more{k}", ra_deg=201.3 + 0.02 * k))
        read_samples(request(sky, smearing=False), cache)
        kinds.append(cache.last_prediction_kind)
    assert kinds == ["incremental", "incremental", "full", "incremental"]


def test_a_cancelled_edit_leaves_no_stale_prediction(teaching):
    cache = WorkCache()
    read_samples(request(teaching), cache)
    edited = teaching.with_component(CLICK)
    steps = []

    def cancelled():
        return len(steps) >= 2

    with pytest.raises(Cancelled):
        for event in iter_job(request(edited), cache, cancelled):
            if isinstance(event, Progress) and event.stage == "predict":
                steps.append(event)
    assert cache.prediction_key is None  # the half-updated visibilities were dropped
    s = read_samples(request(edited), cache)
    assert cache.last_prediction_kind == "full"
    assert_same_vis(s, edited)


def test_sky_edit_counts_components_in_any_order(teaching):
    a, b = teaching[0], teaching[1]
    assert sky_edit(teaching, teaching) == ((), ())
    assert sky_edit(teaching, teaching.with_component(CLICK)) == ((CLICK,), ())
    assert sky_edit(teaching.with_component(CLICK), teaching) == ((), (CLICK,))
    swapped = teaching.replace(0, b).replace(1, a)
    assert sky_edit(teaching, swapped) == ((), ())  # the same sum
    twice = teaching.with_component(a)
    assert sky_edit(teaching, twice) == ((a,), ())  # a duplicate counts
    assert sky_edit(teaching, replace(teaching, centre_deg=(0.0, 0.0))) is None
    assert sky_edit(teaching, replace(teaching, name="renamed")) == ((), ())
