"""The Compare tab's strip fits the screen with the controls open (issue 28).

At 1280×720, 1366×768 and 1920×1080, with the Controls dock at the width the window
gives it on that screen and six entries (one with a long name), the metrics table
shows every column with its header and numbers whole (names too long are elided,
whole in their tooltips), the two plots keep a share of the tab, the timing legend
stands beside the bars, each run's total ends inside the timing plot clear of the
others (on a plot too narrow for them, none is written), and each image view is at
least 300 px. The error-time plot labels six runs close together (one time, errors
within a factor 2) clear of each other, of the other runs' markers and of its edges;
so are the grey labels of the conv candidates that Match conv draws as a curve among them.
"""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore, QtWidgets

from tests.support.screens import size_as_on, window_size
from uvlab.app.gui.screen_fit import dock_width
from uvlab.app.lab.compare import Entry, drain, iter_comparison
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.widgets.accuracy_time_view import CURVE_SYMBOL_SIZE, SYMBOL_SIZE
from uvlab.widgets.metrics_table import TEXT_COLUMNS

#: Six entries; the last one's label is longer than a narrow column.
LABELS = ("conv", "ducc", "nn", "nn-oversampled", "hybrid", "pruned-nn (ES, ε=1e-05) #2")
ALGORITHMS = ("conv", "ducc", "nn", "nn-oversampled", "hybrid", "pruned-nn")
#: Screen sizes (logical pixels).
SCREENS = ((1280, 720), (1366, 768), (1920, 1080))
#: The least share of the tab's height each plot of the strip is given.
PLOT_HEIGHT_SHARE = 0.24
#: The least share of the strip's width: the error-time plot, the timing plot's bars.
PLOT_WIDTH_SHARE = (0.2, 0.15)


@pytest.fixture(scope="module")
def output():
    """A comparison of six entries on random uv coverage, at 64² pixels."""
    rng = np.random.default_rng(280)
    freq = np.array([1.0e9])
    r, phi = 2000.0 * np.sqrt(rng.random(2000)), rng.uniform(0, 2 * np.pi, 2000)
    uvw = np.stack([r * np.cos(phi), r * np.sin(phi), np.zeros_like(r)], axis=1)
    spec = ImageSpec(64, 1.0 / (3 * 2000 * freq[0] / 299792458.0))
    vis = np.exp(2j * np.pi * rng.random((2000, 1)))
    params = GridParams(threads=1)
    entries = [Entry(lab, a, params) for lab, a in zip(LABELS, ALGORITHMS)]
    cmp = drain(iter_comparison(uvw, freq, vis, 1.0, spec, entries, device="cpu", repeats=2))
    options = tuple(ImagingOptions(npix=64, algorithm=a) for a in ALGORITHMS)
    return CompareOutput(cmp, options, 0.0, -0.5, freq, "random coverage")


