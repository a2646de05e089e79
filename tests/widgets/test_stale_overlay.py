"""StaleOverlay: a veil and a banner over a view whose picture is out of date."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.widgets.stale_overlay import StaleOverlay


def _pixels(widget: QtWidgets.QWidget) -> np.ndarray:
    """The widget's grab() as (h, w, 3) uint8 RGB."""
    img = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    ptr = img.constBits()
    ptr.setsize(img.sizeInBytes())
    rows = np.frombuffer(ptr, np.uint8).reshape(img.height(), img.bytesPerLine())
    return rows[:, : 3 * img.width()].reshape(img.height(), img.width(), 3).copy()


@pytest.fixture
def host(qtbot):
    w = QtWidgets.QWidget()
    w.setStyleSheet("background: white")
    w.setAutoFillBackground(True)
    qtbot.addWidget(w)
    w.resize(300, 200)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_mark_veils_the_host_and_the_grab_carries_it(qtbot, host):
    overlay = StaleOverlay(host)
    clean = _pixels(host)
    assert overlay.level() is None and not overlay.isVisible()
    overlay.mark("Out of date: the run failed (no data). Run again.")
    assert overlay.isVisible() and overlay.level() == "stale"
    assert overlay.geometry() == host.rect()
    marked = _pixels(host)
    # the lower half (below the banner) is the white host under a grey veil of alpha 150
    veil = 150 / 255
    expected = round(255 * (1 - veil) + 60 * veil)
    lower = marked[marked.shape[0] // 2 :]
    assert clean[clean.shape[0] // 2 :].min() == 255
    assert np.abs(lower.astype(int) - expected).max() <= 2
    top = marked[:5, 5:-5].reshape(-1, 3)  # the amber banner's fill: red > green > blue
    assert np.median(top[:, 0]) > np.median(top[:, 1]) > np.median(top[:, 2])
    overlay.unmark()
    assert not overlay.isVisible() and overlay.text() == ""
    np.testing.assert_array_equal(_pixels(host), clean)


def test_running_mark_has_a_banner_and_no_veil(qtbot, host):
    overlay = StaleOverlay(host)
    overlay.mark("Updating", "running")
    pixels = _pixels(host)
    assert overlay.level() == "running"
    assert pixels[pixels.shape[0] // 2 :].min() == 255  # the picture is not dimmed
    assert pixels[:5, 5:-5].reshape(-1, 3)[:, 2].mean() > 120  # a blue banner
    with pytest.raises(ValueError, match="unknown level 'old'"):
        overlay.mark("x", "old")


def test_overlay_follows_the_host_and_lets_the_mouse_through(qtbot, host):
    overlay = StaleOverlay(host)
    overlay.mark("Out of date")
    host.resize(420, 260)
    qtbot.waitUntil(lambda: overlay.geometry() == host.rect())
    assert overlay.testAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
