"""TimingView: stacked bars whose widths are the stage times in ms."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore

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


#: Six runs as a Compare of six entries draws them: the slowest last, its total the widest.
SIX = {
    f"entry {k}": {"grid": t * 0.8, "FFT": t * 0.15, "correct": t * 0.05}
    for k, t in enumerate((0.0123, 0.0456, 0.101, 0.2345, 0.5, 0.929))
}


@pytest.mark.parametrize("width", [300, 420, 640])
def test_totals_end_inside_the_plot_clear_of_the_legend(qtbot, view, width):
    """Each run's total is written past its bar and error bar and ends inside the plot."""
    view.resize(width, 240)
    view.show()
    qtbot.waitExposed(view)
    spread = {"entry 5": (0.900, 0.990), "entry 2": (0.09, 0.12)}
    view.set_runs(SIX, spread=spread)
    vb = view.plot_item.getViewBox()

    def placed():
        plot = view.plot_widget.mapFromScene(vb.sceneBoundingRect()).boundingRect()
        rects = [view.plot_widget.mapFromScene(t.sceneBoundingRect()).boundingRect()
                 for t in view.totals]  # fmt: skip
        return plot, rects

    def inside():  # each inside the plot, clear of the others
        plot, rects = placed()
        apart = not any(a.intersects(b) for k, a in enumerate(rects) for b in rects[k + 1 :])
        return apart and all(plot.contains(r) for r in rects)

    qtbot.waitUntil(inside, timeout=5000)
    assert all(t.isVisible() for t in view.totals)
    _, rects = placed()
    assert [t.toPlainText() for t in view.totals][-1] == "929 ms"
    legend = QtCore.QRect(
        view.legend_view.mapTo(view, QtCore.QPoint(0, 0)), view.legend_view.size()
    )
    for r in rects:  # in the view's own coordinates: clear of the legend beside the plot
        mapped = QtCore.QRect(view.plot_widget.mapTo(view, r.topLeft()), r.size())
        assert not mapped.intersects(legend), (width, mapped, legend)
    # each total past its own bar's end and error bar
    _, _, slowest = view.spread_ms()
    ends = dict(zip(SIX, [sum(r.values()) * 1e3 for r in SIX.values()]))
    ends["entry 5"], ends["entry 2"] = 990.0, 120.0
    for t, end in zip(view.totals, ends.values()):
        assert t.pos().x() == pytest.approx(end)
    assert slowest.max() == pytest.approx(990.0)


def test_a_plot_too_narrow_for_the_totals_writes_none(qtbot, view):
    view.resize(170, 240)
    view.show()
    qtbot.waitExposed(view)
    view.set_runs(SIX)
    qtbot.waitUntil(lambda: not any(t.isVisible() for t in view.totals), timeout=5000)
    assert [t.toPlainText() for t in view.totals][-1] == "929 ms"  # there all the same
    view.resize(640, 240)
    qtbot.waitUntil(lambda: all(t.isVisible() for t in view.totals), timeout=5000)


def test_the_axis_reads_seconds_past_two_seconds(view):
    view.set_runs({"fast": {"grid": 0.2}})
    axis = view.plot_item.getAxis("bottom")
    assert axis.scale == 1.0 and axis.labelText == "time (ms)"
    view.set_runs({"fast": {"grid": 0.2}, "slow": {"grid": 45.2}})
    assert axis.scale == 1e-3 and axis.labelText == "time (s)"
    np.testing.assert_allclose(view.stage_widths_ms("grid"), [200.0, 45200.0])  # still ms