def rect_in(widget, ancestor) -> QtCore.QRect:
    return QtCore.QRect(widget.mapTo(ancestor, QtCore.QPoint(0, 0)), widget.size())


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_strip_fits_with_the_controls_open(make_window, small_state, qtbot, output, screen):
    w = make_window(small_state, run_on_start=False)
    w.resize(*window_size(screen))
    tabs = w.panel_tabs.tabBar().sizeHint().width()
    w.resizeDocks([w.dock], [dock_width(w, screen[0]) + tabs], QtCore.Qt.Orientation.Horizontal)
    w.show_tab("compare")
    view = w.compare.view
    view.show_output(output)
    assert w.dock.isVisible()
    qtbot.waitUntil(lambda: view._images.maximumHeight() < 2**24 - 1)  # the row fitted
    QtWidgets.QApplication.processEvents()

    # the image views: at least 300 px each
    for v in view.all_views():
        assert min(v.width(), v.height()) >= 300, (screen, v.width(), v.height())

    # the table: every column inside it, headers and numbers whole; long names elided
    # with the whole name as tooltip; every row shown; no scroll bar
    table = view.metrics_table
    assert table.columnCount() == 7 and table.rowCount() == len(LABELS)
    assert table.horizontalHeader().length() <= table.viewport().width()
    assert table.verticalHeader().length() <= table.viewport().height()
    assert not table.horizontalScrollBar().isVisible()
    assert not table.verticalScrollBar().isVisible()
    keys = ["algorithm", *table.metric_keys()]
    for c, key in enumerate(keys):
        width = table.columnWidth(c)
        assert width >= table.header_width(c), (screen, key, width)
        if key not in TEXT_COLUMNS:
            assert width >= table.sizeHintForColumn(c), (screen, key, width)
            continue
        metrics = table.fontMetrics()
        for r in range(table.rowCount()):
            item = table.item(r, c)
            if metrics.horizontalAdvance(item.text()) + 8 > width:  # elided
                assert item.toolTip() == item.text(), (screen, item.text())
    names = {table.item(r, 0).text(): table.item(r, 0).toolTip() for r in range(len(LABELS))}
    assert names == {lab: lab for lab in LABELS}

    # the plots: a share of the tab's height and of the strip's width
    strip = view._strip
    acc, timing = view.accuracy_view, view.timing_view
    for plot in (acc.plot_widget, timing.plot_widget):
        assert plot.height() >= PLOT_HEIGHT_SHARE * view.height(), (screen, plot.height())
    assert acc.plot_widget.width() >= PLOT_WIDTH_SHARE[0] * strip.width(), screen
    assert timing.plot_widget.width() >= PLOT_WIDTH_SHARE[1] * strip.width(), screen
    parts = [rect_in(p, strip) for p in (table, acc, view._timing_box)]
    assert all(strip.rect().contains(p) for p in parts), (screen, parts)
    assert not any(a.intersects(b) for k, a in enumerate(parts) for b in parts[k + 1 :])

    # the timing legend beside the bars, never over them; the axis names every run
    legend, bars = rect_in(timing.legend_view, timing), rect_in(timing.plot_widget, timing)
    assert len(timing.legend.items) == len(timing.bars) > 0
    assert not legend.intersects(bars)
    assert timing.rect().contains(legend) and timing.rect().contains(bars)
    axis = timing.plot_item.getAxis("left")
    assert LABELS[-1] in axis.toolTip()  # elided on the axis, whole in its tooltip
    # each run's total ends inside the plot (so clear of the legend beside it) and clear
    # of the others; or, where the plot is too narrow for them, none is written
    box = timing.plot_item.getViewBox()

    def totals_placed():
        plot = box.sceneBoundingRect()
        shown = [t.sceneBoundingRect() for t in timing.totals if t.isVisible()]
        apart = not any(a.intersects(b) for k, a in enumerate(shown) for b in shown[k + 1 :])
        return apart and all(plot.contains(r) for r in shown)

    qtbot.waitUntil(totals_placed, timeout=5000)
    assert len(timing.totals) == len(LABELS)
    if screen[0] > 1280:
        assert all(t.isVisible() for t in timing.totals), screen


def marker_rect(vb, item, size: float = SYMBOL_SIZE) -> QtCore.QRectF:
    """The square a marker covers on screen (its drawn position, ``size`` wide)."""
    at = vb.mapViewToScene(vb.mapFromItemToView(item, item.scatter.points()[0].pos()))
    half = size / 2
    return QtCore.QRectF(at.x() - half, at.y() - half, size, size)


#: How far (px) a shown label's box may lie from its marker's: beside it, not lines away.
NEAR_PX = 6


