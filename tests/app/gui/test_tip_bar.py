"""The hint bar keeps one height across every lesson step, so the views never jump (issue 28)."""

from __future__ import annotations

import pytest
from PyQt6 import QtCore, QtWidgets

from tests.support.screens import size_as_on
from uvlab.app.gui.lessons_menu import WELCOME, TipBar, lesson_tip
from uvlab.app.lab.lessons import LESSONS


def needed_height(label: QtWidgets.QLabel) -> int:
    """The height ``label``'s text needs at its width, measured by a free label (no fixed size)."""
    free = QtWidgets.QLabel(label.text())
    free.setFont(label.font())
    free.setWordWrap(True)
    return free.heightForWidth(label.width())


def _geometry(w) -> dict[str, tuple[int, int, int, int]]:
    """Where the hint bar, the view tabs and the overview's image views are in the window."""

    def rect(widget):
        at = widget.mapTo(w, QtCore.QPoint(0, 0))
        return (at.x(), at.y(), widget.width(), widget.height())

    v = w.views
    return {name: rect(x) for name, x in (
        ("tips", w.tips), ("views", v), ("dirty", v.dirty_view), ("psf", v.psf_view),
        ("uv", v.uv_view), ("array", v.array_view),
    )}  # fmt: skip


@pytest.mark.parametrize("screen", [(1280, 720), (1366, 768)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_lesson_step_leaves_the_views_where_they_are(make_window, small_state, screen):
    w = make_window(small_state, run_on_start=False)
    size_as_on(w, screen)
    w.run_panel.autorun_check.setChecked(False)
    QtWidgets.QApplication.processEvents()
    assert w.tips.isVisible() and WELCOME in w.tips.text()
    first = _geometry(w)
    label = w.tips.label
    for lesson in LESSONS:
        for scene in lesson.scenes:
            w.session.load_lesson(lesson, scene)
            QtWidgets.QApplication.processEvents()
            assert scene.try_this in label.text()  # this step's hint is the one shown
            # all of it shown: the label is as tall as the text needs at its width
            assert label.height() >= needed_height(label), scene.title
            assert _geometry(w) == first, (lesson.title, scene.title)
    w.controller.cancel()


def test_the_bar_keeps_the_height_of_its_tallest_hint_and_grows_for_a_longer_one(qtbot):
    bar = TipBar()
    qtbot.addWidget(bar)
    bar.resize(600, 40)
    bar.show()
    qtbot.waitExposed(bar)
    label = bar.label
    heights, needs = set(), []
    for lesson in LESSONS:
        for scene in lesson.scenes:
            bar.show_tip(lesson_tip(lesson, scene), lesson.page_path())
            heights.add(label.height())
            needs.append(needed_height(label))
    assert heights == {max(needs)}  # one height, that of the tallest hint
    assert max(needs) > min(needs)  # (the hints do differ)
    long = " ".join(["a much longer problem than any lesson's hint"] * 12)
    bar.show_fix(long, "Fix it", lambda: None)  # taller: the bar grows to show all of it
    grown = label.height()
    assert grown >= needed_height(label) > max(needs)
    bar.clear_fix()  # and keeps that height at this width: no jump back
    assert label.height() == grown
