"""TimingView: stacked bars whose widths are the stage times in ms."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.timing import STAGES
from uvlab.widgets.timing_view import TimingView

RUNS = {
    "CPU conv": {"grid": 0.350, "uvw": 0.010, "FFT": 0.040, "correct": 0.010},
    "GPU conv": {"host→device": 0.020, "grid": 0.012, "FFT": 0.001, "my stage": 0.002},
}


@pytest.fixture
def view(qtbot):
    v = TimingView()
    qtbot.addWidget(v)
    return v


def test_bar_widths_are_milliseconds_and_stack_in_design_order(view):
    view.set_runs(RUNS)
    assert list(view.bars) == ["uvw", "host→device", "grid", "FFT", "correct", "my stage"]
    for stage in view.bars:
        expected = [RUNS[r].get(stage, 0.0) * 1e3 for r in RUNS]
        np.testing.assert_allclose(view.stage_widths_ms(stage), expected)
    # each bar starts where the previous stage (in STAGES order) ended
    left = np.zeros(2)
    for stage in view.bars:
        np.testing.assert_allclose(view.bars[stage].opts["x0"], left)
        left += view.stage_widths_ms(stage)
    np.testing.assert_allclose(left, [410.0, 35.0])
    ticks = view.plot_item.getAxis("left")._tickLevels[0]
    assert [t[1] for t in ticks] == list(RUNS)
    assert ticks[0][0] > ticks[1][0]  # first run on top


def test_stage_colours_are_stable_and_in_legend(view):
    view.set_runs(RUNS)
    grid_brush = view.bars["grid"].opts["brush"]
    view.set_runs({"only FFT": {"FFT": 1.0}, "grid too": {"grid": 0.5, "FFT": 0.1}})
    assert view.bars["grid"].opts["brush"] == grid_brush
    assert view.bars["FFT"].opts["brush"] != grid_brush
    names = [label.text for _, label in view.legend.items]
    assert names == ["grid", "FFT"] and STAGES.index("grid") < STAGES.index("FFT")


def test_throughput_label(view):
    view.set_throughput(vis_per_s=6.5e8, source_vis_per_s=5.9e11)
    assert view.throughput_label.text() == "gridding 650 Mvis/s   predict 590 Gsource·vis/s"
    view.set_throughput(vis_per_s=1234.0)
    assert view.throughput_label.text() == "gridding 1.23 kvis/s"


def test_same_stages_move_the_bars_and_keep_the_legend(view):
    view.set_runs(RUNS)
    items, legend = dict(view.bars), list(view.legend.items)
    faster = {k: {s: t / 2 for s, t in v.items()} for k, v in RUNS.items()}
    view.set_runs(faster)
    assert view.bars == items and view.legend.items == legend  # the same objects
    np.testing.assert_allclose(view.stage_widths_ms("grid"), [175.0, 6.0])
    np.testing.assert_allclose(view.bars["FFT"].opts["x0"], [180.0, 16.0])
    assert [t.toPlainText() for t in view.totals] == ["205 ms", "17.5 ms"]
    assert [t.pos().x() for t in view.totals] == pytest.approx([205.0, 17.5])  # at bars' ends
    view.set_runs({"one run": {stage: 0.001 for stage in items}})  # the same stages, one run
    assert view.bars == items and view.stage_widths_ms("grid").tolist() == [1.0]


def test_deferred_runs_are_drawn_when_shown_or_asked_for(qtbot, view):
    view.set_runs(RUNS, defer=True)
    assert view.needs_drawing() and view.legend.items == []
    view.show()
    qtbot.waitExposed(view)
    assert not view.needs_drawing() and len(view.legend.items) == 6
    view.hide()
    view.set_runs({"only FFT": {"FFT": 1.0}}, defer=True)
    assert view.needs_drawing() and list(view.bars) == ["FFT"]  # bars draws first
    assert not view.needs_drawing()