def _accuracy_view_on(w, screen, output, qtbot):
    """The Compare tab's accuracy–time view, ``output`` shown, the window sized as on ``screen``."""
    size_as_on(w, screen)
    w.show_tab("compare")
    view = w.compare.view
    view.show_output(output)
    qtbot.waitUntil(lambda: view._images.maximumHeight() < 2**24 - 1)  # the row fitted
    return view.accuracy_view


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_scatter_labels_of_close_runs_are_clear(make_window, small_state, qtbot, output, screen):
    """Six runs at one time, errors within a factor 2: each label shown sits against its
    own marker (its name or its number), over no other label, no other run's marker and not
    across the plot's edge; a run whose label fits nowhere near is named by its marker's
    tooltip (a label far from its marker would name the wrong point)."""
    acc = _accuracy_view_on(make_window(small_state, run_on_start=False), screen, output, qtbot)
    errors = 1e-4 * 2.0 ** (np.arange(6) / 5)  # 0.06 decades apart: markers nearly touching
    acc.set_points(np.full(6, 0.5), errors, LABELS, [str(k) for k in range(1, 7)])
    QtWidgets.QApplication.processEvents()
    acc.plot_widget.grab()  # drawn: each TextItem where it paints itself
    vb = acc.plot_item.vb
    plot = vb.sceneBoundingRect()
    markers = [marker_rect(vb, p) for p in acc.points]
    texts = [t.toPlainText() for t in acc.labels]
    assert texts in (list(LABELS), [str(k) for k in range(1, 7)]), (screen, texts)
    shown = [k for k, t in enumerate(acc.labels) if t.isVisible()]
    assert len(shown) >= 3, (screen, texts)
    assert all(acc.points[k].toolTip() == LABELS[k] for k in range(6) if k not in shown)
    boxes = [t.sceneBoundingRect() for t in acc.labels]
    for k in shown:
        box = boxes[k]
        assert plot.contains(box), (screen, texts[k], box, plot)
        near = markers[k].adjusted(-NEAR_PX, -NEAR_PX, NEAR_PX, NEAR_PX)
        assert box.intersects(near), (screen, texts[k], "away from its marker")
        for j in range(6):
            if j != k:
                assert j not in shown or not box.intersects(boxes[j]), (texts[k], texts[j])
                assert not box.intersects(markers[j]), (screen, texts[k], "over", LABELS[j])


#: Match conv's candidates among the six runs (times s, errors, labels): S=2 and S=3
#: beside the runs' column, S=4 on the sixth run (the conv entry the match added).
CURVE = ((0.42, 0.45, 0.5), (3e-3, 4e-4, 2e-4), ("S=2", "S=3", "S=4"))


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_match_conv_labels_are_decluttered_too(make_window, small_state, qtbot, output, screen):
    """Six close runs and Match conv's curve: each label shown, a run's or a candidate's,
    sits against its own marker, over no other label and no marker but those at its own
    marker's pixel, inside the plot; a hidden one's marker names it in its tooltip."""
    acc = _accuracy_view_on(make_window(small_state, run_on_start=False), screen, output, qtbot)
    errors = 1e-4 * 2.0 ** (np.arange(6) / 5)
    errors[5] = CURVE[1][2]  # the added conv entry: a run on the curve's last point
    acc.set_points(np.full(6, 0.5), errors, LABELS, [str(k) for k in range(1, 7)])
    acc.set_curve(*CURVE, name="Match conv: conv ES")
    QtWidgets.QApplication.processEvents()
    acc.plot_widget.grab()  # drawn: each TextItem where it paints itself
    vb = acc.plot_item.vb
    plot = vb.sceneBoundingRect()
    items = acc.labels + acc.curve_labels
    names = [*LABELS, *(f"Match conv: conv ES {s}" for s in CURVE[2])]
    texts = [t.toPlainText() for t in items]
    assert texts[6:] == list(CURVE[2])
    markers = [marker_rect(vb, p) for p in acc.points]
    markers += [marker_rect(vb, p, CURVE_SYMBOL_SIZE) for p in acc.curve_points]
    tips = [p.toolTip() for p in acc.points + acc.curve_points]
    assert tips == names  # what a hidden label would have said
    shown = [k for k, t in enumerate(items) if t.isVisible()]
    assert len(shown) >= 3, (screen, texts)
    boxes = [t.sceneBoundingRect() for t in items]
    for k in shown:
        box = boxes[k]
        assert plot.contains(box), (screen, texts[k], box, plot)
        near = markers[k].adjusted(-NEAR_PX, -NEAR_PX, NEAR_PX, NEAR_PX)
        assert box.intersects(near), (screen, texts[k], "away from its marker")
        for j in range(len(items)):
            if j == k:
                continue
            assert j not in shown or not box.intersects(boxes[j]), (screen, texts[k], texts[j])
            if markers[j].center() != markers[k].center():
                assert not box.intersects(markers[j]), (screen, texts[k], "over", names[j])
