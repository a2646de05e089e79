"""The Deconvolution tab and the Imaging panel on laptop and projector screens.

At 1280×720 and 1366×768, with the window and the Controls dock at the sizes the window
gives them there (as ``tests.support.window_probe --also`` shoots them): no scroll bar in
the tab or in the Imaging panel (whose *Density cells* row is the newest), every label
and field of the CLEAN controls whole, and the four image views at least 300 px wide.
At 1366×768 they are at least 300 px high too. At 1280×720 the tab's height is 586 px
under the menu, the "Try this" bar, the view tabs and the status bar, so two rows of
views get 290 px each (305 with the bar closed); the test holds them to that.
"""

from __future__ import annotations

import pytest
from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.screen_fit import FRAME_ALLOWANCE, PREFERRED_SIZE, dock_width

#: Screen → the least height of each image view (see the module docstring).
SCREENS = {(1280, 720): 290, (1366, 768): 300}


def _as_on(w, screen: tuple[int, int]) -> None:
    """The window and its dock sized as on ``screen`` (tests.support.window_probe)."""
    w.resize(*(min(p, s - a) for p, s, a in zip(PREFERRED_SIZE, screen, FRAME_ALLOWANCE)))
    tabs = w.panel_tabs.tabBar().sizeHint().width()
    w.resizeDocks([w.dock], [dock_width(w, screen[0]) + tabs], QtCore.Qt.Orientation.Horizontal)
    QtWidgets.QApplication.processEvents()


def _cut(root: QtWidgets.QWidget) -> list:
    """Visible labels that do not show their text whole, fields below their least size."""
    cut = []
    for label in root.findChildren(QtWidgets.QLabel):
        ignored = label.sizePolicy().horizontalPolicy() == QtWidgets.QSizePolicy.Policy.Ignored
        if not label.isVisible() or ignored:
            continue
        if label.wordWrap():  # wraps: all its lines must show
            if label.height() < label.heightForWidth(label.width()):
                cut.append((label.text(), label.height(), label.heightForWidth(label.width())))
        elif label.width() < label.sizeHint().width():
            cut.append((label.text(), label.width(), label.sizeHint().width()))
    for kind in (QtWidgets.QAbstractSpinBox, QtWidgets.QComboBox, QtWidgets.QAbstractButton):
        for field in root.findChildren(kind):
            if field.isVisible() and field.width() < field.minimumSizeHint().width():
                cut.append((type(field).__name__, field.width(), field.minimumSizeHint().width()))
    return cut


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_deconvolution_tab_fits(make_window, small_state, wait_result, screen):
    w = make_window(small_state)
    wait_result(w)
    w.show_tab("deconvolution")
    d = w.views.deconv_view
    d.clean_controls.multiscale_check.setChecked(True)  # every control enabled and shown
    _as_on(w, screen)
    assert w.views.currentWidget() is d  # the tab itself: no scroll area around it
    assert not any(bar.isVisible() for bar in d.findChildren(QtWidgets.QScrollBar))
    assert _cut(d.clean_controls) == []
    sizes = [(v.width(), v.height()) for v in d.image_views]
    assert min(s[0] for s in sizes) >= 300 and min(s[1] for s in sizes) >= SCREENS[screen], sizes
    assert d.curves.isVisible() and d.curves.height() >= 200


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_imaging_panel_fits_the_dock(make_window, small_state, screen):
    w = make_window(small_state, run_on_start=False)
    panel = w.imaging_panel
    scroll = panel.parentWidget().parentWidget()
    w.panel_tabs.setCurrentWidget(scroll)
    _as_on(w, screen)
    assert not scroll.verticalScrollBar().isVisible()
    assert not scroll.horizontalScrollBar().isVisible()
    assert _cut(panel) == []
    spin = panel.density_scale_spin  # its nine decimals whole
    assert spin.isVisible() and spin.width() >= spin.sizeHint().width()
    assert not panel.message.isVisible()  # no empty red line
    panel.npix_spin.setValue(17)  # odd: refused, and the red line says why
    with pytest.raises(ValueError):
        panel.options()
    assert panel.message.isVisible() and "17" in panel.message.text()


def test_the_clean_summary_is_cut_at_a_word_on_a_projector(make_window, small_state, wait_result):
    """At 1280×720 the line under the CLEAN controls ended mid-word ("… stopped: niter; r").
    Now, after a real CLEAN, it is whole or cut after a word and marked "…", inside the
    label, and its tooltip holds the whole line."""
    w = make_window(small_state)
    wait_result(w)
    w.show_tab("deconvolution")
    d = w.views.deconv_view
    _as_on(w, (1280, 720))
    w.controller.submit("clean")
    wait_result(w, timeout=120_000)
    QtWidgets.QApplication.processEvents()
    note, state = d.note, d.state()
    assert state is not None and state.done
    whole = note.text()
    assert state.describe() in whole
    shown = note.shown_text()
    assert note.fontMetrics().horizontalAdvance(shown) <= note.width()
    assert shown != whole  # at 1280×720 the line is longer than the controls' column
    assert shown.endswith(" …") and whole.startswith(shown[:-2])
    assert not whole[len(shown) - 2].isalnum()  # the cut falls between words
    assert note.toolTip() == whole
