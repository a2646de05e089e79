"""Sizes that follow the screen: the window inside the available geometry, the dock's width.

A window restored from another monitor, or opened at its preferred size on a
1366×768 laptop, must still open inside the screen's available geometry (the
screen less panels and task bars). Sizes derived from the font (not pixels)
keep the layout right at any device-pixel ratio (HiDPI).
"""

from __future__ import annotations

from PyQt6 import QtCore, QtGui, QtWidgets

#: The window's size on a screen with room for it (logical pixels).
PREFERRED_SIZE = (1500, 950)
#: Room left for a window manager's frame and title bar when the size is chosen.
FRAME_ALLOWANCE = (8, 36)
#: The controls dock's share of the screen's width, and its bounds in average character widths.
DOCK_SHARE = 0.22
DOCK_CHARS = (34, 52)


def available_geometry(widget: QtWidgets.QWidget) -> QtCore.QRect:
    """The available geometry of the screen ``widget`` is on (or the primary screen)."""
    screen = widget.screen() or QtGui.QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def fitted_rect(
    want: QtCore.QRect, avail: QtCore.QRect, allowance: tuple[int, int] = FRAME_ALLOWANCE
) -> QtCore.QRect:
    """``want`` shrunk to fit ``avail`` (less the frame allowance) and moved inside it.

    A rect that already fits keeps its size; its position is moved only as far
    as needed to lie wholly inside ``avail``.
    """
    max_w = max(1, avail.width() - allowance[0])
    max_h = max(1, avail.height() - allowance[1])
    w, h = min(want.width(), max_w), min(want.height(), max_h)
    x = min(max(want.x(), avail.x()), avail.x() + avail.width() - w - allowance[0])
    y = min(max(want.y(), avail.y()), avail.y() + avail.height() - h - allowance[1])
    return QtCore.QRect(max(x, avail.x()), max(y, avail.y()), w, h)


def fit_window(window: QtWidgets.QWidget, restored: bool) -> QtCore.QRect:
    """Place ``window`` inside its screen: the restored geometry or the preferred size, centred.

    Returns the geometry set.
    """
    avail = available_geometry(window)
    if restored:
        want = window.geometry()
    else:
        w, h = PREFERRED_SIZE
        want = QtCore.QRect(0, 0, w, h)
        want.moveCenter(avail.center())
    rect = fitted_rect(want, avail)
    window.setGeometry(rect)
    return rect


def dock_width(widget: QtWidgets.QWidget, screen_width: int | None = None) -> int:
    """The controls dock's first width: a share of the screen, within DOCK_CHARS characters.

    ``screen_width``: that of another screen than ``widget``'s (tests of a screen size).
    """
    char = QtGui.QFontMetrics(widget.font()).averageCharWidth()
    lo, hi = (n * char for n in DOCK_CHARS)
    width = available_geometry(widget).width() if screen_width is None else screen_width
    return int(min(max(DOCK_SHARE * width, lo), hi))


def min_dock_width(widget: QtWidgets.QWidget) -> int:
    """The narrowest the controls dock may be made (DOCK_CHARS[0] characters)."""
    return DOCK_CHARS[0] * QtGui.QFontMetrics(widget.font()).averageCharWidth()
