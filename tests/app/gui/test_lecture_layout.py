"""The lecture layout: six equal pictures and the lecture's controls, at projector sizes."""

from __future__ import annotations

import itertools

import pytest
from PyQt6 import QtGui, QtWidgets

from uvlab.app.gui.figure_export import PANEL_IN, PNG_DPI
from uvlab.app.gui.lecture_layout import FONT_PT, GRID, LECTURE_PT


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_six_equal_views_fill_a_projector_screen(make_window, small_state, wait_result, size):
    w = make_window(small_state)
    wait_result(w)
    w.lecture.action.trigger()  # View → Lecture layout
    w.resize(*size)
    QtWidgets.QApplication.processEvents()
    views = w.lecture.views()
    assert w.lecture.is_on() and not w.dock.isVisible()
    sizes = {name: (v.width(), v.height()) for name, v in views.items()}
    assert all(v.isVisible() for v in views.values())
    widths = [s[0] for s in sizes.values()]
    heights = [s[1] for s in sizes.values()]
    assert max(widths) - min(widths) <= 2 and max(heights) - min(heights) <= 2, sizes
    assert min(widths) >= 0.3 * size[0] and min(heights) >= 0.35 * size[1], sizes
    # the grid's order: sky, Fourier plane, uv / PSF, dirty, restored
    rows = [[views[n].mapTo(w, views[n].rect().topLeft()) for n in row] for row in GRID]
    assert all(a.x() < b.x() for row in rows for a, b in itertools.pairwise(row))
    assert all(top.y() < bottom.y() for top, bottom in zip(*rows, strict=True))
    background = views["dirty_view"].plot_widget.backgroundBrush().color()
    assert background == QtGui.QColor("white")  # light theme


def test_strip_mirrors_the_panel_and_leaving_puts_everything_back(
    make_window, small_state, wait_result, qtbot
):
    w = make_window(small_state)
    wait_result(w)
    sky_index = w.views.indexOf(w.views.sky_view)
    w.lecture.set_on(True)
    strip = w.lecture.strip
    assert w.views.indexOf(w.views.sky_view) == -1  # moved into the lecture grid
    strip.dec.spin.setValue(-30.0)  # a lecturer's edit runs a job as the panel's would
    out = wait_result(w).output
    assert w.obs_panel.dec.value() == pytest.approx(-30.0)
    assert w.stale.shown_request.observation.dec_deg == pytest.approx(-30.0)
    assert out.dirty.max() > 0
    w.obs_panel.ha_stop.spin.setValue(2.0)  # and the panel's edits show in the strip
    assert strip.ha_stop.value() == pytest.approx(2.0)
    wait_result(w)
    assert w.lecture.font_pt == LECTURE_PT
    larger = [a for a in w.findChildren(QtGui.QAction) if a.text() == "Larger text"]
    assert QtGui.QKeySequence("Ctrl+=") in larger[0].shortcuts()
    larger[0].trigger()
    assert w.lecture.font_pt == FONT_PT[FONT_PT.index(LECTURE_PT) + 1]
    assert w.views.dirty_view.font().pointSize() == w.lecture.font_pt
    strip.leave_button.click()
    assert not w.lecture.is_on() and not w.lecture.action.isChecked()
    assert w.views.indexOf(w.views.sky_view) == sky_index
    assert w.views.dirty_view.window() is w and w.dock.isVisible()
    assert w.views.dirty_view.plot_widget.backgroundBrush().color() != QtGui.QColor("white")


def test_lecture_figure_has_six_panels(make_window, small_state, wait_result, qtbot, tmp_path):
    w = make_window(small_state)
    wait_result(w)
    w.lecture.set_on(True)
    w.lecture.strip.clean_button.click()
    with qtbot.waitSignal(w.controller.result_ready, timeout=60_000):
        pass
    panels = w.lecture.panels()
    assert all(p is not None for p in panels)
    assert panels[-1].title == "CLEAN restored image"
    png = QtGui.QImage(str(w.figures.save(panels, tmp_path / "lecture.png")))
    assert (png.width(), png.height()) >= (
        round(3 * PANEL_IN[0] * PNG_DPI),
        round(2 * PANEL_IN[1] * PNG_DPI),
    )


#: The least width of a strip slider a hand can drag, px.
SLIDER_PX = 40


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_the_strip_fits_a_projector_with_every_slider_usable(make_window, small_state, size):
    """At 1280×720 the hour-angle sliders were 12 px stubs beside a long Dec slider. Now each
    of the three is at least SLIDER_PX wide, every control of the strip lies inside it, clear
    of the others, with its text whole, and the window is no wider than the screen."""
    w = make_window(small_state, run_on_start=False)
    w.lecture.set_on(True)
    w.resize(*size)
    QtWidgets.QApplication.processEvents()
    strip = w.lecture.strip
    assert w.width() <= size[0] and w.minimumSizeHint().width() <= size[0]
    assert strip.width() <= size[0]
    for pair in (strip.dec, strip.ha_start, strip.ha_stop):
        assert pair.slider.isVisible() and pair.slider.width() >= SLIDER_PX, (size, pair.value())
        text = pair.spin.textFromValue(pair.spin.minimum()) + pair.spin.suffix()
        assert pair.spin.width() >= pair.spin.fontMetrics().horizontalAdvance(text), size
    combo = strip.array_combo
    assert combo.width() >= combo.fontMetrics().horizontalAdvance(combo.currentText()) + 16
    parts = [c for c in strip.children() if isinstance(c, QtWidgets.QWidget) and c.isVisible()]
    rects = [c.geometry() for c in parts]
    assert all(strip.rect().contains(r) for r in rects), size
    assert not any(a.intersects(b) for k, a in enumerate(rects) for b in rects[k + 1 :])
    for c in parts:
        if isinstance(c, QtWidgets.QAbstractButton | QtWidgets.QLabel):
            assert c.width() >= c.fontMetrics().horizontalAdvance(c.text()), (size, c.text())


def test_the_views_lists_show_their_text_whole_in_any_lecture_font(make_window, small_state):
    """In the lecture's 11 pt the stretch list read "asinł": a view's lists kept the width of
    the window's font. Now at every size A− / A+ give, and back in the full window, each
    list of the six views is as wide as a list of the same items sized to them."""
    w = make_window(small_state, run_on_start=False)
    w.lecture.set_on(True)
    w.resize(1280, 720)

    def cut() -> list:
        out = []
        for view in w.lecture.views().values():
            for box in view.findChildren(QtWidgets.QComboBox):
                if not box.isVisible():
                    continue
                ref = QtWidgets.QComboBox()  # the oracle: Qt's width for these items
                ref.setFont(box.font())
                ref.addItems([box.itemText(k) for k in range(box.count())])
                ref.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
                if box.width() < ref.sizeHint().width():
                    out.append((box.currentText(), box.width(), ref.sizeHint().width()))
                ref.deleteLater()
        return out

    for step in (0, 1, 1, -1, -1, -1):
        w.lecture.step_font(step)
        QtWidgets.QApplication.processEvents()
        assert cut() == [], w.lecture.font_pt
    w.lecture.set_on(False)
    QtWidgets.QApplication.processEvents()
    assert cut() == []
