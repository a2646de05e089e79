"""How often a comparison times each entry (app/lab/compare_timing.py): a warm-up, then timed
runs up to ``repeats``, fewer (at least two) once another would pass the time budget.

The runs' times are given (stage dicts), not measured, so the rule is checked exactly; the
engine and the window's compare task are checked with budgets of 0 and ∞ on real imaging.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab import compare as engine
from uvlab.app.lab.compare import Entry, drain, iter_comparison
from uvlab.app.lab.compare_timing import (
    MIN_TIMED_RUNS,
    WARMUP_VIS,
    another_run,
    planned_runs,
    timed_runs,
    warmup_rows,
)
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.live import run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.session import SessionState
from uvlab.app.lab.state import LabState, job_request
from uvlab.app.runtime.errors import Cancelled
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec


@pytest.mark.parametrize(
    ("runs", "repeats", "budget", "more"),
    [
        ([], 3, 0.0, True),  # the first two whatever the budget
        ([5.0], 3, 0.0, True),
        ([5.0, 5.0], 3, 0.0, False),
        ([1.0, 1.0], 3, 3.0, True),  # 1 + 1 + 1 ≤ 3
        ([1.0, 1.0, 1.0], 3, 3.0, False),  # as many as asked
        ([1.0, 1.0, 1.0], 5, 3.0, False),  # 3 + 1 > 3
        ([1.0, 1.0, 1.0], 5, None, True),  # no budget: exactly repeats
        ([1.0], 1, None, False),
    ],
)
def test_another_run_follows_repeats_the_floor_and_the_budget(runs, repeats, budget, more):
    assert another_run(runs, repeats, budget) is more


def test_planned_runs_is_the_rule_ahead_of_time():
    assert MIN_TIMED_RUNS == 2
    assert planned_runs(3, 0.5, 3.0) == 3
    assert planned_runs(20, 0.5, 3.0) == 6  # 6·0.5 = 3 s
    assert planned_runs(3, 4.0, 3.0) == 2
    assert planned_runs(1, 4.0, 3.0) == 1
    assert planned_runs(7, 4.0, None) == 7


class Runs:
    """A run() that returns results with given stage timings, counting its calls."""

    def __init__(self, seconds):
        self.seconds, self.calls = list(seconds), 0

    def __call__(self):
        self.calls += 1
        return {"grid": self.seconds[self.calls - 1], "n": self.calls}


def test_timed_runs_keeps_the_first_result_and_every_timed_runs_stages():
    run = Runs([9.0, 1.0, 2.0, 1.5, 1.0, 1.0])
    first, warmup, timings = timed_runs(run, 5, timing=lambda r: {"grid": r["grid"]}, budget_s=4.5)
    assert first["n"] == 1 and warmup == {"grid": 9.0}  # the warm-up's result is the image
    assert timings == [{"grid": 1.0}, {"grid": 2.0}]  # 3 + 2 > 4.5: stopped after two
    assert run.calls == 3
    run = Runs([1.0] * 6)
    first, warmup, timings = timed_runs(run, 5, timing=lambda r: {"grid": r["grid"]})
    assert len(timings) == 5 and run.calls == 6  # no budget: every repeat
    run = Runs([4.0])
    first, warmup, timings = timed_runs(run, 1, timing=lambda r: {"grid": r["grid"]}, budget_s=0)
    assert first["n"] == 1 and warmup is None and timings == [{"grid": 4.0}]  # no warm-up


def test_a_separate_warmup_is_not_the_kept_result():
    run, small = Runs([1.0, 2.0, 3.0]), Runs([0.1])
    first, warmup, timings = timed_runs(
        run, 2, timing=lambda r: {"grid": r["grid"]}, warmup=small, budget_s=0
    )
    assert small.calls == 1 and warmup == {"grid": 0.1}
    assert first["n"] == 1 and first["grid"] == 1.0  # the first timed run's result
    assert timings == [{"grid": 1.0}, {"grid": 2.0}] and run.calls == 2


def test_warmup_rows_take_every_kth_row_up_to_the_samples_allowed():
    assert warmup_rows(1000, 4) == slice(None, None, math.ceil(4000 / WARMUP_VIS))
    assert warmup_rows(10, 4) == slice(None, None, 1)
    assert len(range(180 * 2016)[warmup_rows(180 * 2016, 4)]) * 4 <= WARMUP_VIS


def test_timed_runs_checks_cancel_before_each_run():
    run, asked = Runs([1.0] * 4), []

    def cancelled():
        asked.append(run.calls)
        return len(asked) == 3

    with pytest.raises(Cancelled):
        timed_runs(run, 3, timing=lambda r: {"grid": r["grid"]}, cancelled=cancelled)
    assert asked == [0, 1, 2] and run.calls == 2  # stopped before the second timed run


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    nrow, freq = 800, np.array([1.0e9])
    uvw = np.concatenate([rng.normal(0, 300.0, (nrow, 2)), np.zeros((nrow, 1))], axis=1)
    spec = ImageSpec(32, 20.0 / 206264.8)
    vis = np.exp(2j * np.pi * rng.random(nrow))[:, None]
    return uvw, freq, vis, spec


def test_a_budget_of_zero_times_each_entry_twice_and_keeps_its_image(data):
    uvw, freq, vis, spec = data
    entries = [Entry("conv", "conv", GridParams.from_eps(1e-6, threads=1)), Entry("nn", "nn")]
    run = lambda **kw: drain(  # noqa: E731
        iter_comparison(uvw, freq, vis, 1.0, spec, entries, device="cpu", repeats=5, **kw)
    )
    tight, free = run(budget_s=0.0), run(budget_s=None)
    for label in ("conv", "nn"):
        a, b = tight.results[label], free.results[label]
        assert len(a.runs_s) == 2 and len(b.runs_s) == 5
        assert a.warmup_s > 0 and b.warmup_s > 0
        np.testing.assert_array_equal(a.image, b.image)
        assert a.metrics == b.metrics
        assert a.total_s == min(a.runs_s)  # the lower median of two


@pytest.mark.parametrize("flag_warmup_rows", [False, True], ids=["rows", "rows-flagged"])
def test_a_budgeted_warmup_images_every_kth_row(data, monkeypatch, flag_warmup_rows):
    """With a budget the warm-up images every k-th row (all rows where those are all
    flagged); every timed run, and the image measured, are of all the rows."""
    from uvlab.gpu.imaging import imager

    uvw, freq, vis, spec = data
    rows, make_image = [], imager.make_image
    monkeypatch.setattr(imager, "make_image", lambda u, *a, **k: rows.append(len(u)) or
                        make_image(u, *a, **k))  # fmt: skip
    monkeypatch.setattr(engine, "warmup_rows", lambda nrow, nchan: slice(None, None, 8))
    flag = np.zeros(vis.shape, bool)
    flag[::8] = flag_warmup_rows
    entries = [Entry("nn", "nn")]
    run = lambda **kw: drain(  # noqa: E731
        iter_comparison(
            uvw, freq, vis, 1.0, spec, entries, flag=flag, device="cpu", repeats=2, **kw
        )
    )
    budgeted = run(budget_s=0.0)
    assert rows == ([100, 800] if flag_warmup_rows else [100]) + [800, 800]
    rows.clear()
    full = run(budget_s=None)
    assert rows == [800, 800, 800]  # the full warm-up's image is the one measured
    np.testing.assert_array_equal(budgeted.results["nn"].image, full.results["nn"].image)


def test_the_window_task_times_within_the_budget(monkeypatch):
    imaging = ImagingOptions(npix=64)
    session = SessionState(
        observation=SMALL_OBS,
        sky=demo_sky_for("teaching", SMALL_OBS, imaging),
        imaging=imaging,
        device="cpu",
        compare=(replace(imaging, algorithm="conv"), replace(imaging, algorithm="nn")),
        compare_repeats=4,
    )
    request = job_request(LabState.from_session(session), "compare")
    monkeypatch.setattr(engine, "TIMING_BUDGET_S", 0.0)
    out = run_job(request, WorkCache())
    assert [len(r.runs_s) for r in out.comparison.results.values()] == [2, 2]
    monkeypatch.setattr(engine, "TIMING_BUDGET_S", float("inf"))
    out = run_job(request, WorkCache())
    assert [len(r.runs_s) for r in out.comparison.results.values()] == [4, 4]
